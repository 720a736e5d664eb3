import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { DealSnapshot, EngineChip, LineTarget, TraceStep } from '../../src/domain/earnings/types.ts';
import { readPlanFile, validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import { chip, deal, plan, rep, testId } from '../factories/earnings.ts';
import { planDocument } from '../factories/plans.ts';
import { assertTargetTracesValid } from '../helpers/earningTraceSchema.ts';
import { tableRows, workedExamples } from '../helpers/workedExamples.ts';

// Tiers per deal beside cumulative tiers (docs/plan-features.md, Tiers): the worked example is Oracle Incentive
// Compensation's step-rate example, six transactions of a quarter against 1% to 1,000, 2% to 3,000, 3% to 8,000
// and 5% above.

const ORACLE_BANDS = [
  { up_to_cents: 100_000, rate_bps: 100 },
  { up_to_cents: 300_000, rate_bps: 200 },
  { up_to_cents: 800_000, rate_bps: 300 },
  { up_to_cents: null, rate_bps: 500 },
];

const TRANSACTIONS: Array<[string, number]> = [
  ['2026-01-01', 20_000],
  ['2026-01-02', 30_000],
  ['2026-01-15', 150_000],
  ['2026-02-01', 120_000],
  ['2026-02-15', 200_000],
  ['2026-03-01', 450_000],
];

const deals: DealSnapshot[] = TRANSACTIONS.map(([day, amount], index) =>
  deal(index + 1, { amount_cents: amount, close_date: day, won_at: `${day}T12:00:00.000Z` }),
);

function tiers(mode: 'marginal' | 'retroactive', basis?: 'cumulative' | 'per_deal'): EngineChip {
  return chip(20, {
    key: 'tiers',
    name: 'Tiers',
    kind: 'tiered_commission',
    when: null,
    params: { mode, tiers: ORACLE_BANDS, ...(basis ? { basis } : {}) },
  });
}

function linesOf(tierChip: EngineChip, subject: DealSnapshot[] = deals): LineTarget[] {
  const evaluation = evaluateLines({
    plan: plan({ period: 'quarterly', chips: [tierChip] }),
    rep,
    deals: subject,
    periods: [],
    today: '2026-04-25',
  });
  assert.deepEqual(evaluation.problems, []);
  assertTargetTracesValid(evaluation.targets);
  return subject.map((each) => {
    const found = evaluation.targets.find((target) => target.line.deal_id === each.id);
    assert.ok(found);
    return found;
  });
}

const earned = (lines: LineTarget[]) => lines.map((line) => line.earned_cents);
const total = (lines: LineTarget[]) => lines.reduce((sum, line) => sum + line.earned_cents, 0);

describe('tiers per deal', () => {
  test("Oracle's step example: each transaction climbs the bands from zero, 164.00 in all; cumulative pays 285.00", () => {
    const perDeal = linesOf(tiers('marginal', 'per_deal'));
    assert.deepEqual(earned(perDeal), [200, 300, 2_000, 1_400, 3_000, 9_500]);
    assert.equal(total(perDeal), 16_400);
    const cumulative = linesOf(tiers('marginal'));
    assert.deepEqual(earned(cumulative), [200, 300, 2_500, 2_600, 6_000, 16_900]);
    assert.equal(total(cumulative), 28_500);
    assert.deepEqual(earned(linesOf(tiers('marginal', 'cumulative'))), earned(cumulative));
  });

  test('the trace of a per-deal line names its own bands and no running total', () => {
    const line = linesOf(tiers('marginal', 'per_deal'))[5] as LineTarget;
    const steps = line.trace.steps;
    assert.equal(
      steps.some((step: TraceStep) => step.type === 'cumulative'),
      false,
    );
    assert.deepEqual(
      steps.flatMap((step) => (step.type === 'tier' ? [[step.band, step.slice_cents, step.exact_cents]] : [])),
      [
        [1, 100_000, '1000'],
        [2, 200_000, '4000'],
        [3, 150_000, '4500'],
      ],
    );
    assert.ok(
      line.trace.explanation.includes(
        "Per deal: this deal climbs the bands from zero on its own amount, 4,500.00; the rep's other deals do not count.",
      ),
    );
  });

  test('retroactive per deal pays the whole deal at the rate of the band its own amount reaches', () => {
    // 200 and 300 at 1%; 1,500, 1,200 and 2,000 at 2%; 4,500 at 3%: 2 + 3 + 30 + 24 + 40 + 135.
    assert.deepEqual(earned(linesOf(tiers('retroactive', 'per_deal'))), [200, 300, 3_000, 2_400, 4_000, 13_500]);
  });

  test("a deal's line per deal does not move when the rep's other deals change", () => {
    const alone = linesOf(tiers('marginal', 'per_deal'), [deals[5] as DealSnapshot]);
    const withOthers = linesOf(tiers('marginal', 'per_deal'))[5] as LineTarget;
    assert.deepEqual(alone[0]?.trace, withOthers.trace);
    assert.equal(alone[0]?.earned_cents, 9_500);
  });

  test('a split deal climbs the bands on the rep’s credited part', () => {
    const split = deal(9, {
      amount_cents: 450_000,
      close_date: '2026-03-01',
      won_at: '2026-03-01T12:00:00.000Z',
      splits: [
        { owner_external_id: rep.external_id, share_bps: 5000 },
        { owner_external_id: 'rep-099', share_bps: 5000 },
      ],
    });
    // 2,250.00 credited: 1,000.00 at 1% + 1,250.00 at 2% = 35.00.
    assert.equal(linesOf(tiers('marginal', 'per_deal'), [split])[0]?.earned_cents, 3_500);
  });
});

describe('the plan file', () => {
  const file = (basis: unknown) =>
    planDocument({
      chips: [
        {
          key: 'tiers',
          name: 'Tiers',
          kind: 'tiered_commission',
          mode: 'marginal',
          ...(basis === undefined ? {} : { basis }),
          tiers: ORACLE_BANDS,
        },
      ],
    });

  test('basis per_deal is kept; cumulative, the default, normalises to the same plan as leaving it out', () => {
    const perDeal = validatePlanDocument(file('per_deal'));
    assert.ok(perDeal.ok);
    const params = perDeal.plan.chips[0]?.params as unknown as Record<string, unknown>;
    assert.equal(params.basis, 'per_deal');
    const written = validatePlanDocument(file('cumulative'));
    const left = validatePlanDocument(file(undefined));
    assert.ok(written.ok && left.ok);
    assert.deepEqual(written.plan.chips, left.plan.chips);
  });

  test('another basis is refused with its path', () => {
    const result = validatePlanDocument(file('per_rep'));
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.problems.some((problem) => problem.path === 'chips[0].basis'));
  });
});

describe('docs/plan-features.md, Tiers', () => {
  const section = workedExamples('plan-features.md');
  const cents = (money: string) => Math.round(Number(money.replaceAll('*', '').replaceAll(',', '')) * 100);

  test('the worked example: the page’s plan pays each deal the page’s figure, per deal and cumulative', () => {
    const read = readPlanFile(section('tiers-per-deal'));
    assert.ok(read.ok, JSON.stringify(read.ok ? null : read.problems));
    const [stepChip] = read.plan.chips;
    assert.ok(stepChip?.kind === 'tiered_commission' && stepChip.params.basis === 'per_deal');
    const engineChip = { ...stepChip, id: testId('chip', 40), version: '1' } as EngineChip;
    const { basis: _basis, ...cumulativeParams } = stepChip.params;
    const cumulativeChip = { ...engineChip, params: cumulativeParams } as EngineChip;
    const rows = tableRows(section('tiers-per-deal-figures'));
    const dealRows = rows.filter((cells) => cells[0] !== '');
    const pageDeals = dealRows.map(([, day, amount], index) =>
      deal(index + 1, { amount_cents: cents(amount ?? ''), close_date: day, won_at: `${day}T12:00:00.000Z` }),
    );
    const perDeal = linesOf(engineChip, pageDeals);
    const cumulative = linesOf(cumulativeChip, pageDeals);
    assert.deepEqual(
      earned(perDeal),
      dealRows.map((cells) => cents(cells[4] ?? '')),
    );
    assert.deepEqual(
      earned(cumulative),
      dealRows.map((cells) => cents(cells[6] ?? '')),
    );
    const totals = rows.find((cells) => cells[0] === '');
    assert.deepEqual([total(perDeal), total(cumulative)], [cents(totals?.[4] ?? ''), cents(totals?.[6] ?? '')]);
    assert.deepEqual([total(perDeal), total(cumulative)], [16_400, 28_500]);
  });
});
