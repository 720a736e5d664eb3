import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe } from 'vitest';
import type { QuotientClient } from '../../sdk/src/index.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import type { AdminClient } from '../helpers/adminClient.ts';
import { cliJson, onlyJson, runCli } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { listAll, state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { sdkClient } from '../helpers/sdk.ts';
import { testServices } from '../helpers/services.ts';

// Manual adjustments end to end: added through the admin API, the CLI and CSV files, read back through /v1
// (the SDK), statements, payouts and the payroll export, with the period's lock and payment.

function periodAdmin() {
  return testServices({ db: testDatabase() }).admin.periods;
}

async function adjustmentCount(orgId: string): Promise<number> {
  return testDatabase().adjustment.count({ where: { org_id: orgId } });
}

async function addBonus(admin: AdminClient, body: Record<string, unknown> = {}) {
  return admin.api.POST('/admin/v1/adjustments', {
    body: {
      user_external_id: 'rep-017',
      period_id: '2026-04',
      amount_cents: 50_000,
      category: 'one_off_bonus',
      reason: 'Spot bonus for the Acme renewal',
      ...body,
    },
  });
}

async function csvFile(text: string): Promise<string> {
  const path = join(tmpdir(), `adjustments-${process.pid}-${Math.random().toString(36).slice(2)}.csv`);
  await writeFile(path, text);
  return path;
}

const HEADER = 'idempotency_key,user_external_id,period_id,amount_cents,currency,category,reason,deal_external_id';

describe('manual adjustments', () => {
  test('an admin adds one: it is in the statement, /v1, the audit log and a webhook, with who added it', async ({
    org,
    client,
    db,
    signedIn,
  }) => {
    await client.deals.ingestEvent({ external_id: 'opp-a', state: state(1_000_000, 'closed_won', '2026-04-10') });
    await createEndpoint(db, org.id, 'https://hooks.example/quotient', ['adjustment.created']);
    const { client: admin, account } = await signedIn('admin', org.id);

    const created = await addBonus(admin, { idempotency_key: 'spot-1', deal_external_id: 'opp-a' });
    assert.equal(created.response.status, 201);
    const adjustment = created.data?.adjustment;
    assert.ok(adjustment);
    assert.equal(adjustment.status, 'pending');
    assert.equal(adjustment.currency, 'USD');
    assert.deepEqual(adjustment.created_by, {
      type: 'admin',
      name: account.email,
      admin_id: adjustment.created_by.admin_id,
    });
    assert.ok(adjustment.deal_id?.startsWith('deal_'));

    const again = await addBonus(admin, { idempotency_key: 'spot-1', deal_external_id: 'opp-a' });
    assert.equal(again.response.status, 200);
    assert.deepEqual(again.data, { adjustment, created: false });
    const other = await addBonus(admin, { idempotency_key: 'spot-1', amount_cents: 60_000 });
    assert.equal(other.response.status, 409);
    assert.equal(other.error?.error, 'invalid_state');
    assert.equal(await adjustmentCount(org.id), 1);

    const statement = await client.statements.get(adjustment.user_id, '2026-04');
    const rows = await listAll(client, { user_id: adjustment.user_id, period_id: '2026-04' });
    const rowsPayable = rows
      .filter((row) => ['pending', 'approved', 'paid'].includes(row.status))
      .reduce((sum, row) => sum + row.amount_cents, 0);
    assert.equal(statement.manual_adjustments_cents, 50_000);
    assert.equal(statement.payable_cents, rowsPayable + 50_000);
    assert.deepEqual(
      statement.manual_adjustments.map((each) => each.id),
      [adjustment.id],
    );
    assert.equal(statement.by_currency[0]?.payable_cents, statement.payable_cents);
    // Not an earning: the earnings list never shows it.
    assert.ok(rows.every((row) => !row.id.startsWith('adj_')));

    const listed = await client.adjustments.listPage({ period_id: '2026-04' });
    assert.deepEqual(
      listed.adjustments.map((each) => [each.id, each.amount_cents, each.created_by]),
      [[adjustment.id, 50_000, { type: 'admin', name: account.email }]],
    );
    assert.equal((await client.adjustments.listPage({ user_external_id: 'rep-404' })).adjustments.length, 0);

    const audit = await db.auditEntry.findMany({ where: { org_id: org.id, action: 'adjustment.created' } });
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.actor, account.email);
    assert.equal((audit[0]?.details as { reason?: string } | undefined)?.reason, 'Spot bonus for the Acme renewal');

    const messages = await db.webhookMessage.findMany({ where: { org_id: org.id, type: 'adjustment.created' } });
    assert.equal(messages.length, 1);
    const payload = messages[0]?.payload as { data: { adjustment: { id: string } } };
    assert.equal(payload.data.adjustment.id, adjustment.id);
  });

  test("a manager's rep token lists their own and their reports' adjustments, page by page in creation order, and no peer's", async ({
    db,
    server,
    newOrg,
  }) => {
    const { org, client } = await newOrg({
      scopes: ['deals:write', 'earnings:read', 'rep_tokens:write'],
    });
    const services = testServices({ db });
    for (const rep of ['rep-m', 'rep-p', 'rep-r1', 'rep-r2']) {
      await client.deals.ingestEvent({
        external_id: `opp-${rep}`,
        state: { ...state(100_000, 'open', '2026-04-10'), owner_external_id: rep },
      });
    }
    for (const report of ['rep-r1', 'rep-r2']) {
      await services.admin.repHierarchy.setManager({
        orgId: org.id,
        repExternalId: report,
        managerExternalId: 'rep-m',
        from: '2026-01-01',
      });
    }
    // Interleaved in time, so that a page of the manager's list takes rows of several reps.
    for (const round of [1, 2, 3]) {
      for (const rep of ['rep-r2', 'rep-p', 'rep-m', 'rep-r1']) {
        await services.admin.adjustments.create(org.id, {
          user_external_id: rep,
          period_id: '2026-04',
          amount_cents: 1_000 * round,
          category: 'one_off_bonus',
          reason: `Round ${round} for ${rep}`,
        });
      }
    }
    const everyone: Array<{ id: string; user_external_id: string }> = [];
    for await (const adjustment of client.adjustments.list({ limit: 5 })) everyone.push(adjustment);
    assert.equal(everyone.length, 12);

    const listedFor = async (rep: string) => {
      const minted = await client.repTokens.create({ user_external_id: rep });
      const asRep = sdkClient(server, minted.token, { maxRetries: 0 });
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await asRep.adjustments.listPage({ limit: 2, ...(cursor ? { cursor } : {}) });
        pages.push(page.adjustments.map((each) => each.id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return pages;
    };
    const inOrgOrder = (reps: string[]) =>
      everyone.filter((each) => reps.includes(each.user_external_id)).map((each) => each.id);

    const managers = await listedFor('rep-m');
    assert.deepEqual(managers.flat(), inOrgOrder(['rep-m', 'rep-r1', 'rep-r2']));
    assert.deepEqual(
      managers.map((page) => page.length),
      [2, 2, 2, 2, 1],
    );
    assert.deepEqual((await listedFor('rep-r1')).flat(), inOrgOrder(['rep-r1']));
    assert.deepEqual((await listedFor('rep-p')).flat(), inOrgOrder(['rep-p']));
  });

  test.for([
    [{ amount_cents: -5 }, 'amount_cents: a one_off_bonus adds to pay and must be positive'],
    [{ amount_cents: 0 }, 'amount_cents: must not be 0'],
    [{ category: 'deduction' }, 'amount_cents: a deduction must be negative'],
    [{ currency: 'ZZZ' }, 'currency: "ZZZ" is not an ISO 4217 currency code'],
    [{ reason: '   ' }, 'reason: must not be empty'],
  ] as const)('a bad adjustment is 400 and writes nothing: %j', async ([body, reason], { org, client, signedIn }) => {
    await client.deals.ingestEvent({ external_id: 'opp-a', state: state(1_000_000, 'open', '2026-04-10') });
    const { client: admin } = await signedIn('admin', org.id);
    const refused = await addBonus(admin, body);
    assert.equal(refused.response.status, 400);
    assert.equal(refused.error?.error, 'invalid_body');
    assert.ok(refused.error?.reason?.startsWith(reason), refused.error?.reason);
    assert.equal(await adjustmentCount(org.id), 0);
  });

  test('a locked period is refused with the open period to use; a void is a counter-adjustment; payouts and the export include them', async ({
    org,
    client,
    signedIn,
  }) => {
    await applyPlan(testDatabase(), org.id, planDocument());
    await client.deals.ingestEvent({
      external_id: 'opp-a',
      state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
    });
    const { client: admin } = await signedIn('admin', org.id);
    const bonus = (await addBonus(admin)).data?.adjustment;
    const deduction = (await addBonus(admin, { amount_cents: -12_000, category: 'deduction', reason: 'Laptop' })).data
      ?.adjustment;
    assert.ok(bonus && deduction);
    const voided = await admin.api.POST('/admin/v1/adjustments/{id}/void', {
      params: { path: { id: deduction.id } },
      body: { reason: 'Laptop was returned' },
    });
    assert.equal(voided.response.status, 201);
    assert.equal(voided.data?.adjustment.amount_cents, 12_000);
    assert.equal(voided.data?.adjustment.voids_id, deduction.id);
    const twice = await admin.api.POST('/admin/v1/adjustments/{id}/void', {
      params: { path: { id: deduction.id } },
      body: { reason: 'again' },
    });
    assert.equal(twice.response.status, 409);
    const got = await admin.api.GET('/admin/v1/adjustments/{id}', { params: { path: { id: deduction.id } } });
    assert.equal(got.data?.voided_by_id, voided.data?.adjustment.id);

    await periodAdmin().lock(org.id, '2026-04');
    const late = await addBonus(admin, { idempotency_key: 'late' });
    assert.equal(late.response.status, 409);
    assert.equal(
      late.error?.reason,
      'period 2026-04 is locked: adjustments go to an open period; use 2026-05, the earliest open period after it',
    );

    const [payout] = (await client.payouts.listPage({ period_id: '2026-04' })).payouts;
    assert.ok(payout);
    assert.equal(payout.adjustment_cents, 50_000);
    assert.equal(payout.total_cents, 600_000 + 50_000);
    const statement = await client.statements.get(bonus.user_id, '2026-04');
    assert.equal(statement.payable_cents, payout.total_cents);
    assert.deepEqual(
      statement.manual_adjustments.map((each) => each.status),
      ['approved', 'approved', 'approved'],
    );

    const csv = await runCli(['periods', 'export', '2026-04', '--org', org.id]);
    assert.equal(csv.code, 0, csv.stderr);
    assert.deepEqual(csv.stdout.trimEnd().split('\r\n'), [
      'user_id,user_external_id,currency,approved_cents,paid_cents,clawback_cents,draw_cents,adjustment_cents,total_cents,held_pending_acceptance_cents',
      `${bonus.user_id},rep-017,USD,650000,0,0,0,50000,650000,0`,
    ]);

    await periodAdmin().markPaid(org.id, '2026-04');
    const paid = (await client.payouts.listPage({ period_id: '2026-04' })).payouts[0];
    assert.deepEqual([paid?.paid_cents, paid?.approved_cents, paid?.adjustment_cents], [650_000, 0, 50_000]);
  });

  test('only into a period of a plan the rep is on: a quarter of an org paying monthly and a month before anything was booked are refused, saying why, and leave no period behind', async ({
    org,
    client,
    signedIn,
  }) => {
    const plan = planDocument();
    await applyPlan(testDatabase(), org.id, plan);
    await client.deals.ingestEvent({
      external_id: 'opp-a',
      state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
    });
    const { client: admin } = await signedIn('admin', org.id);
    const periodsBefore = await testDatabase().period.count({ where: { org_id: org.id } });
    const quarter = await addBonus(admin, { period_id: '2026-Q2' });
    assert.equal(quarter.response.status, 400);
    assert.equal(
      quarter.error?.reason,
      `period_id: 2026-Q2 is a quarter, and no plan rep-017 is on pays by quarter (${plan.key} pays monthly); use a month (YYYY-MM)`,
    );
    const longPast = await addBonus(admin, { period_id: '2019-01' });
    assert.equal(longPast.response.status, 400);
    assert.match(
      longPast.error?.reason ?? '',
      /^period_id: 2019-01 ended before the org's first period with earnings \(which starts on 2026-04-01\)/,
    );
    assert.equal(await adjustmentCount(org.id), 0);
    assert.equal(await testDatabase().period.count({ where: { org_id: org.id } }), periodsBefore);
    // A later month of the plan is taken, as the month with the rep's earnings is.
    assert.equal((await addBonus(admin, { period_id: '2026-06' })).response.status, 201);
    assert.equal((await addBonus(admin)).response.status, 201);
  });

  test('one that counts toward attainment moves the tiers, the bonus, the statement and the trace; its void takes it back under the ledger rules', async ({
    org,
    client,
    signedIn,
  }) => {
    const applied = await applyPlan(testDatabase(), org.id, planDocument());
    const chipIds = new Map(applied.chips.map((chip) => [chip.key, chip.id]));
    const chipOf = (row: { rule_chip_id: string }) =>
      [...chipIds].find(([, id]) => id === row.rule_chip_id)?.[0] ?? 'another';
    await client.deals.ingestEvent({
      external_id: 'opp-a',
      state: state(8_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
    });
    const { client: admin } = await signedIn('admin', org.id);
    const earned = async () => {
      const rows = await listAll(client, { period_id: '2026-04' });
      const live = rows.filter((row) => row.status !== 'superseded' && row.status !== 'reversed');
      const sum = (key: string) =>
        live.filter((row) => chipOf(row) === key).reduce((total, row) => total + row.amount_cents, 0);
      return { accelerator: sum('accelerator'), bonus: sum('quota-bonus') };
    };
    assert.deepEqual(await earned(), { accelerator: 0, bonus: 0 });

    // Paid, but not counted: nothing moves.
    const paidOnly = await addBonus(admin, { amount_cents: 9_000_000, category: 'correction', reason: 'Paid only' });
    assert.equal(paidOnly.data?.adjustment.counts_toward_attainment, false);
    assert.deepEqual(await earned(), { accelerator: 0, bonus: 0 });

    // 30,000.00 counted before the deal: 80,000.00 of it reaches 110,000.00, 10,000.00 above quota at 5%.
    const counted = await addBonus(admin, {
      amount_cents: 3_000_000,
      category: 'correction',
      reason: 'Credit for the Acme deal booked under rep-021',
      counts_toward_attainment: true,
    });
    assert.equal(counted.response.status, 201, JSON.stringify(counted.error));
    const adjustment = counted.data?.adjustment;
    assert.ok(adjustment?.counts_toward_attainment);
    assert.deepEqual(await earned(), { accelerator: 50_000, bonus: 200_000 });

    const bonusRow = (await listAll(client, { period_id: '2026-04' })).find(
      (row) => chipOf(row) === 'quota-bonus' && row.status === 'pending',
    );
    assert.ok(bonusRow);
    const trace = (await client.earnings.get(bonusRow.id)).trace;
    const threshold = trace.steps.find((step) => step.type === 'threshold');
    assert.ok(threshold?.type === 'threshold');
    assert.equal(threshold.attained_cents, 11_000_000);
    assert.deepEqual(threshold.counted_adjustments, [
      { id: adjustment.id, period_id: '2026-04', amount_cents: 3_000_000, currency: 'USD', counted_cents: 3_000_000 },
    ]);
    assert.equal(trace.superseded, null);

    const statement = await client.statements.get(adjustment.user_id, '2026-04');
    const attainment = statement.plans[0]?.attainment;
    assert.equal(attainment?.won_cents, 11_000_000);
    assert.equal(attainment?.adjustments_cents, 3_000_000);
    const v1 = (await client.adjustments.listPage({ period_id: '2026-04' })).adjustments;
    assert.deepEqual(
      v1.map((each) => each.counts_toward_attainment),
      [false, true],
    );

    // A later deal of the period is counted after the adjustment: all of it above quota at 5%.
    await client.deals.ingestEvent({
      external_id: 'opp-b',
      state: state(2_000_000, 'closed_won', '2026-04-20', { region: 'EMEA' }),
    });
    assert.deepEqual(await earned(), { accelerator: 150_000, bonus: 200_000 });
    // What the deal event wrote is what a full recompute puts there: it changes nothing.
    const liveRows = async () =>
      (await listAll(client, { status: ['projected', 'pending'] }))
        .map((row) => `${row.id} ${row.amount_cents} ${row.period_id}`)
        .sort();
    const afterEvent = await liveRows();
    await testServices({ db: testDatabase() }).admin.recompute.run({ orgId: org.id });
    assert.deepEqual(await liveRows(), afterEvent, 'a full recompute changes nothing');

    // Locked, then voided into May: April no longer counts it, and the difference is booked in May.
    await periodAdmin().lock(org.id, '2026-04');
    const voided = await admin.api.POST('/admin/v1/adjustments/{id}/void', {
      params: { path: { id: adjustment.id } },
      body: { reason: 'The Acme deal was moved to rep-017 after all', period_id: '2026-05' },
    });
    assert.equal(voided.response.status, 201);
    assert.equal(voided.data?.adjustment.counts_toward_attainment, true);
    const may = await listAll(client, { period_id: '2026-05' });
    const mayBy = (key: string) =>
      may.filter((row) => chipOf(row) === key && row.status === 'pending').reduce((t, row) => t + row.amount_cents, 0);
    // Without the credit April's total is 100,000.00: exactly quota, so the bonus stays and nothing is above quota:
    // the 1,500.00 the accelerator earned is taken back in May.
    assert.equal(mayBy('quota-bonus'), 0);
    assert.equal(mayBy('accelerator'), -150_000);
    const april = await client.statements.get(adjustment.user_id, '2026-04');
    assert.equal(april.plans[0]?.attainment.adjustments_cents, undefined);
    assert.equal(april.plans[0]?.attainment.won_cents, 10_000_000);

    // The CLI's flag: May's 20,000.00 is counted toward May's attainment.
    const cli = await cliJson<{ adjustment: { counts_toward_attainment: boolean; period_id: string } }>([
      'adjustments',
      'add',
      '--org',
      org.id,
      '--rep',
      'rep-017',
      '--period',
      '2026-05',
      '--amount-cents',
      '2000000',
      '--category',
      'correction',
      '--reason',
      'May credit',
      '--counts-toward-attainment',
      '--json',
    ]);
    assert.deepEqual(cli.adjustment.counts_toward_attainment, true);
    const mayStatement = await client.statements.get(adjustment.user_id, '2026-05');
    assert.equal(mayStatement.plans[0]?.attainment.adjustments_cents, 2_000_000);
  });

  test('a CSV file is applied whole; sent again it changes nothing; a bad row is reported by line and nothing of its file is applied', async ({
    org,
    client,
    signedIn,
  }) => {
    await client.deals.ingestEvent({ external_id: 'opp-a', state: state(1_000_000, 'open', '2026-04-10') });
    await client.deals.ingestEvent({
      external_id: 'opp-b',
      state: { ...state(1_000_000, 'open', '2026-04-10'), owner_external_id: 'rep-021' },
    });
    const { client: admin } = await signedIn('admin', org.id);
    const good = [
      HEADER,
      'k-1,rep-017,2026-04,25000,USD,one_off_bonus,April SPIFF,',
      'k-2,rep-021,2026-04,-5000,,correction,"Overpaid in March, corrected",opp-b',
    ].join('\n');
    const first = await admin.api.POST('/admin/v1/adjustment-imports', { body: { text: good } });
    assert.deepEqual(first.data, { dry_run: false, applied: true, rows: 2, created: 2, unchanged: 0, refusals: [] });
    const second = await admin.api.POST('/admin/v1/adjustment-imports', { body: { text: good } });
    assert.deepEqual(second.data, { dry_run: false, applied: true, rows: 2, created: 0, unchanged: 2, refusals: [] });
    assert.equal(await adjustmentCount(org.id), 2);

    const bad = [
      HEADER,
      'k-3,rep-017,2026-04,1000,USD,one_off_bonus,fine,',
      'k-4,rep-017,2026-04,12.50,USD,one_off_bonus,cents?,',
      'k-5,rep-404,2026-04,1000,USD,one_off_bonus,who?,',
      'k-1,rep-017,2026-04,99999,USD,one_off_bonus,April SPIFF,',
      'k-3,rep-017,2026-04,1000,USD,one_off_bonus,fine,',
    ].join('\n');
    const refused = await admin.api.POST('/admin/v1/adjustment-imports', { body: { text: bad } });
    assert.deepEqual(refused.data, {
      dry_run: false,
      applied: false,
      rows: 5,
      created: 1,
      unchanged: 0,
      refusals: [
        { line: 3, reason: 'amount_cents: "12.50" is not a whole number of cents' },
        { line: 4, reason: 'no rep with external id rep-404' },
        { line: 5, reason: `idempotency_key: k-1 already added another adjustment (${await idOfKey(org.id, 'k-1')})` },
        { line: 6, reason: 'idempotency_key: k-3 is used on line 2 too' },
      ],
    });
    assert.equal(await adjustmentCount(org.id), 2);

    const header = await admin.api.POST('/admin/v1/adjustment-imports', { body: { text: 'key,amount\nx,1\n' } });
    assert.equal(header.response.status, 400);
    assert.equal(header.error?.error, 'invalid_body');

    // The CLI reads the same files through the same service.
    const file = await csvFile(`${HEADER}\nk-6,rep-017,2026-04,7000,USD,guarantee,Ramp guarantee,\n`);
    const cli = await cliJson<{ applied: boolean; created: number }>(['adjustments', 'import', file, '--org', org.id]);
    assert.deepEqual([cli.applied, cli.created], [true, 1]);
    const cliAgain = await cliJson<{ created: number; unchanged: number }>([
      'adjustments',
      'import',
      file,
      '--org',
      org.id,
    ]);
    assert.deepEqual([cliAgain.created, cliAgain.unchanged], [0, 1]);
    const badFile = await csvFile(`${HEADER}\nk-7,rep-017,2026-04,-1,USD,guarantee,negative,\n`);
    const cliBad = await runCli(['adjustments', 'import', badFile, '--org', org.id, '--json']);
    assert.equal(cliBad.code, 2);
    assert.deepEqual((onlyJson(cliBad) as { refusals: unknown[] }).refusals, [
      { line: 2, reason: 'amount_cents: a guarantee adds to pay and must be positive (a correction may be negative)' },
    ]);
    assert.equal(await adjustmentCount(org.id), 3);

    const added = await cliJson<{ adjustment: { created_by: { type: string } } }>([
      'adjustments',
      'add',
      '--org',
      org.id,
      '--rep',
      'rep-021',
      '--period',
      '2026-04',
      '--amount-cents',
      '-300',
      '--category',
      'deduction',
      '--reason',
      'Parking',
    ]);
    assert.equal(added.adjustment.created_by.type, 'cli');
  });

  test('over random histories, some adjustments counting toward attainment: statement payable = rows + adjustments = payout = the CSV line, and a full recompute changes nothing', {
    timeout: 180_000,
  }, async ({ newOrg }) => {
    // Each run is a fresh org through the real API; a few runs keep the file's cost within an integration test.
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            amount: fc.integer({ min: 1, max: 50 }).map((n) => n * 100_000),
            stage: fc.constantFrom('closed_won', 'open', 'closed_lost'),
            day: fc.integer({ min: 1, max: 28 }),
            rep: fc.constantFrom('rep-1', 'rep-2'),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        fc.array(
          fc.record({
            rep: fc.constantFrom('rep-1', 'rep-2'),
            amount: fc.integer({ min: -100_000, max: 100_000 }).filter((n) => n !== 0),
            voidIt: fc.boolean(),
            // Counted amounts are scaled up to ±50,000.00, enough to cross the quota of 100,000.00.
            counts: fc.boolean(),
          }),
          { maxLength: 4 },
        ),
        async (dealEvents, manual) => {
          const { org, client } = await newOrg();
          await applyPlan(testDatabase(), org.id, planDocument());
          for (const [index, event] of dealEvents.entries()) {
            await client.deals.ingestEvent({
              external_id: `opp-${index % 3}`,
              state: {
                ...state(event.amount, event.stage, `2026-04-${String(event.day).padStart(2, '0')}`, { region: 'NA' }),
                owner_external_id: event.rep,
              },
            });
          }
          const services = testServices({ db: testDatabase() }).admin;
          for (const each of manual) {
            const known = await testDatabase().user.findFirst({ where: { org_id: org.id, external_id: each.rep } });
            if (!known) continue;
            const written = await services.adjustments.create(org.id, {
              user_external_id: each.rep,
              period_id: '2026-04',
              amount_cents: each.counts ? each.amount * 50 : each.amount,
              category: 'correction',
              reason: 'random',
              counts_toward_attainment: each.counts,
            });
            if (each.voidIt) await services.adjustments.void(org.id, written.adjustment.id, { reason: 'undo' });
          }
          // Deal events after the adjustments: those of a period holding a counting one are evaluated with it.
          for (const [index, event] of dealEvents.slice(0, 2).entries()) {
            await client.deals.ingestEvent({
              external_id: `opp-late-${index}`,
              state: {
                ...state(event.amount, 'closed_won', `2026-04-${String(29 - event.day).padStart(2, '0')}`, {
                  region: 'NA',
                }),
                owner_external_id: event.rep,
              },
            });
          }
          const live = async () =>
            (await listAll(client, { status: ['projected', 'pending'] }))
              .map((row) => `${row.id} ${row.amount_cents}`)
              .sort();
          const incremental = await live();
          await services.recompute.run({ orgId: org.id });
          assert.deepEqual(await live(), incremental, 'a full recompute changes nothing');
          await services.periods.lock(org.id, '2026-04');
          await assertLedgerAgrees(client, org.id);
        },
      ),
      { numRuns: 4, seed: 24 },
    );
  });
});

async function idOfKey(orgId: string, key: string): Promise<string | undefined> {
  return (await testDatabase().adjustment.findFirst({ where: { org_id: orgId, idempotency_key: key } }))?.id;
}

async function assertLedgerAgrees(client: QuotientClient, orgId: string): Promise<void> {
  const payouts = (await client.payouts.listPage({ period_id: '2026-04' })).payouts;
  const csv = await runCli(['periods', 'export', '2026-04', '--org', orgId]);
  assert.equal(csv.code, 0, csv.stderr);
  const [header = '', ...lines] = csv.stdout.trimEnd().split('\r\n');
  const totalColumn = header.split(',').indexOf('total_cents');
  const users = await testDatabase().user.findMany({ where: { org_id: orgId } });
  for (const user of users) {
    const statement = await client.statements.get(user.id, '2026-04');
    const rows = await listAll(client, { user_id: user.id, period_id: '2026-04' });
    const rowSum = rows
      .filter((row) => ['pending', 'approved', 'paid'].includes(row.status))
      .reduce((sum, row) => sum + row.amount_cents, 0);
    const adjustments = [];
    for await (const each of client.adjustments.list({ user_id: user.id, period_id: '2026-04' }))
      adjustments.push(each);
    const adjustmentSum = adjustments.reduce((sum, each) => sum + each.amount_cents, 0);
    assert.equal(statement.payable_cents, rowSum + adjustmentSum);
    const payout = payouts.find((each) => each.user_id === user.id);
    assert.equal(payout?.total_cents ?? 0, statement.payable_cents);
    assert.equal(payout?.adjustment_cents ?? 0, adjustmentSum);
    const line = lines.find((each) => each.startsWith(`${user.id},`));
    assert.equal(Number(line?.split(',')[totalColumn] ?? 0), statement.payable_cents);
  }
}
