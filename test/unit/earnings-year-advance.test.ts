import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { settleAdvanceDraws } from '../../src/domain/earnings/advanceDraws.ts';
import { settleDraws } from '../../src/domain/earnings/draws.ts';
import { blendedQuota, daysOfYear, trueUpYear, type YearRules } from '../../src/domain/earnings/yearToDate.ts';
import { planDocument as documentOf } from '../../src/domain/plans/document/model.ts';
import { readPlanFile } from '../../src/domain/plans/planFile.ts';
import { deal, plan, rep, testId } from '../factories/earnings.ts';
import { DrawsWorld } from '../helpers/drawsWorld.ts';
import { EarningsWorld } from '../helpers/earningsLedger.ts';
import { tableRows, workedExamples } from '../helpers/workedExamples.ts';

// A plan year paid monthly (year-to-date true-up) and a draw paid in advance: the pure engine, figures worked by
// hand in docs/plan-features.md.

const section = workedExamples('plan-features.md');
/** The first amount of a cell (`0.00 (−24,876.71 carried)` is 0.00), in cents. */
const cents = (cell: string) => {
  const first =
    cell
      .replaceAll('−', '-')
      .replaceAll(',', '')
      .match(/-?\d+\.\d\d/)?.[0] ?? 'NaN';
  return BigInt(Math.round(Number(first) * 100));
};

const year: YearRules = {
  starts_on: '2026-01-01',
  quotas: [
    { from: '2026-01-01', quota_cents: 120_000_000n }, // 1,200,000.00
    { from: '2026-07-01', quota_cents: 180_000_000n }, // 1,800,000.00 from 1 July
  ],
  tiers: [
    { up_to_pct: 100, rate_bps: 500n },
    { up_to_pct: null, rate_bps: 1000n },
  ],
  negative: 'carry_forward',
};

describe('a plan year paid monthly', () => {
  test('a quota raised on 1 July counts each part of the year by its days', () => {
    assert.equal(daysOfYear('2026-01-01'), 365);
    assert.equal(daysOfYear('2028-01-01'), 366);
    // (1,200,000.00 × 181 + 1,800,000.00 × 184) / 365 = 1,502,465.7534 → 1,502,465.75
    assert.equal(blendedQuota(year), 150_246_575n);
    // Joining on 1 July: only the new quota, for 184 of 365 days: 1,800,000.00 × 184 / 365 = 907,397.26
    assert.equal(blendedQuota(year, { from: '2026-07-01' }), 90_739_726n);
  });

  test('each month pays YTD earned minus what earlier months paid; a negative true-up is carried forward', () => {
    const months = [
      { period_id: '2026-01', won_cents: 30_000_000n },
      { period_id: '2026-02', won_cents: 0n },
      { period_id: '2026-03', won_cents: 140_000_000n },
      { period_id: '2026-04', won_cents: -30_000_000n },
      { period_id: '2026-05', won_cents: 60_000_000n },
    ];
    const out = trueUpYear(year, months);
    // Jan: 300,000.00 × 5% = 15,000.00. Mar: 1,502,465.75 × 5% + 197,534.25 × 10% = 94,876.7125 → 94,876.71.
    // Apr: 1,400,000.00 × 5% = 70,000.00, below the 94,876.71 paid: nothing clawed back.
    // May: 1,502,465.75 × 5% + 497,534.25 × 10% = 124,876.7125 → 124,876.71, less 94,876.71 paid = 30,000.00.
    assert.deepEqual(
      out.map((m) => [m.ytd_earned_cents, m.paid_before_cents, m.pays_cents]),
      [
        [1_500_000n, 0n, 1_500_000n],
        [1_500_000n, 1_500_000n, 0n],
        [9_487_671n, 1_500_000n, 7_987_671n],
        [7_000_000n, 9_487_671n, 0n],
        [12_487_671n, 9_487_671n, 3_000_000n],
      ],
    );
    assert.equal(out[3]?.due_cents, -2_487_671n);
    const clawing = trueUpYear({ ...year, negative: 'claw_back' }, months);
    assert.equal(clawing[3]?.pays_cents, -2_487_671n);
    assert.equal(clawing[4]?.pays_cents, 5_487_671n);
  });

  test('the worked example of docs/plan-features.md, to the cent', () => {
    const rows = tableRows(section('year-to-date-figures'));
    assert.equal(rows.length, 5);
    const out = trueUpYear(
      year,
      rows.map(([month, won]) => ({ period_id: month ?? '', won_cents: cents(won ?? '') })),
    );
    assert.deepEqual(
      out.map((m) => [m.period_id, m.ytd_won_cents, m.ytd_earned_cents, m.paid_before_cents, m.pays_cents]),
      rows.map(([month, , ytdWon, ytdEarned, before, pays]) => [
        month,
        cents(ytdWon ?? ''),
        cents(ytdEarned ?? ''),
        cents(before ?? ''),
        cents(pays ?? ''),
      ]),
    );
  });

  test('a rate raised on 1 July is blended by the days of the year to date', () => {
    const raised = { ...year, tiers_from: [{ from: '2026-07-01', tiers: [{ up_to_pct: null, rate_bps: 800n }] }] };
    const out = trueUpYear(raised, [
      { period_id: '2026-06', won_cents: 30_000_000n },
      { period_id: '2026-07', won_cents: 0n },
    ]);
    // June: 181 days at 5%: 15,000.00. July: (15,000.00 × 181 + 24,000.00 × 31) / 212 = 16,316.04 (16,316.0377…).
    assert.deepEqual(
      out.map((m) => [m.ytd_earned_cents, m.pays_cents]),
      [
        [1_500_000n, 1_500_000n],
        [1_631_604n, 131_604n],
      ],
    );
  });

  test('a locked month is never rewritten: the next month carries the difference', () => {
    const out = trueUpYear(year, [
      { period_id: '2026-01', won_cents: 40_000_000n, locked_paid_cents: 1_500_000n },
      { period_id: '2026-02', won_cents: 0n },
    ]);
    assert.deepEqual(
      out.map((m) => m.pays_cents),
      [1_500_000n, 500_000n],
    );
  });

  test('incremental = full: paying month by month, locking each, equals the full recompute of the year', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5_000_000, max: 80_000_000 }), { minLength: 1, maxLength: 12 }),
        (wons) => {
          const months = wons.map((won, i) => ({
            period_id: `2026-${String(i + 1).padStart(2, '0')}`,
            won_cents: BigInt(won),
          }));
          const full = trueUpYear({ ...year, negative: 'claw_back' }, months);
          const locked: { period_id: string; won_cents: bigint; locked_paid_cents: bigint }[] = [];
          for (const month of months) {
            const step = trueUpYear({ ...year, negative: 'claw_back' }, [...locked, month]).at(-1);
            locked.push({ ...month, locked_paid_cents: step?.pays_cents ?? 0n });
          }
          assert.deepEqual(
            locked.map((m) => m.locked_paid_cents),
            full.map((m) => m.pays_cents),
          );
          const sum = full.reduce((total, m) => total + m.pays_cents, 0n);
          assert.equal(sum, full.at(-1)?.ytd_earned_cents);
        },
      ),
    );
  });
});

describe('a draw paid in advance', () => {
  const period = (period_id: string, earned: bigint) => ({ period_id, earned, covered_days: 30, period_days: 30 });
  const rules = { amount: 300_000n, recoverable: true };

  test('the whole draw is paid at the start, then repaid from the period and later earnings', () => {
    const out = settleAdvanceDraws(
      rules,
      [period('2026-04', 100_000n), period('2026-05', 400_000n), period('2026-06', 500_000n)],
      0n,
    );
    assert.deepEqual(
      out.map((o) => [o.advance, o.offset, o.recovery, o.closing, o.net]),
      [
        [300_000n, 100_000n, 0n, 200_000n, 300_000n],
        [300_000n, 300_000n, 100_000n, 100_000n, 300_000n],
        [300_000n, 300_000n, 100_000n, 0n, 400_000n],
      ],
    );
    const guarantee = settleAdvanceDraws({ ...rules, recoverable: false }, [period('2026-04', 100_000n)], 0n);
    assert.equal(guarantee[0]?.net, 300_000n);
    assert.equal(guarantee[0]?.closing, 0n);
  });

  test('the worked example of docs/plan-features.md, to the cent', () => {
    const rows = tableRows(section('advance-draw-figures'));
    assert.equal(rows.length, 3);
    const out = settleAdvanceDraws(
      rules,
      rows.map(([id, , earned]) => period(id ?? '', cents(earned ?? ''))),
      0n,
    );
    assert.deepEqual(
      out.map((o) => [o.period_id, o.advance, o.earned, o.offset, o.recovery, o.closing, o.net]),
      rows.map((row) => [row[0], ...row.slice(1).map(cents)]),
    );
  });

  test('paid in advance nets, period by period, what the draw settled at the lock pays', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.boolean(),
        fc.array(fc.tuple(fc.integer({ min: -500_000, max: 2_000_000 }), fc.integer({ min: 0, max: 30 })), {
          maxLength: 12,
        }),
        (amount, recoverable, rows) => {
          const periods = rows.map(([earned, days], i) => ({
            period_id: `p${i}`,
            earned: BigInt(earned),
            earned_cents: BigInt(earned),
            covered_days: days,
            period_days: 30,
          }));
          const draw = { amount: BigInt(amount), recoverable };
          const advance = settleAdvanceDraws(draw, periods, 0n);
          const atLock = settleDraws(draw, periods, 0n);
          assert.deepEqual(
            advance.map((o) => [o.net, o.closing]),
            atLock.map((o) => [o.earned + o.advance - o.recovery, o.closing]),
          );
        },
      ),
    );
  });
});

describe('a draw paid in advance, through the plan file (docs/plan-features.md)', () => {
  test('the page’s plan, its deals locked month by month, books the page’s figures', () => {
    const read = readPlanFile(section('advance-draw'));
    assert.ok(read.ok, JSON.stringify(read.ok ? null : read.problems));
    assert.deepEqual(read.plan.draw, { amount_cents: 300_000, recoverable: true, paid: 'in_advance' });
    const engine = plan({
      quota_cents: null,
      draw: read.plan.draw,
      chips: read.plan.chips.map((each, index) => ({ ...each, id: testId('chip', 60 + index), version: '1' })),
    });
    const rows = tableRows(section('advance-draw-figures'));
    const world = new DrawsWorld(engine, [rep], '2026-07-15');
    rows.forEach(([month, , earned], index) => {
      // 10% commission: a deal of ten times the month's earnings.
      const amount = Number(cents(earned ?? '')) * 10;
      world.change(
        deal(index + 1, { amount_cents: amount, close_date: `${month}-10`, won_at: `${month}-10T12:00:00.000Z` }),
      );
      world.lock(month ?? '');
    });
    const drawRow = (kind: string, month: string) =>
      world.ledger.rows.filter((row) => row.trace.chip.kind === kind && row.trace.period.id === month);
    for (const [month, advance, earned, repays, recovers, closing, pays] of rows) {
      const [advanceRow] = drawRow('draw', month ?? '');
      const [settlementRow] = drawRow('draw_recovery', month ?? '');
      assert.equal(BigInt(advanceRow?.amount_cents ?? 0), cents(advance ?? ''));
      assert.equal(advanceRow?.trace.steps[0]?.type, 'draw_advance');
      assert.equal(BigInt(-(settlementRow?.amount_cents ?? 0)), cents(repays ?? '') + cents(recovers ?? ''));
      const step = settlementRow?.trace.steps[0];
      assert.ok(step?.type === 'draw_settlement');
      assert.deepEqual(
        [step.earned_cents, step.offset_cents, step.recovery_cents, step.closing_balance_cents, step.net_cents].map(
          BigInt,
        ),
        [earned, repays, recovers, closing, pays].map((cell) => cents(cell ?? '')),
      );
      assert.equal(BigInt(world.payable(rep, month ?? '')), cents(pays ?? ''));
    }
    // The lock of June booked July's advance at July's start: pending in July, on the statement from then.
    assert.deepEqual(
      drawRow('draw', '2026-07').map((row) => [row.amount_cents, row.status, row.period_id]),
      [[300_000, 'pending', '2026-07']],
    );
    // The plan document's sentence for the construct.
    const document = documentOf({
      plan: read.plan,
      plan_id: 'plan_01kjsj7s80fmtryrzh7j1q721q',
      version_id: 'pv_01kn40wx00ekj8fq0eg5srs2ry',
      version_number: 1,
      applied_at: new Date('2026-04-01T10:00:00Z'),
      currency: 'USD',
      won_stage: 'closed_won',
    });
    assert.ok(
      document.plan_limits.some((sentence) => sentence.startsWith('Draw of 3,000.00 per period, paid in advance')),
      document.plan_limits.join('\n'),
    );
    // The quiet-period example shows the advance and its settlement, computed by the engine.
    const quiet = document.examples.find((example) => example.key === 'quiet');
    assert.ok(quiet, 'the document has a quiet-period example');
    assert.equal(quiet.total_cents, 300_000);
  });
});

describe('a plan year paid monthly, through the plan file (docs/plan-features.md)', () => {
  test('the page’s plan, its months played and locked one by one, books the page’s figures', () => {
    const read = readPlanFile(section('plan-year'));
    assert.ok(read.ok, JSON.stringify(read.ok ? null : read.problems));
    assert.deepEqual(read.plan.plan_year, { starts_month: 1 });
    const engine = plan({
      quota_cents: read.plan.quota_cents,
      plan_year: read.plan.plan_year ?? null,
      assignees: read.plan.assignees,
      chips: read.plan.chips.map((each, index) => ({ ...each, id: testId('chip', 70 + index), version: '1' })),
    });
    const world = new EarningsWorld(engine, [rep], '2026-05-20');
    // Rep-017's quota table raises the annual quota from 1 July: (1,200,000.00 × 181 + 1,800,000.00 × 184) / 365.
    world.quotas.set(rep.user_id, { start_date: null, entries: [{ from: '2026-07-01', quota_cents: 180_000_000 }] });
    const rows = tableRows(section('plan-year-figures'));
    assert.equal(rows.length, 5);
    const letters = new Map<string, number>();
    const booked = (month: string) =>
      world.ledger.rows
        .filter((row) => row.period_id === month && row.status !== 'superseded' && row.status !== 'reversed')
        .reduce((sum, row) => sum + BigInt(row.amount_cents), 0n);
    let paidBefore = 0n;
    for (const [month = '', deals = '', ytdWon, ytdEarned, before, pays] of rows) {
      const won = deals.match(/^([A-Z]) won, ([\d,.]+)$/);
      const lost = deals.match(/^([A-Z]) lost$/);
      if (won) {
        const n = letters.size + 1;
        letters.set(won[1] ?? '', n);
        world.change(
          deal(n, {
            amount_cents: Number(cents(won[2] ?? '')),
            close_date: `${month}-10`,
            won_at: `${month}-10T12:00:00.000Z`,
          }),
        );
      } else if (lost) {
        const current = world.deals.get(deal(letters.get(lost[1] ?? '') ?? 0).id);
        assert.ok(current, `deal ${lost[1]} was won before`);
        world.change({ ...current, status: 'lost', stage: 'closed_lost' });
      } else {
        assert.equal(deals, 'none');
      }
      const months = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05'].filter((each) => each <= month);
      const targets = world.everyTarget(months);
      const earned = targets.reduce((sum, target) => sum + BigInt(target.earned_cents), 0n);
      const wonSoFar = [...world.deals.values()]
        .filter((each) => each.status === 'won')
        .reduce((sum, each) => sum + BigInt(each.amount_cents ?? 0), 0n);
      assert.equal(wonSoFar, cents(ytdWon ?? ''), `${month} YTD won`);
      assert.equal(earned, cents(ytdEarned ?? ''), `${month} YTD earned`);
      assert.equal(paidBefore, cents(before ?? ''), `${month} paid before`);
      assert.equal(booked(month), cents(pays ?? ''), `${month} pays`);
      world.ledger.lock(month);
      paidBefore += booked(month);
    }
    // March's line: its trace names the plan year, the blended quota and the year-to-date running total.
    const march = world
      .everyTarget(['2026-03'])
      .find((target) => target.line.deal_id === deal(2).id && target.period_id === '2026-03');
    assert.ok(march);
    const steps = march.trace.steps;
    const yearStep = steps.find((step) => step.type === 'plan_year');
    assert.deepEqual(yearStep, {
      type: 'plan_year',
      starts_on: '2026-01-01',
      ends_on: '2026-12-31',
      through_period_id: '2026-03',
      annual_quota_cents: 150_246_575,
      year_days: 365,
      quotas: [
        { from: '2026-01-01', quota_cents: 120_000_000, days: 181 },
        { from: '2026-07-01', quota_cents: 180_000_000, days: 184 },
      ],
    });
    const cumulative = steps.find((step) => step.type === 'cumulative');
    assert.ok(cumulative?.type === 'cumulative');
    // A is lost by now: B counts from zero in the year to date.
    assert.deepEqual([cumulative.prior_won_cents, cumulative.period_won_cents], [0, 140_000_000]);
    assert.ok(
      march.trace.explanation.includes(
        'The annual quota is blended by days: (1,200,000.00 × 181 + 1,800,000.00 × 184) / 365, rounded half away from zero, is 1,502,465.75.',
      ),
      march.trace.explanation.join('\n'),
    );
    // The plan document's sentence for the construct.
    const document = documentOf({
      plan: read.plan,
      plan_id: 'plan_01kjsj7s80fmtryrzh7j1q721q',
      version_id: 'pv_01kn40wx00ekj8fq0eg5srs2ry',
      version_number: 1,
      applied_at: new Date('2026-04-01T10:00:00Z'),
      currency: 'USD',
      won_stage: 'closed_won',
    });
    assert.ok(
      document.plan_limits.some((sentence) => sentence.startsWith('Plan year from 1 January, paid monthly')),
      document.plan_limits.join('\n'),
    );
  });
});
