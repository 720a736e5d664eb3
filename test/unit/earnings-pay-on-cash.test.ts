import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { cashSums, cashTermProblems, releasedBy } from '../../src/domain/earnings/cashTerms.ts';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { DealSnapshot, EngineChip, EnginePlanVersion, LineTarget } from '../../src/domain/earnings/types.ts';
import { readPlanFile } from '../../src/domain/plans/planFile.ts';
import { chip, deal, plan, rep } from '../factories/earnings.ts';
import { EarningsWorld } from '../helpers/earningsLedger.ts';
import { tableRows, workedExamples } from '../helpers/workedExamples.ts';

// Pay on cash (docs/plan-features.md, "Pay on cash"): the worked example of the docs, computed by the engine, then
// booked through the ledger with locks, payments and a clawback.

const TODAY = '2026-06-20';
const PERIODS = ['2026-04', '2026-05', '2026-06', '2026-07'];

function cashPlan(cash: Record<string, unknown>): EnginePlanVersion {
  const commission: EngineChip = chip(1, {
    key: 'base',
    name: 'Base commission',
    kind: 'commission',
    when: null,
    params: { rate_bps: 1000, base: 'amount_cents', payable_on: 'cash', cash },
  });
  return plan({ plan_key: 'cash', quota_cents: null, chips: [commission] });
}

const proRata = cashPlan({ held_pct: 40, release: 'pro_rata' });

function payment(n: number, amount_cents: number, received_on: string) {
  return { id: `pay_${n}`, external_id: `inv-${n}`, amount_cents, received_on };
}

// opp-1: 50,000.00 won on 2026-04-10; the customer pays 20,000.00 on 2026-05-12 and 30,000.00 on 2026-06-03.
const won: DealSnapshot = deal(1, { amount_cents: 5_000_000, close_date: '2026-04-10' });
const paid: DealSnapshot = {
  ...won,
  payments: [payment(1, 2_000_000, '2026-05-12'), payment(2, 3_000_000, '2026-06-03')],
};

function linesOf(chosen: EnginePlanVersion, deals: DealSnapshot[]): LineTarget[] {
  const evaluation = evaluateLines({ plan: chosen, rep, deals, periods: [], today: TODAY });
  assert.deepEqual(evaluation.problems, []);
  return evaluation.targets;
}

function summary(targets: readonly LineTarget[]) {
  return targets.map((target) => ({
    period: target.period_id,
    earned: target.earned_cents,
    release: target.line.period_id !== null,
  }));
}

const section = workedExamples('plan-features.md');
const money = (text: string) => Number(text.replaceAll(',', '').replace('.', ''));

describe('pay on cash, the worked example', () => {
  test('the table of docs/plan-features.md is what the engine computes', () => {
    const rows = tableRows(section('pay-on-cash-figures'));
    const computed = linesOf(proRata, [paid]).map((target) => {
      const release = target.trace.steps.find((step) => step.type === 'cash_release');
      return [
        target.period_id,
        release ? 'release' : 'booking',
        release?.type === 'cash_release' ? release.collected_cents : 0,
        release?.type === 'cash_release' ? release.released_through_cents : 0,
        target.earned_cents,
      ];
    });
    assert.deepEqual(
      computed,
      rows.map(([period, line, collected, released, earned]) => [
        period,
        line,
        money(collected ?? ''),
        money(released ?? ''),
        money(earned ?? ''),
      ]),
    );
  });

  test("a voided payment counts as nothing and keeps its period's release line at what the others release there", () => {
    const voided: DealSnapshot = {
      ...won,
      payments: [{ ...payment(1, 2_000_000, '2026-05-12'), voided: true }, payment(2, 3_000_000, '2026-06-03')],
    };
    const targets = linesOf(proRata, [voided]);
    assert.deepEqual(summary(targets), [
      { period: '2026-04', earned: 300_000, release: false },
      { period: '2026-05', earned: 0, release: true },
      { period: '2026-06', earned: 120_000, release: true },
    ]);
    // The same line keys as before the void: booking it moves May's release to 0 rather than leaving it standing.
    assert.deepEqual(
      targets.map((target) => target.line.line_key),
      linesOf(proRata, [paid]).map((target) => target.line.line_key),
    );
    const june = targets[2]?.trace.steps.find((step) => step.type === 'cash_release');
    assert.ok(june?.type === 'cash_release');
    assert.equal(june.collected_cents, 3_000_000);
    assert.deepEqual(
      june.payments.map((each) => [each.external_id, each.voided ?? false]),
      [
        ['inv-1', true],
        ['inv-2', false],
      ],
    );
  });

  test('40% of 5,000.00 is held: 3,000.00 payable in April, 800.00 released in May and 1,200.00 in June', () => {
    const targets = linesOf(proRata, [paid]);
    assert.deepEqual(summary(targets), [
      { period: '2026-04', earned: 300_000, release: false },
      { period: '2026-05', earned: 80_000, release: true },
      { period: '2026-06', earned: 120_000, release: true },
    ]);
    const [main, may, june] = targets as [LineTarget, LineTarget, LineTarget];
    const hold = main.trace.steps.find((step) => step.type === 'cash_hold');
    assert.deepEqual(hold, {
      type: 'cash_hold',
      commission_cents: 500_000,
      held_pct: 40,
      held_cents: 200_000,
      payable_cents: 300_000,
      release: 'pro_rata',
      released_cents: 200_000,
      still_held_cents: 0,
    });
    const mayRelease = may.trace.steps.find((step) => step.type === 'cash_release');
    assert.ok(mayRelease?.type === 'cash_release');
    assert.equal(mayRelease.collected_cents, 2_000_000);
    assert.equal(mayRelease.released_through_cents, 80_000);
    assert.deepEqual(
      mayRelease.payments.map((entry) => entry.external_id),
      ['inv-1'],
    );
    assert.match(may.trace.explanation.at(-1) ?? '', /releases 800\.00 - 0\.00 = 800\.00/);
    // Each release is a line of its own, keyed by the deal and the period the money arrived in.
    assert.equal(new Set(targets.map((target) => target.line.line_key)).size, 3);
    assert.equal(june.line.line_key, `${main.line.line_key}:2026-06`);
  });

  test('before any payment, the held part shows as still held and no release line exists', () => {
    const [main, ...releases] = linesOf(proRata, [won]);
    assert.equal(releases.length, 0);
    assert.equal(main?.earned_cents, 300_000);
    const hold = main?.trace.steps.find((step) => step.type === 'cash_hold');
    assert.ok(hold?.type === 'cash_hold');
    assert.equal(hold.still_held_cents, 200_000);
  });

  test('released pro rata, each period rounds the running total, so the releases add up to the held part', () => {
    const odd = { ...won, amount_cents: 3_000_000 };
    const thirds = {
      ...odd,
      payments: [
        payment(1, 1_000_000, '2026-04-20'),
        payment(2, 1_000_000, '2026-05-20'),
        payment(3, 1_000_000, '2026-06-01'),
      ],
    };
    const commission = 300_000n;
    const held = 120_000n;
    const released = linesOf(proRata, [thirds]).slice(1);
    assert.deepEqual(
      released.map((target) => target.earned_cents),
      [40_000, 40_000, 40_000],
    );
    assert.equal(
      released.reduce((sum, target) => sum + BigInt(target.earned_cents), 0n),
      held,
    );
    assert.equal(releasedBy(held, { held_pct: 40, release: 'pro_rata' }, 3_000_000n, 1n), 0n);
    assert.ok(commission > held);
  });

  test('first_payment releases everything on the first payment; full_payment waits for the whole amount', () => {
    const first = linesOf(cashPlan({ held_pct: 40, release: 'first_payment' }), [paid]);
    assert.deepEqual(
      first.map((target) => target.earned_cents),
      [300_000, 200_000, 0],
    );
    const full = linesOf(cashPlan({ release: 'full_payment' }), [paid]);
    assert.deepEqual(
      full.map((target) => target.earned_cents),
      [0, 0, 500_000],
    );
  });

  test('a payment received before the deal is won releases in the deal’s own period', () => {
    const early = { ...won, payments: [payment(1, 5_000_000, '2026-03-20')] };
    assert.deepEqual(summary(linesOf(proRata, [early])), [
      { period: '2026-04', earned: 300_000, release: false },
      { period: '2026-04', earned: 200_000, release: true },
    ]);
  });
});

describe('pay on cash through the ledger', () => {
  test('a release lands in the period the payment arrives, and a clawback takes back what was paid and released', () => {
    const world = new EarningsWorld(proRata, [rep], TODAY);
    world.change(won);
    world.ledger.lock('2026-04');
    world.change({ ...won, payments: [paid.payments?.[0] as NonNullable<DealSnapshot['payments']>[number]] });
    world.ledger.lock('2026-05');
    world.change(paid);
    const live = () =>
      world.ledger.rows
        .filter((row) => row.status !== 'superseded' && row.status !== 'reversed')
        .map((row) => `${row.period_id} ${row.status} ${row.amount_cents}`)
        .sort();
    assert.deepEqual(live(), ['2026-04 approved 300000', '2026-05 approved 80000', '2026-06 pending 120000']);
    // The statements: April shows what its booking held back, May and June what payments released there.
    const sums = (periodId: string) =>
      cashSums(
        periodId,
        world.ledger.rows.filter(
          (row) => row.period_id === periodId && row.status !== 'superseded' && row.status !== 'reversed',
        ),
      );
    assert.deepEqual(sums('2026-04'), { held_until_paid_cents: 200_000 });
    assert.deepEqual(sums('2026-05'), { released_on_payment_cents: 80_000 });
    assert.deepEqual(sums('2026-06'), { released_on_payment_cents: 120_000 });
    // The deal is lost: every part is taken back in the earliest open period.
    world.change({ ...paid, status: 'lost', stage: 'closed_lost', won_at: null });
    assert.deepEqual(live(), [
      '2026-04 approved 300000',
      '2026-05 approved 80000',
      '2026-06 pending -300000',
      '2026-06 pending -80000',
    ]);
    const targets = world.everyTarget(PERIODS);
    assert.deepEqual(
      targets.map((target) => target.earned_cents),
      [0, 0, 0],
    );
  });
});

describe('pay on cash in the plan file', () => {
  test.each([
    { params: { payable_on: 'cash' }, problems: [] },
    { params: { payable_on: 'booking' }, problems: [] },
    { params: { cash: { held_pct: 40 } }, problems: ['chips[0].cash: applies only with payable_on: cash'] },
    { params: { payable_on: 'cash', cash: { held_pct: 0 } }, problems: ['chips[0].cash'] },
    { params: { payable_on: 'later' }, problems: ['chips[0].payable_on: must be booking or cash'] },
  ])('when a chip says $params, then the engine finds $problems', ({ params, problems }) => {
    const found = cashTermProblems(params, 'chips[0]').map((problem) =>
      problem.path === 'chips[0].cash' && problem.message.startsWith('held_pct')
        ? problem.path
        : `${problem.path}: ${problem.message}`,
    );
    assert.deepEqual(found, problems);
  });

  test('a plan file says payable_on: cash; its terms are normalised with their defaults, and refused without it', () => {
    const file = (chipText: string) => `key: p\nname: P\nassignees: all\nchips:\n  - ${chipText}\n`;
    const cash = readPlanFile(file('{ key: b, name: B, kind: commission, rate_bps: 1000, payable_on: cash }'));
    assert.ok(cash.ok);
    assert.deepEqual(cash.plan.chips[0]?.params, {
      rate_bps: 1000,
      base: 'amount_cents',
      payable_on: 'cash',
      cash: { held_pct: 100, release: 'pro_rata' },
    });
    const booking = readPlanFile(file('{ key: b, name: B, kind: flat, amount_cents: 100, payable_on: booking }'));
    assert.ok(booking.ok);
    assert.deepEqual(booking.plan.chips[0]?.params, { amount_cents: 100 });
    const stray = readPlanFile(file('{ key: b, name: B, kind: commission, rate_bps: 1000, cash: { held_pct: 40 } }'));
    assert.deepEqual(stray.ok ? [] : stray.problems.map(({ path, message }) => `${path}: ${message}`), [
      'chips[0].cash: applies only with payable_on: cash',
    ]);
  });
});
