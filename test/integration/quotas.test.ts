import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import type { EarningListItem } from '../../sdk/src/index.ts';
import { externalId } from '../factories/deals.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { cliJson as cli, onlyJson, runCli } from '../helpers/cli.ts';
import { listAll } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';

// Quota tables and ramps end to end (docs/quotas.md): quotas set and uploaded through the admin API and the CLI,
// deal events and reads through the SDK against the real server, which validates its own responses.

// Each CLI call is a real `quotient` process: generous timeouts for a loaded machine (nothing here is timed).
const CLI_PROCESSES_MS = 300_000;

/** Monthly, quota 100,000.00: 10% above quota, and 2,000.00 once the rep reaches it. */
function quotaPlan(overrides: Record<string, unknown> = {}) {
  return planDocument({
    chips: [
      {
        key: 'accelerator',
        name: 'Accelerator over quota',
        kind: 'tiered_commission',
        mode: 'marginal',
        tiers: [
          { up_to_pct: 100, rate_bps: 0 },
          { up_to_pct: null, rate_bps: 1000 },
        ],
      },
      { key: 'quota-bonus', name: 'Quota bonus', kind: 'attainment_bonus', threshold_pct: 100, amount_cents: 200_000 },
    ],
    ...overrides,
  });
}

function won(rep: string, amount: number, closeDate: string) {
  return {
    external_id: externalId(),
    state: { amount_cents: amount, stage: 'closed_won', close_date: closeDate, owner_external_id: rep },
  };
}

/** The rep's live rows as [chip kind, amount, period booked in], sorted. */
function live(rows: readonly EarningListItem[]): Array<[string, number, string]> {
  return rows
    .filter((row) => row.status === 'pending' || row.status === 'projected' || row.status === 'approved')
    .map((row): [string, number, string] => [row.deal_id === null ? 'bonus' : 'tier', row.amount_cents, row.period_id])
    .sort();
}

describe('quota tables', () => {
  test("the admin API sets and lists a rep's quota; tiers, the bonus, the trace and the statement use it", async ({
    db,
    org,
    client,
    signedIn,
  }) => {
    const { client: admin } = await signedIn('admin', org.id);
    const plan = quotaPlan();
    await applyPlan(db, org.id, plan);
    await client.deals.ingestEvent(won('rep-q', 8_000_000, '2026-04-10'));
    // 80% of the plan's quota: nothing yet (a line that earns 0 has no row).
    assert.deepEqual(live(await listAll(client, { user_external_id: 'rep-q' })), []);

    const set = await admin.api.POST('/admin/v1/quotas', {
      body: { rep_external_id: 'rep-q', plan_key: plan.key, from: '2026-04-01', quota_cents: 7_500_000 },
    });
    assert.equal(set.response.status, 200, JSON.stringify(set.error));
    assert.equal(set.data?.changed, true);
    assert.equal(set.data?.quotas_changed, 1);
    // Against 75,000.00: 5,000.00 above it at 10%, and the bonus.
    const rows = await listAll(client, { user_external_id: 'rep-q' });
    assert.deepEqual(live(rows), [
      ['bonus', 200_000, '2026-04'],
      ['tier', 50_000, '2026-04'],
    ]);
    const bonus = rows.find((row) => row.deal_id === null);
    const trace = (await client.earnings.get(bonus?.id as string)).trace;
    assert.equal(trace?.explanation[0], 'quota 75,000.00: quota set for this rep from 2026-04-01.');

    const rep = await client.users.findByExternalId('rep-q');
    const statement = await client.statements.get(rep?.id as string, '2026-04');
    assert.deepEqual(statement.plans[0]?.attainment, {
      won_cents: 8_000_000,
      quota_cents: 7_500_000,
      percent: 106.67,
      quota_explanation: 'quota 75,000.00: quota set for this rep from 2026-04-01.',
    });
    // The quota table does not reach back: March keeps the plan's quota.
    const march = await client.statements.get(rep?.id as string, '2026-03');
    assert.equal(march.plans[0]?.attainment?.quota_cents, 10_000_000);

    const listed = await admin.api.GET('/admin/v1/quotas', { params: { query: { rep: 'rep-q' } } });
    assert.deepEqual(
      listed.data?.quotas.map((entry) => [entry.rep_external_id, entry.plan_key, entry.from, entry.quota_cents]),
      [['rep-q', plan.key, '2026-04-01', 7_500_000]],
    );
    assert.equal(listed.data?.quotas[0]?.currency, 'USD');
    const again = await admin.api.POST('/admin/v1/quotas', {
      body: { rep_external_id: 'rep-q', plan_key: plan.key, from: '2026-04-01', quota_cents: 7_500_000 },
    });
    assert.deepEqual([again.data?.changed, again.data?.rows_recomputed], [false, 0]);
    // The same quota typed in major units of the plan's currency (the console's form) changes nothing; one decimal
    // too many is refused, saying so.
    const major = await admin.api.POST('/admin/v1/quotas', {
      body: { rep_external_id: 'rep-q', plan_key: plan.key, from: '2026-04-01', quota: '75000.00' },
    });
    assert.deepEqual([major.response.status, major.data?.changed], [200, false]);
    const tooPrecise = await admin.api.POST('/admin/v1/quotas', {
      body: { rep_external_id: 'rep-q', plan_key: plan.key, from: '2026-04-01', quota: '75000.001' },
    });
    assert.equal(tooPrecise.response.status, 400);
    assert.match(tooPrecise.error?.reason ?? '', /has 3 decimals: the plan's currency takes at most 2/);

    const midMonth = await admin.api.POST('/admin/v1/quotas', {
      body: { rep_external_id: 'rep-q', plan_key: plan.key, from: '2026-04-15', quota_cents: 1 },
    });
    assert.equal(midMonth.response.status, 400);
    assert.equal(midMonth.error?.error, 'invalid_body');
    assert.match(midMonth.error?.reason ?? '', /not the first day of a month/);
    const noPlan = await admin.api.POST('/admin/v1/quotas', {
      body: { rep_external_id: 'rep-q', plan_key: 'no-such-plan', from: '2026-04-01', quota_cents: 1 },
    });
    assert.equal(noPlan.response.status, 404);

    // Back to the plan's quota from April: the bonus and the tier line go away again.
    const back = await admin.api.POST('/admin/v1/quotas', {
      body: { rep_external_id: 'rep-q', plan_key: plan.key, from: '2026-04-01', quota_cents: null },
    });
    assert.equal(back.data?.changed, true);
    assert.deepEqual(live(await listAll(client, { user_external_id: 'rep-q' })), []);
  });

  test('a quota file: a bad row refuses it whole, by line; a good one applies; the same file again is a no-op', async ({
    db,
    org,
    client,
    signedIn,
  }) => {
    const { client: admin } = await signedIn('admin', org.id);
    const plan = quotaPlan();
    await applyPlan(db, org.id, plan);
    await client.deals.ingestEvent(won('rep-f1', 6_000_000, '2026-05-12'));
    await client.deals.ingestEvent(won('rep-f2', 6_000_000, '2026-05-12'));

    const bad = [
      'rep_external_id,plan_key,from,quota,start_date',
      `rep-f1,${plan.key},2026-05-01,50000.00,`,
      `rep-f2,${plan.key},2026-05-01,lots,`,
      `rep-f2,${plan.key},2026-05-10,50000.00,`,
      `rep-f3,no-such-plan,2026-05-01,50000.00,`,
    ].join('\n');
    const refused = await admin.api.POST('/admin/v1/quota-files', { body: { text: bad } });
    assert.equal(refused.response.status, 400);
    assert.equal(refused.error?.error, 'invalid_body');
    const reason = refused.error?.reason ?? '';
    assert.match(reason, /nothing was applied/);
    // Every bad row in one pass: the file's own checks (line 3) and those against the org's plans (lines 4, 5).
    assert.match(reason, /3 bad rows/);
    assert.match(reason, /line 3: quota: "lots" is not an amount/);
    assert.match(reason, /line 4: from: 2026-05-10 is not the first day of a month/);
    assert.match(reason, /line 5: plan_key: the org has no plan no-such-plan/);
    assert.doesNotMatch(reason, /line 2/);
    // Nothing of the file was applied: not even its good row.
    assert.deepEqual((await admin.api.GET('/admin/v1/quotas', {})).data?.quotas, []);
    const second = await admin.api.POST('/admin/v1/quota-files', {
      body: { text: bad.replace('lots', '50000.00') },
    });
    assert.equal(second.response.status, 400);
    assert.match(second.error?.reason ?? '', /line 4: from: 2026-05-10 is not the first day of a month/);
    assert.match(second.error?.reason ?? '', /line 5: plan_key: the org has no plan no-such-plan/);

    const good = [
      'rep_external_id,plan_key,from,quota,start_date',
      `rep-f1,${plan.key},2026-05-01,50000.00,`,
      `rep-f2,${plan.key},2026-05-01,plan,2026-01-15`,
      `rep-f2,${plan.key},2026-06-01,120000,`,
    ].join('\r\n');
    const applied = await admin.api.POST('/admin/v1/quota-files', { body: { text: good } });
    assert.equal(applied.response.status, 200, JSON.stringify(applied.error));
    assert.deepEqual(
      [applied.data?.rows, applied.data?.quotas_changed, applied.data?.start_dates_changed, applied.data?.changed],
      [3, 3, 1, true],
    );
    // rep-f1 reaches 50,000.00 with 60,000.00: the bonus and 1,000.00 of tiers; rep-f2 stays under the plan's quota.
    assert.deepEqual(live(await listAll(client, { user_external_id: 'rep-f1' })), [
      ['bonus', 200_000, '2026-05'],
      ['tier', 100_000, '2026-05'],
    ]);
    assert.deepEqual(live(await listAll(client, { user_external_id: 'rep-f2' })), []);
    const listed = await admin.api.GET('/admin/v1/quotas', { params: { query: { plan: plan.key } } });
    assert.equal(listed.response.status, 200, JSON.stringify(listed.error));
    assert.deepEqual(
      listed.data?.quotas.map((entry) => [entry.rep_external_id, entry.from, entry.quota_cents]),
      [
        ['rep-f1', '2026-05-01', 5_000_000],
        ['rep-f2', '2026-05-01', null],
        ['rep-f2', '2026-06-01', 12_000_000],
      ],
    );
    const f2 = await admin.api.GET('/admin/v1/reps/{id}/start-date', {
      params: { path: { id: (await client.users.findByExternalId('rep-f2'))?.id as string } },
    });
    assert.equal(f2.data?.start_date, '2026-01-15');

    const rowsBefore = await listAll(client, {});
    const reupload = await admin.api.POST('/admin/v1/quota-files', { body: { text: good } });
    assert.deepEqual(
      [
        reupload.data?.changed,
        reupload.data?.quotas_changed,
        reupload.data?.start_dates_changed,
        reupload.data?.rows_recomputed,
      ],
      [false, 0, 0, 0],
    );
    assert.deepEqual(await listAll(client, {}), rowsBefore);
  });

  test("a start date ramps the rep's quota; a locked period's difference is booked in the next open one", async ({
    db,
    org,
    client,
    services,
    signedIn,
  }) => {
    const { client: admin } = await signedIn('admin', org.id);
    const plan = quotaPlan({ ramp: [50, 75] });
    await applyPlan(db, org.id, plan);
    await client.deals.ingestEvent(won('rep-r', 6_000_000, '2026-03-10'));
    await client.deals.ingestEvent(won('rep-r', 6_000_000, '2026-04-10'));
    await services.admin.periods.lock(org.id, '2026-03');
    // Without a start date the rep is not ramped: 60% of 100,000.00 in both months.
    assert.deepEqual(live(await listAll(client, { user_external_id: 'rep-r' })), []);

    const rep = await client.users.findByExternalId('rep-r');
    const set = await admin.api.POST('/admin/v1/reps/{id}/start-date', {
      params: { path: { id: rep?.id as string } },
      body: { start_date: '2026-03-09' },
    });
    assert.equal(set.response.status, 200, JSON.stringify(set.error));
    assert.equal(set.data?.start_dates_changed, 1);
    // March is ramp month 1 (50,000.00): locked, so its bonus and 1,000.00 of tiers are booked in April, the next
    // open period. April is month 2 (75,000.00): no bonus, 60,000.00 is below it.
    const rows = await listAll(client, { user_external_id: 'rep-r' });
    assert.deepEqual(live(rows), [
      ['bonus', 200_000, '2026-04'],
      ['tier', 100_000, '2026-04'],
    ]);
    const bonus = rows.find((row) => row.deal_id === null);
    const trace = (await client.earnings.get(bonus?.id as string)).trace;
    assert.equal(
      trace?.explanation[0],
      'quota 50,000.00: ramp month 1 of 2, 50% of 100,000.00, the plan quota; the rep started on 2026-03-09.',
    );
    const april = await client.statements.get(rep?.id as string, '2026-04');
    assert.equal(april.plans[0]?.attainment?.quota_cents, 7_500_000);
    assert.equal(
      april.plans[0]?.attainment?.quota_explanation,
      'quota 75,000.00: ramp month 2 of 2, 75% of 100,000.00, the plan quota; the rep started on 2026-03-09.',
    );
    // An estimate reads the ramp as the engine does: 20,000.00 more in April would reach 75,000.00, so the bonus
    // (2,000.00) and 5,000.00 above it at 10% (500.00).
    const estimate = await client.estimates.create({
      state: { amount_cents: 2_000_000, owner_external_id: 'rep-r' },
      close_date: '2026-04-20',
    });
    assert.equal(estimate.earned_after_cents - estimate.earned_now_cents, 200_000 + 50_000);
    // A deal event of the ramped rep reads the ramp too.
    await client.deals.ingestEvent(won('rep-r', 2_000_000, '2026-04-20'));
    const after = live(await listAll(client, { user_external_id: 'rep-r' }));
    assert.deepEqual(
      after.filter(([kind, , period]) => kind === 'bonus' && period === '2026-04').map(([, amount]) => amount),
      [200_000, 200_000],
    );
  });
});

describe('quotient quotas', () => {
  test(
    'import, list and set from the CLI; a refused file exits 2 naming its bad row',
    async ({ db, org }) => {
      const plan = quotaPlan();
      await applyPlan(db, org.id, plan);
      const dir = await mkdtemp(join(tmpdir(), 'quotas-'));
      const file = join(dir, 'quotas.csv');
      await writeFile(
        file,
        `rep_external_id,plan_key,from,quota,start_date\nrep-c1,${plan.key},2026-01-01,90000.00,2026-01-05\n`,
      );
      const imported = await cli<{ changed: boolean; quotas_changed: number; start_dates_changed: number }>([
        'quotas',
        'import',
        file,
        '--org',
        org.id,
      ]);
      assert.deepEqual([imported.changed, imported.quotas_changed, imported.start_dates_changed], [true, 1, 1]);
      const set = await cli<{ changed: boolean }>([
        'quotas',
        'set',
        'rep-c1',
        plan.key,
        '9500000',
        '--from',
        '2026-02-01',
        '--org',
        org.id,
      ]);
      assert.equal(set.changed, true);
      const listed = await cli<{ quotas: Array<{ rep_external_id: string; from: string; quota_cents: number }> }>([
        'quotas',
        'list',
        '--org',
        org.id,
        '--rep',
        'rep-c1',
      ]);
      assert.deepEqual(
        listed.quotas.map((entry) => [entry.from, entry.quota_cents]),
        [
          ['2026-01-01', 9_000_000],
          ['2026-02-01', 9_500_000],
        ],
      );
      await writeFile(file, `rep_external_id,plan_key,from,quota\nrep-c1,${plan.key},2026-03-01,-5\n`);
      const refused = await runCli(['quotas', 'import', file, '--org', org.id, '--json']);
      assert.equal(refused.code, 2, refused.stderr);
      const document = onlyJson(refused) as { error: string; reason: string };
      assert.equal(document.error, 'invalid_argument');
      assert.match(document.reason, /line 2: quota: "-5" is not an amount/);
    },
    CLI_PROCESSES_MS,
  );
});
