import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { QuotientClient, Statement } from '../../sdk/src/index.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { listAll, state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// Statements and payouts through the SDK against the real server (which validates its responses against the
// contract), periods locked and paid through the admin service, the payroll export through the CLI. Every
// number is checked against the earnings rows the API lists.

const STATUSES = ['projected', 'pending', 'approved', 'paid'] as const;

function periodAdmin() {
  const db = testDatabase();
  return testServices({ db }).admin.periods;
}

function sum(rows: readonly { amount_cents: number }[]): number {
  return rows.reduce((total, row) => total + row.amount_cents, 0);
}

/** Every total of the statement equals the sum of the rows the earnings list gives for it, status by status. */
async function assertStatementEqualsLedger(client: QuotientClient, statement: Statement) {
  const rows = await listAll(client, { user_id: statement.user.id, period_id: statement.period.id });
  for (const status of STATUSES) {
    const ofStatus = rows.filter((row) => row.status === status);
    assert.equal(statement.totals[`${status}_cents`], sum(ofStatus), `${status} total`);
    for (const plan of statement.plans) {
      const shown = [...plan.lines, ...plan.adjustments].filter((line) => line.status === status);
      assert.equal(plan.totals[`${status}_cents`], sum(shown), `${plan.plan_key} ${status} total`);
      assert.deepEqual(
        shown.map((line) => line.earning_id).sort(),
        ofStatus
          .filter((row) => row.plan_id === plan.plan_id)
          .map((row) => row.id)
          .sort(),
      );
    }
  }
  const live = rows.filter((row) => (STATUSES as readonly string[]).includes(row.status));
  assert.equal(statement.plans.flatMap((plan) => [...plan.lines, ...plan.adjustments]).length, live.length);
  assert.equal(
    statement.payable_cents,
    statement.totals.pending_cents + statement.totals.approved_cents + statement.totals.paid_cents,
  );
}

/** product.md's worked example for rep-017 in April, plus an open deal; April locked, then deal A reopened. */
async function aprilLockedThenReopened(orgId: string, client: QuotientClient) {
  const plan = await applyPlan(testDatabase(), orgId, planDocument());
  const a = await client.deals.ingestEvent({
    external_id: 'opp-a',
    state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
  });
  await client.deals.ingestEvent({
    external_id: 'opp-b',
    state: state(5_000_000, 'closed_won', '2026-04-20', { region: 'NA', new_logo: true }),
  });
  await client.deals.ingestEvent({
    external_id: 'opp-c',
    state: state(2_000_000, 'proposal', '2026-04-25', { region: 'NA' }),
  });
  await periodAdmin().lock(orgId, '2026-04');
  await client.deals.ingestEvent({
    external_id: 'opp-a',
    state: state(6_000_000, 'proposal', '2026-04-10', { region: 'EMEA' }),
  });
  await client.deals.ingestEvent({
    external_id: 'opp-d',
    state: state(4_000_000, 'closed_won', '2026-05-05', { region: 'EMEA' }),
  });
  const rep = await client.users.findByExternalId('rep-017');
  assert.ok(rep);
  return { plan, rep, dealA: a.deal_id };
}

describe('GET /v1/users/{id}/statements/{period_id}', () => {
  test('totals equal the rows in every status, with a clawback booked after the lock', async ({ org, client }) => {
    const { plan, rep, dealA } = await aprilLockedThenReopened(org.id, client);

    const april = await client.statements.get(rep.id, '2026-04');
    assert.equal(april.period.status, 'locked');
    assert.equal(april.plans.length, 1);
    const [aprilPlan] = april.plans;
    assert.equal(aprilPlan?.plan_id, plan.plan_id);
    assert.deepEqual(aprilPlan?.attainment, {
      won_cents: 5_000_000,
      quota_cents: 10_000_000,
      percent: 50,
      quota_explanation: 'quota 100,000.00: plan quota.',
    });
    assert.deepEqual(april.totals, {
      // Deal C's base, and reopened deal A projected again in April: base, and accelerator as if won after B.
      projected_cents: 200_000 + 600_000 + 50_000,
      pending_cents: 0,
      approved_cents: 600_000 + 500_000 + 50_000 + 50_000 + 200_000,
      paid_cents: 0,
    });
    assert.deepEqual(aprilPlan?.adjustments, []);
    const baseA = aprilPlan?.lines.find((line) => line.deal_id === dealA && line.chip_key === 'base');
    assert.equal(baseA?.explanation, 'Base commission on deal opp-a: 10.00% of 60,000.00 = 6,000.00.');
    await assertStatementEqualsLedger(client, april);

    const may = await client.statements.get(rep.id, '2026-05');
    assert.equal(may.period.status, 'open');
    const [mayPlan] = may.plans;
    assert.deepEqual(mayPlan?.attainment, {
      won_cents: 4_000_000,
      quota_cents: 10_000_000,
      percent: 40,
      quota_explanation: 'quota 100,000.00: plan quota.',
    });
    assert.deepEqual(
      mayPlan?.lines.map((line) => [line.chip_key, line.deal_external_id, line.status, line.amount_cents]),
      [['base', 'opp-d', 'pending', 400_000]],
    );
    assert.deepEqual(
      mayPlan?.adjustments.map((line) => [line.chip_key, line.kind, line.from_period_id, line.amount_cents]),
      [
        ['base', 'clawback', '2026-04', -600_000],
        ['accelerator', 'clawback', '2026-04', -50_000],
        ['quota-bonus', 'clawback', '2026-04', -200_000],
      ],
    );
    const clawbackA = mayPlan?.adjustments[0];
    assert.equal(
      clawbackA?.reason,
      'Deal opp-a is open, so the line earns 0.00 now against 6,000.00 already approved or paid for 2026-04, which was locked: -6,000.00 is clawed back here.',
    );
    assert.equal(may.payable_cents, 400_000 - 600_000 - 50_000 - 200_000);
    await assertStatementEqualsLedger(client, may);

    await periodAdmin().lock(org.id, '2026-05');
    await periodAdmin().markPaid(org.id, '2026-04');
    for (const periodId of ['2026-04', '2026-05']) {
      const statement = await client.statements.get(rep.id, periodId);
      await assertStatementEqualsLedger(client, statement);
    }
    const paid = await client.statements.get(rep.id, '2026-04');
    assert.equal(paid.totals.paid_cents, 1_400_000);
    assert.equal(paid.totals.approved_cents, 0);
  });

  test('a period with nothing booked is an empty open statement; an unknown user is 404', async ({
    db,
    org,
    client,
  }) => {
    const applied = await applyPlan(db, org.id, planDocument());
    await client.deals.ingestEvent({ external_id: 'opp-1', state: state(1_000, 'proposal', '2026-04-10') });
    const rep = await client.users.findByExternalId('rep-017');
    const statement = await client.statements.get(rep?.id as string, '2030-01');
    assert.deepEqual(statement.period, {
      id: '2030-01',
      kind: 'monthly',
      starts_on: '2030-01-01',
      ends_on: '2030-01-31',
      status: 'open',
    });
    assert.deepEqual(
      statement.plans.map((plan) => [plan.plan_id, plan.lines.length, plan.payable_cents]),
      [[applied.plan_id, 0, 0]],
    );
    assert.equal(statement.payable_cents, 0);
    await assert.rejects(client.statements.get('user_01knvyqwr3fmtr77g6vdncr588', '2026-04'), {
      status: 404,
      body: { error: 'not_found', reason: 'no user user_01knvyqwr3fmtr77g6vdncr588' },
    });
    await assert.rejects(
      client.statements.get(rep?.id as string, '2026-13'),
      (error: { status: number; body: { reason: string } }) => {
        assert.equal(error.status, 400);
        assert.match(error.body.reason, /period_id/);
        return true;
      },
    );
  });
});

describe('GET /v1/payouts and quotient periods export', () => {
  test('per rep, equal to each other and to the sum of the approved and paid rows, clawbacks net; the console’s payroll file is the CLI’s', async ({
    org,
    client,
    signedIn,
  }) => {
    await aprilLockedThenReopened(org.id, client);
    await client.deals.ingestEvent({
      external_id: 'opp-x',
      state: { ...state(3_000_000, 'closed_won', '2026-05-12', { region: 'NA' }), owner_external_id: 'rep-021' },
    });
    const { client: admin } = await signedIn('admin', org.id);
    const payrollFile = (periodId: string) =>
      admin.api.GET('/admin/v1/periods/{id}/payroll-export', { params: { path: { id: periodId } }, parseAs: 'text' });
    const refused = await payrollFile('2026-05');
    assert.equal(refused.response.status, 409);
    assert.equal(refused.error?.error, 'invalid_state');
    assert.match(refused.error?.reason ?? '', /^period 2026-05 is open; lock it first/);
    await assert.rejects(client.payouts.listPage({ period_id: '2026-05' }), {
      status: 409,
      body: { error: 'period_open', reason: 'period 2026-05 is open: payouts exist once an admin has locked it' },
    });
    await assert.rejects(client.payouts.listPage({ period_id: '2031-01' }), { status: 404 });
    await periodAdmin().lock(org.id, '2026-05');

    const payouts = [];
    for await (const payout of client.payouts.list({ period_id: '2026-05', limit: 1 })) payouts.push(payout);
    assert.deepEqual(
      payouts.map((payout) => [
        payout.user_external_id,
        payout.approved_cents,
        payout.clawback_cents,
        payout.draw_cents,
        payout.total_cents,
      ]),
      [
        ['rep-017', 400_000 - 850_000, -850_000, 0, -450_000],
        ['rep-021', 300_000, 0, 0, 300_000],
      ],
    );
    for (const payout of payouts) {
      const approved = await listAll(client, { user_id: payout.user_id, period_id: '2026-05', status: ['approved'] });
      const paid = await listAll(client, { user_id: payout.user_id, period_id: '2026-05', status: ['paid'] });
      assert.equal(payout.approved_cents, sum(approved));
      assert.equal(payout.paid_cents, sum(paid));
    }
    const page = await client.payouts.listPage({ period_id: '2026-05' });
    assert.equal(page.period.status, 'locked');
    assert.deepEqual(page.payouts, payouts);

    const json = await runCli(['periods', 'export', '2026-05', '--org', org.id, '--format', 'json']);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(onlyJson(json), { period: page.period, payouts });
    const csv = await runCli(['periods', 'export', '2026-05', '--org', org.id]);
    assert.equal(csv.code, 0, csv.stderr);
    assert.deepEqual(csv.stdout.trimEnd().split('\r\n'), [
      'user_id,user_external_id,currency,approved_cents,paid_cents,clawback_cents,draw_cents,adjustment_cents,total_cents,held_pending_acceptance_cents',
      ...payouts.map((p) =>
        [
          p.user_id,
          p.user_external_id,
          p.currency,
          p.approved_cents,
          p.paid_cents,
          p.clawback_cents,
          p.draw_cents,
          p.adjustment_cents,
          p.total_cents,
          p.held_pending_acceptance_cents,
        ].join(','),
      ),
    ]);
    const open = await runCli(['periods', 'export', '2026-06', '--org', org.id, '--json']);
    assert.equal(open.code, 2);
    assert.equal((onlyJson(open) as { error: string }).error, 'not_found');

    // The admin API's file (the console's Payroll CSV link) is the CLI's, as an attachment.
    const file = await payrollFile('2026-05');
    assert.equal(file.response.status, 200);
    assert.match(file.response.headers.get('content-type') ?? '', /^text\/csv/);
    assert.equal(file.response.headers.get('content-disposition'), 'attachment; filename="payroll-2026-05.csv"');
    assert.equal(file.data, csv.stdout);
    assert.equal((await payrollFile('2026-06')).response.status, 404);
    assert.equal((await payrollFile('2026-5')).response.status, 400);
  });
});
