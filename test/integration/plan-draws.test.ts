import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { Payout } from '../../sdk/src/index.ts';
import { externalId } from '../factories/deals.ts';
import { planDocument, planFile } from '../factories/plans.ts';
import { cliJson as cli } from '../helpers/cli.ts';
import { test } from '../helpers/fixtures.ts';

// Draws and floors (docs/plan-features.md) end to end: plans applied and periods locked with the CLI,
// deal events, statements and payouts through the SDK against the real server, which validates its own
// responses against the contract.

const won = (external: string, owner: string, amountCents: number, closeDate: string) => ({
  external_id: external,
  state: { amount_cents: amountCents, stage: 'closed_won', close_date: closeDate, owner_external_id: owner },
});

describe('draws', () => {
  test('a recoverable draw is advanced at the lock, carried on the statement and recovered the next month', async ({
    org,
    client,
  }) => {
    const rep = `rep-${externalId()}`;
    const idle = `rep-${externalId()}`;
    const applied = await cli<{ plan_id: string }>([
      'plans',
      'apply',
      await planFile(
        planDocument({
          quota_cents: null,
          draw: { amount_cents: 300_000, recoverable: true },
          chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }],
        }),
      ),
      '--org',
      org.id,
    ]);
    const plan = await client.plans.get(applied.plan_id);
    assert.deepEqual([plan.cap_cents, plan.draw], [null, { amount_cents: 300_000, recoverable: true }]);

    // April: the rep earns 1,000.00; the other rep has no April deal at all (only a May one).
    await client.deals.ingestEvent(won(externalId(), rep, 1_000_000, '2026-04-10'));
    await client.deals.ingestEvent(won(externalId(), idle, 4_000_000, '2026-05-20'));
    await cli(['periods', 'lock', '2026-04', '--org', org.id]);

    const user = await client.users.findByExternalId(rep);
    const idleUser = await client.users.findByExternalId(idle);
    assert.ok(user && idleUser);
    const april = await client.statements.get(user.id, '2026-04');
    assert.deepEqual(april.plans[0]?.draw, {
      amount_cents: 300_000,
      recoverable: true,
      opening_balance_cents: 0,
      advance_cents: 200_000,
      recovery_cents: 0,
      closing_balance_cents: 200_000,
    });
    assert.deepEqual(
      april.plans[0]?.lines.map((line) => [line.chip_kind, line.amount_cents, line.status]),
      [
        ['commission', 100_000, 'approved'],
        ['draw', 200_000, 'approved'],
      ],
    );
    assert.equal(
      april.plans[0]?.lines[1]?.explanation,
      'Draw for 2026-04: the draw of 3,000.00 less 1,000.00 earned = 2,000.00.',
    );
    assert.equal(april.payable_cents, 300_000);
    const payouts = new Map<string, Payout>();
    for await (const payout of client.payouts.list({ period_id: '2026-04' }))
      payouts.set(payout.user_external_id, payout);
    // Payroll sees the draw apart from what the rep earned: 3,000.00 in all, of which 2,000.00 is the draw.
    assert.deepEqual(
      [payouts.get(rep)?.total_cents, payouts.get(rep)?.draw_cents, payouts.get(rep)?.clawback_cents],
      [300_000, 200_000, 0],
    );
    assert.deepEqual(
      [payouts.get(idle)?.total_cents, payouts.get(idle)?.draw_cents],
      [300_000, 300_000],
      'a rep without deals gets the whole draw',
    );

    // May: 4,000.00 earned, 1,000.00 above the draw recovers 1,000.00 of the 2,000.00 advanced.
    await client.deals.ingestEvent(won(externalId(), rep, 4_000_000, '2026-05-12'));
    await cli(['periods', 'lock', '2026-05', '--org', org.id]);
    const may = await client.statements.get(user.id, '2026-05');
    assert.deepEqual(may.plans[0]?.draw, {
      amount_cents: 300_000,
      recoverable: true,
      opening_balance_cents: 200_000,
      advance_cents: 0,
      recovery_cents: 100_000,
      closing_balance_cents: 100_000,
    });
    assert.equal(may.payable_cents, 300_000);
    // The recovery (−1,000.00) is the draw's, not a clawback: 4,000.00 earned, 3,000.00 paid.
    const mayPayouts = [];
    for await (const payout of client.payouts.list({ period_id: '2026-05' }))
      if (payout.user_external_id === rep) mayPayouts.push(payout);
    assert.deepEqual(
      mayPayouts.map((payout) => [payout.total_cents, payout.draw_cents, payout.clawback_cents]),
      [[300_000, -100_000, 0]],
    );
    const recovery = may.plans[0]?.lines.find((line) => line.chip_kind === 'draw_recovery');
    const earning = await client.earnings.get(recovery?.earning_id as string);
    assert.deepEqual(earning.trace?.steps[0], {
      type: 'draw',
      draw_cents: 300_000,
      covered_days: 31,
      period_days: 31,
      period_draw_cents: 300_000,
      recoverable: true,
      earned_cents: 400_000,
      opening_balance_cents: 200_000,
      advance_cents: 0,
      recovery_cents: 100_000,
      closing_balance_cents: 100_000,
    });
  });

  test("a draw paid in advance: the lock books the next month's advance, whose lock repays it from earnings", async ({
    org,
    client,
  }) => {
    const rep = `rep-${externalId()}`;
    const applied = await cli<{ plan_id: string }>([
      'plans',
      'apply',
      await planFile(
        planDocument({
          quota_cents: null,
          draw: { amount_cents: 300_000, recoverable: true, paid: 'in_advance' },
          chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }],
        }),
      ),
      '--org',
      org.id,
    ]);
    const plan = await client.plans.get(applied.plan_id);
    assert.deepEqual(plan.draw, { amount_cents: 300_000, recoverable: true, paid: 'in_advance' });
    await client.deals.ingestEvent(won(externalId(), rep, 1_000_000, '2026-04-10'));
    await cli(['periods', 'lock', '2026-04', '--org', org.id]);
    const user = await client.users.findByExternalId(rep);
    assert.ok(user);
    // April: the whole 3,000.00 advanced, its 1,000.00 earned repays 1,000.00 of it; 2,000.00 carried.
    const april = await client.statements.get(user.id, '2026-04');
    assert.deepEqual(
      april.plans[0]?.lines.map((line) => [line.chip_kind, line.amount_cents, line.status]),
      [
        ['commission', 100_000, 'approved'],
        ['draw', 300_000, 'approved'],
        ['draw_recovery', -100_000, 'approved'],
      ],
    );
    assert.equal(april.plans[0]?.draw?.closing_balance_cents, 200_000);
    assert.equal(april.payable_cents, 300_000);
    // May's advance stands on May's statement from April's lock, before May earns anything.
    const mayOpen = await client.statements.get(user.id, '2026-05');
    assert.deepEqual(
      mayOpen.plans[0]?.lines.map((line) => [line.chip_kind, line.amount_cents, line.status]),
      [['draw', 300_000, 'pending']],
    );
    await client.deals.ingestEvent(won(externalId(), rep, 4_000_000, '2026-05-12'));
    await cli(['periods', 'lock', '2026-05', '--org', org.id]);
    const may = await client.statements.get(user.id, '2026-05');
    assert.deepEqual(may.plans[0]?.draw, {
      amount_cents: 300_000,
      recoverable: true,
      opening_balance_cents: 200_000,
      advance_cents: 300_000,
      recovery_cents: 400_000,
      closing_balance_cents: 100_000,
    });
    // The same 3,000.00 as the draw paid at the lock, of which −1,000.00 is the draw's.
    const mayPayouts = [];
    for await (const payout of client.payouts.list({ period_id: '2026-05' }))
      if (payout.user_external_id === rep) mayPayouts.push(payout);
    assert.deepEqual(
      mayPayouts.map((payout) => [payout.total_cents, payout.draw_cents, payout.clawback_cents]),
      [[300_000, -100_000, 0]],
    );
    const settlement = may.plans[0]?.lines.find((line) => line.chip_kind === 'draw_recovery');
    const earning = await client.earnings.get(settlement?.earning_id as string);
    assert.deepEqual(earning.trace?.steps[0], {
      type: 'draw_settlement',
      draw_cents: 300_000,
      advance_cents: 300_000,
      recoverable: true,
      earned_cents: 400_000,
      offset_cents: 300_000,
      opening_balance_cents: 200_000,
      recovery_cents: 100_000,
      closing_balance_cents: 100_000,
      net_cents: 300_000,
    });
  });

  test("a late deal of a locked period takes back that period's advance in the next open period", async ({
    org,
    client,
  }) => {
    const rep = `rep-${externalId()}`;
    await cli([
      'plans',
      'apply',
      await planFile(
        planDocument({
          quota_cents: null,
          draw: { amount_cents: 300_000, recoverable: false },
          chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }],
        }),
      ),
      '--org',
      org.id,
    ]);
    await client.deals.ingestEvent(won(externalId(), rep, 1_000_000, '2026-04-10'));
    await cli(['periods', 'lock', '2026-04', '--org', org.id]);
    await client.deals.ingestEvent(won(externalId(), rep, 1_500_000, '2026-04-28'));
    const user = await client.users.findByExternalId(rep);
    const may = await client.statements.get(user?.id as string, '2026-05');
    assert.deepEqual(
      may.plans[0]?.adjustments.map((row) => [row.chip_kind, row.amount_cents, row.from_period_id]),
      [
        ['commission', 150_000, '2026-04'],
        ['draw', -150_000, '2026-04'],
      ],
    );
    assert.deepEqual(may.plans[0]?.draw, {
      amount_cents: 300_000,
      recoverable: false,
      opening_balance_cents: 0,
      advance_cents: -150_000,
      recovery_cents: 0,
      closing_balance_cents: 0,
    });
    assert.equal(may.payable_cents, 0);
  });
});

describe('floors', () => {
  test("a chip's floor tops up its last line of the period, shown in the trace", async ({ org, client }) => {
    const rep = `rep-${externalId()}`;
    await cli([
      'plans',
      'apply',
      await planFile(
        planDocument({
          quota_cents: null,
          chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000, floor_cents: 100_000 }],
        }),
      ),
      '--org',
      org.id,
    ]);
    await client.deals.ingestEvent(won(externalId(), rep, 300_000, '2026-04-05'));
    const second = await client.deals.ingestEvent(won(externalId(), rep, 100_000, '2026-04-15'));
    const rows = [];
    for await (const row of client.earnings.list({ period_id: '2026-04', status: ['pending'] })) rows.push(row);
    // 300.00 + 100.00 earned, below the 1,000.00 floor: the later deal's line is topped up by 600.00.
    assert.deepEqual(
      rows.map((row) => [row.deal_id === second.deal_id, row.amount_cents]),
      [
        [false, 30_000],
        [true, 70_000],
      ],
    );
    const trace = (await client.earnings.get(rows[1]?.id as string)).trace;
    assert.deepEqual(
      trace?.steps.find((step) => step.type === 'floor'),
      {
        type: 'floor',
        floor_cents: 100_000,
        period_total_cents: 40_000,
        unfloored_cents: 10_000,
        amount_cents: 70_000,
      },
    );
  });
});

// Kept in this file to share its server: the plan year paid monthly (docs/plan-features.md) end to end.
describe('a plan year paid monthly', () => {
  test("the API shows plan_year; a month's tiers count the year to date; a late loss moves the later months", async ({
    org,
    client,
  }) => {
    const rep = `rep-${externalId()}`;
    const applied = await cli<{ plan_id: string }>([
      'plans',
      'apply',
      await planFile(
        planDocument({
          quota_cents: 120_000_000,
          plan_year: { starts_month: 1 },
          chips: [
            {
              key: 'year-tiers',
              name: 'Year to date tiers',
              kind: 'tiered_commission',
              mode: 'marginal',
              tiers: [
                { up_to_pct: 100, rate_bps: 500 },
                { up_to_pct: null, rate_bps: 1000 },
              ],
            },
          ],
        }),
      ),
      '--org',
      org.id,
    ]);
    const plan = await client.plans.get(applied.plan_id);
    assert.deepEqual(plan.plan_year, { starts_month: 1 });
    const first = externalId();
    await client.deals.ingestEvent(won(first, rep, 30_000_000, '2026-01-10'));
    await cli(['periods', 'lock', '2026-01', '--org', org.id]);
    await client.deals.ingestEvent(won(externalId(), rep, 140_000_000, '2026-03-10'));
    const user = await client.users.findByExternalId(rep);
    assert.ok(user);
    // March counts from January's 300,000.00: 900,000.00 × 5% + 500,000.00 × 10% = 95,000.00.
    const march = await client.statements.get(user.id, '2026-03');
    const line = march.plans[0]?.lines.find((each) => each.chip_kind === 'tiered_commission');
    assert.equal(line?.amount_cents, 9_500_000);
    const earning = await client.earnings.get(line?.earning_id as string);
    const steps = earning.trace?.steps ?? [];
    assert.deepEqual(
      steps.find((step) => step.type === 'plan_year'),
      {
        type: 'plan_year',
        starts_on: '2026-01-01',
        ends_on: '2026-12-31',
        through_period_id: '2026-03',
        annual_quota_cents: 120_000_000,
        year_days: 365,
        quotas: [{ from: '2026-01-01', quota_cents: 120_000_000, days: 365 }],
      },
    );
    const cumulative = steps.find((step) => step.type === 'cumulative');
    assert.deepEqual(
      cumulative?.type === 'cumulative' && [cumulative.prior_won_cents, cumulative.period_won_cents],
      [30_000_000, 170_000_000],
    );
    // January's deal is lost after January was locked: March's line, now counted from zero, is 1,200,000.00 × 5% +
    // 200,000.00 × 10% = 80,000.00.
    await client.deals.ingestEvent({
      external_id: first,
      state: { amount_cents: 30_000_000, stage: 'closed_lost', close_date: '2026-01-10', owner_external_id: rep },
    });
    const after = await client.statements.get(user.id, '2026-03');
    assert.deepEqual(
      after.plans[0]?.lines.map((each) => [each.chip_kind, each.amount_cents]),
      [['tiered_commission', 8_000_000]],
    );
  });
});
