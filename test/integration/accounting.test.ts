import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import type { QuotientClient } from '../../sdk/src/index.ts';
import { POLICY_YAML } from '../factories/accounting.ts';
import { commissionLockedInJanuary } from '../factories/accountingLedger.ts';
import { cliJson, runCli, SLOW_CLI_TEST_MS } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// The accounting books end to end: earnings booked through the API, periods locked, the policy applied and the
// reports exported through the CLI and the admin API (which validates its responses against the contract).

function periodAdmin() {
  return testServices().admin.periods;
}

/** The commission of a 36-month deal booked in January and January locked, then the policy applied. */
async function bookedJanuary(orgId: string, client: QuotientClient): Promise<string> {
  await commissionLockedInJanuary(testDatabase(), orgId, client);
  const file = join(await mkdtemp(join(tmpdir(), 'quotient-accounting-')), 'accounting.yaml');
  await writeFile(file, POLICY_YAML);
  const applied = await cliJson<{ version: number; changed: boolean }>([
    'accounting',
    'policy',
    'apply',
    file,
    '--org',
    orgId,
  ]);
  assert.deepEqual([applied.version, applied.changed], [1, true]);
  return file;
}

describe('quotient accounting (CLI)', () => {
  test('the roll-forward and journal of a capitalised commission, then a clawback after the month closed', {
    timeout: SLOW_CLI_TEST_MS,
  }, async ({ org, client }) => {
    const file = await bookedJanuary(org.id, client);
    const again = await cliJson<{ changed: boolean }>(['accounting', 'policy', 'apply', file, '--org', org.id]);
    assert.equal(again.changed, false);

    const csv = await runCli(['accounting', 'rollforward', '--org', org.id, '--month', '2026-01']);
    assert.equal(csv.code, 0, csv.stderr);
    assert.equal(
      csv.stdout,
      'month,currency,opening_cents,additions_cents,amortisation_cents,impairments_cents,closing_cents,expensed_cents,closed\r\n' +
        '2026-01,USD,0,360000,10000,0,350000,0,false\r\n',
    );
    const journal = await cliJson<{ entries: Array<{ entry: string; lines: unknown[] }> }>([
      'accounting',
      'journal',
      '--org',
      org.id,
      '--month',
      '2026-01',
    ]);
    assert.deepEqual(
      journal.entries.map((entry) => [entry.entry, entry.lines]),
      [
        [
          'capitalisation',
          [
            { account: '1450', debit_cents: 360_000, credit_cents: 0 },
            { account: '2150', debit_cents: 0, credit_cents: 360_000 },
          ],
        ],
        [
          'amortisation',
          [
            { account: '6120', debit_cents: 10_000, credit_cents: 0 },
            { account: '1450', debit_cents: 0, credit_cents: 10_000 },
          ],
        ],
      ],
    );

    const closed = await cliJson<{ months: string[] }>(['accounting', 'close', '--org', org.id, '--month', '2026-01']);
    assert.deepEqual(closed.months, ['2026-01']);
    const twice = await runCli(['accounting', 'close', '--org', org.id, '--month', '2026-01', '--json']);
    assert.equal(twice.code, 2);
    assert.equal((JSON.parse(twice.stdout) as { error: string }).error, 'invalid_state');

    // The deal reopens: the ledger claws the commission back in February, approved when February locks.
    await client.deals.ingestEvent({
      external_id: 'opp-1',
      state: { amount_cents: 3_600_000, stage: 'proposal', close_date: '2026-01-15', owner_external_id: 'rep-1' },
    });
    await periodAdmin().lock(org.id, '2026-02');
    const rolled = await cliJson<{ closed_through: string; months: Array<Record<string, unknown>> }>([
      'accounting',
      'rollforward',
      '--org',
      org.id,
      '--from',
      '2026-01',
      '--to',
      '2026-02',
    ]);
    assert.equal(rolled.closed_through, '2026-01');
    assert.deepEqual(rolled.months, [
      {
        month: '2026-01',
        closed: true,
        opening_cents: 0,
        additions_cents: 360_000,
        amortisation_cents: 10_000,
        impairments_cents: 0,
        closing_cents: 350_000,
        expensed_cents: 0,
      },
      {
        month: '2026-02',
        closed: false,
        opening_cents: 350_000,
        additions_cents: -360_000,
        amortisation_cents: -10_000,
        impairments_cents: 0,
        closing_cents: 0,
        expensed_cents: 0,
      },
    ]);
    const waterfall = await runCli([
      'accounting',
      'waterfall',
      '--org',
      org.id,
      '--from',
      '2026-01',
      '--to',
      '2026-02',
    ]);
    assert.equal(waterfall.stdout, 'deal,2026-01,2026-02,total_cents\r\nopp-1,10000,-10000,0\r\n');
    const schedule = await runCli(['accounting', 'schedule', '--org', org.id, '--deal', 'opp-1']);
    assert.equal(schedule.code, 0, schedule.stderr);
    assert.match(schedule.stdout, /Amortisation floor\(360000 × 1 ÷ 36\) = 10000: USD 100\.00\./);
    assert.match(schedule.stdout, /that much amortisation expense is reversed and the asset is 0/);
    const ofRep = await runCli(['accounting', 'schedule', '--org', org.id, '--rep', 'rep-1', '--json']);
    assert.deepEqual(
      JSON.parse(ofRep.stdout).schedules.map((line: { deal_external_id: string }) => line.deal_external_id),
      ['opp-1'],
    );
  });

  test('a policy file with problems is refused with each problem by path, and nothing is applied', async ({ org }) => {
    const file = join(await mkdtemp(join(tmpdir(), 'quotient-accounting-')), 'accounting.yaml');
    await writeFile(file, POLICY_YAML.replace('book: asc_340_40', 'book: gaap'));
    const result = await runCli(['accounting', 'policy', 'apply', file, '--org', org.id]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /book \(line 1\): must be one of: asc_340_40, ifrs_15/);
    const shown = await runCli(['accounting', 'policy', 'show', '--org', org.id, '--json']);
    assert.equal(JSON.parse(shown.stdout).error, 'not_found');
  });
});

describe('the accounting operations of the admin API', () => {
  test('the journal as JSON and as CSV, and a close, for an admin of the org', async ({ org, client, signedIn }) => {
    await bookedJanuary(org.id, client);
    const { client: admin } = await signedIn('admin', org.id);
    const policy = await admin.api.GET('/admin/v1/accounting/policy');
    assert.equal(policy.data?.policy.gl_accounts.impairment_expense, '6120');
    const json = await admin.api.GET('/admin/v1/accounting/journal', { params: { query: { from: '2026-01' } } });
    assert.equal(json.response.status, 200);
    const body = json.data as Exclude<typeof json.data, string | undefined>;
    assert.deepEqual(
      body.entries.map((entry) => entry.entry),
      ['capitalisation', 'amortisation'],
    );
    const csv = await admin.api.GET('/admin/v1/accounting/journal', {
      params: { query: { from: '2026-01', format: 'csv' } },
      parseAs: 'text',
    });
    assert.equal(csv.response.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(
      csv.data,
      'month,entry,description,account,debit_cents,credit_cents\r\n' +
        '2026-01,capitalisation,Commissions capitalised as costs of obtaining contracts,1450,360000,0\r\n' +
        '2026-01,capitalisation,Commissions capitalised as costs of obtaining contracts,2150,0,360000\r\n' +
        '2026-01,amortisation,Amortisation of capitalised commissions,6120,10000,0\r\n' +
        '2026-01,amortisation,Amortisation of capitalised commissions,1450,0,10000\r\n',
    );
    const schedules = await admin.api.GET('/admin/v1/accounting/schedules', {
      params: { query: { deal_external_id: 'opp-1' } },
    });
    const [schedule] = schedules.data?.schedules ?? [];
    assert.deepEqual(
      [schedule?.treatment, schedule?.capitalised_cents, schedule?.benefit_start, schedule?.benefit_last_month],
      ['capitalised', 360_000, '2026-01-15', '2028-12'],
    );
    assert.equal(schedule?.months[0]?.trace.at(-1), 'Amortisation floor(360000 × 1 ÷ 36) = 10000: USD 100.00.');
    const byRep = async (query: { deal_external_id?: string; user_external_id?: string }) => {
      const answer = await admin.api.GET('/admin/v1/accounting/schedules', { params: { query } });
      return answer.error?.error ?? answer.data?.schedules.map((line) => line.line_key);
    };
    assert.deepEqual(await byRep({ user_external_id: 'rep-1' }), [schedule?.line_key]);
    assert.deepEqual(await byRep({ deal_external_id: 'opp-1', user_external_id: 'rep-2' }), []);
    assert.equal(await byRep({}), 'invalid_body');
    const closed = await admin.api.POST('/admin/v1/accounting/closes', { body: { month: '2026-01' } });
    assert.deepEqual(closed.data?.months, ['2026-01']);
    const { client: viewer } = await signedIn('viewer', org.id);
    const refused = await viewer.api.POST('/admin/v1/accounting/closes', { body: { month: '2026-02' } });
    assert.equal(refused.response.status, 403);
  });

  test('a book in another currency leaves a line out until a rate is set, then converts it at that rate', async ({
    db,
    org,
    client,
    signedIn,
  }) => {
    await commissionLockedInJanuary(db, org.id, client);
    await testServices({ db }).admin.accounting.applyPolicy({
      orgId: org.id,
      text: POLICY_YAML.replace('currency: USD', 'currency: EUR'),
    });
    const { client: admin } = await signedIn('admin', org.id);
    const read = () =>
      admin.api.GET('/admin/v1/accounting/schedules', { params: { query: { deal_external_id: 'opp-1' } } });

    const before = await read();
    assert.deepEqual(before.data?.schedules, []);
    assert.deepEqual(
      before.data?.left_out.map((line) => line.reason),
      ['missing_exchange_rate'],
    );
    assert.match(before.data?.left_out[0]?.detail ?? '', /quotient fx set USD EUR RATE --from 2026-01-31$/);

    const set = await runCli(['fx', 'set', 'USD', 'EUR', '0.92', '--from', '2026-01-01', '--org', org.id]);
    assert.equal(set.code, 0, set.stderr);
    const after = await read();
    assert.deepEqual(after.data?.left_out, []);
    const [schedule] = after.data?.schedules ?? [];
    assert.equal(schedule?.capitalised_cents, 331_200);
    assert.ok(
      schedule?.months[0]?.trace.includes(
        'The book is in EUR, so the amount is converted at the USD→EUR rate 0.92 in force on 2026-01-31 (set for 2026-01-01): USD 3,600.00 × 0.92 = EUR 3,312.00, rounded half away from zero to the EUR minor unit.',
      ),
    );
  });
  test('a rate replaced after the month closed changes neither the closed month nor the open one', async ({
    db,
    org,
    client,
    signedIn,
  }) => {
    await commissionLockedInJanuary(db, org.id, client, 'EUR');
    await testServices({ db }).admin.accounting.applyPolicy({ orgId: org.id, text: POLICY_YAML });
    const set = await runCli(['fx', 'set', 'EUR', 'USD', '1.1', '--from', '2026-01-01', '--org', org.id]);
    assert.equal(set.code, 0, set.stderr);
    const { client: admin } = await signedIn('admin', org.id);
    const range = { from: '2026-01', to: '2026-02' };
    const read = async () => {
      const [rolled, journal, schedules] = await Promise.all([
        admin.api.GET('/admin/v1/accounting/roll-forward', { params: { query: range } }),
        admin.api.GET('/admin/v1/accounting/journal', { params: { query: range } }),
        admin.api.GET('/admin/v1/accounting/schedules', { params: { query: { deal_external_id: 'opp-1' } } }),
      ]);
      return {
        months: (rolled.data as Exclude<typeof rolled.data, string | undefined>).months.map(
          ({ closed: _closed, ...figures }) => figures,
        ),
        entries: (journal.data as Exclude<typeof journal.data, string | undefined>).entries,
        schedules: schedules.data?.schedules,
      };
    };
    const before = await read();
    assert.deepEqual(before.months[0], {
      month: '2026-01',
      opening_cents: 0,
      additions_cents: 396_000,
      amortisation_cents: 11_000,
      impairments_cents: 0,
      closing_cents: 385_000,
      expensed_cents: 0,
    });

    const closed = await cliJson<{ months: string[] }>(['accounting', 'close', '--org', org.id, '--month', '2026-01']);
    assert.deepEqual(closed.months, ['2026-01']);
    const replaced = await runCli(['fx', 'set', 'EUR', 'USD', '1.2', '--from', '2026-01-01', '--org', org.id]);
    assert.equal(replaced.code, 0, replaced.stderr);

    const after = await read();
    assert.deepEqual(after, before);
    assert.deepEqual(after.months[1], {
      month: '2026-02',
      opening_cents: 385_000,
      additions_cents: 0,
      amortisation_cents: 11_000,
      impairments_cents: 0,
      closing_cents: 374_000,
      expensed_cents: 0,
    });
    assert.ok(
      after.schedules?.[0]?.months[0]?.trace.includes(
        'The book is in USD, so the amount is converted at the EUR→USD rate 1.1 in force on 2026-01-31 (set for 2026-01-01): EUR 3,600.00 × 1.1 = USD 3,960.00, rounded half away from zero to the USD minor unit.',
      ),
    );
  });
});
