import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { DealSnapshot, EngineChip, LineTarget } from '../../src/domain/earnings/types.ts';
import { planDocument as planDocumentOf } from '../../src/domain/plans/document/model.ts';
import { readPlanFile, validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import { chip, deal, plan, rep, testId } from '../factories/earnings.ts';
import { planDocument } from '../factories/plans.ts';
import { assertTargetTracesValid } from '../helpers/earningTraceSchema.ts';
import { tableRows, workedExamples } from '../helpers/workedExamples.ts';

// Tiers counted in deals (docs/plan-features.md, Tiers counted in deals): the 11th contract of a quarter pays more.

const COUNT_BANDS = [
  { up_to_deals: 10, rate_bps: 500 },
  { up_to_deals: null, rate_bps: 800 },
];

function countChip(mode: 'marginal' | 'retroactive', tiers: unknown[] = COUNT_BANDS): EngineChip {
  return chip(30, {
    key: 'by-count',
    name: 'By count',
    kind: 'tiered_commission',
    when: null,
    params: { mode, tiers },
  });
}

const twelve: DealSnapshot[] = Array.from({ length: 12 }, (_, index) => {
  const day = `2026-02-${String(index + 1).padStart(2, '0')}`;
  return deal(index + 1, { amount_cents: 100_000, close_date: day, won_at: `${day}T12:00:00.000Z` });
});

function linesOf(tierChip: EngineChip, subject: DealSnapshot[]): LineTarget[] {
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

describe('tiers counted in deals', () => {
  test('marginal: deals 1 to 10 earn band 1, the 11th and 12th band 2', () => {
    assert.deepEqual(earned(linesOf(countChip('marginal'), twelve)), [...Array(10).fill(5_000), 8_000, 8_000]);
  });

  test('retroactive: once the count reaches band 2 every deal of the period earns its rate', () => {
    assert.deepEqual(earned(linesOf(countChip('retroactive'), twelve)), Array(12).fill(8_000));
    assert.deepEqual(earned(linesOf(countChip('retroactive'), twelve.slice(0, 10))), Array(10).fill(5_000));
  });

  test('deals are numbered by close date, then won time, then id, whatever order they arrive in', () => {
    const shuffled = [...twelve].reverse();
    const lines = linesOf(countChip('marginal'), shuffled);
    assert.deepEqual(earned(lines), [8_000, 8_000, ...Array(10).fill(5_000)]);
  });

  test('the trace gives the deal number, the count and the band, and a rate step a rep can redo', () => {
    const line = linesOf(countChip('marginal'), twelve)[10] as LineTarget;
    const count = line.trace.steps.find((step) => step.type === 'deal_count');
    assert.ok(count && count.type === 'deal_count');
    assert.deepEqual(
      { ...count, counted_deals: count.counted_deals?.length },
      {
        type: 'deal_count',
        position: 11,
        period_deals: 12,
        band: 2,
        from_deal: 11,
        to_deal: null,
        counted_deals: 12,
      },
    );
    const rate = line.trace.steps.find((step) => step.type === 'rate');
    assert.deepEqual(rate, { type: 'rate', rate_bps: 800, base_cents: 100_000, exact_cents: '8000' });
    assert.ok(
      line.trace.explanation.includes(
        `This is deal 11 of the 12 won by ${rep.external_id} in 2026-Q1, counted in order of close date, then won time, then id.`,
      ),
      line.trace.explanation.join('\n'),
    );
    assert.ok(line.trace.explanation.includes('Band 2 (deal 11 on) holds deal 11, so the deal earns its rate.'));
  });

  test('a lost deal leaves the count: the deals after it move down a number', () => {
    const lost = twelve.map((each, index) => (index === 0 ? { ...each, status: 'lost' as const } : each));
    assert.deepEqual(earned(linesOf(countChip('marginal'), lost)), [0, ...Array(10).fill(5_000), 8_000]);
  });

  test('an open deal is projected as if won next', () => {
    const open = deal(13, { amount_cents: 100_000, status: 'open', close_date: '2026-03-20', won_at: null });
    const lines = linesOf(countChip('marginal'), [...twelve.slice(0, 10), open]);
    assert.equal(lines[10]?.projected_cents, 8_000);
  });

  test('a split deal counts as one deal for the rep, at the rate of its number, on the credited part', () => {
    const split = deal(20, {
      amount_cents: 300_000,
      close_date: '2026-03-01',
      won_at: '2026-03-01T12:00:00.000Z',
      splits: [
        { owner_external_id: rep.external_id, share_bps: 5000 },
        { owner_external_id: 'rep-099', share_bps: 5000 },
      ],
    });
    const lines = linesOf(countChip('marginal'), [...twelve.slice(0, 10), split]);
    assert.equal(lines[10]?.earned_cents, 12_000);
  });
});

describe('the plan file', () => {
  const file = (chipFields: Record<string, unknown>) =>
    planDocument({
      chips: [{ key: 'by-count', name: 'By count', kind: 'tiered_commission', mode: 'marginal', ...chipFields }],
    });

  test('bands in up_to_deals are kept', () => {
    const result = validatePlanDocument(file({ tiers: COUNT_BANDS }));
    assert.ok(result.ok, JSON.stringify(result.ok ? null : result.problems));
    assert.deepEqual((result.plan.chips[0]?.params as unknown as { tiers: unknown } | undefined)?.tiers, COUNT_BANDS);
  });

  test('per_deal, mixed units and a falling count are refused with their paths', () => {
    const refused = (fields: Record<string, unknown>) => {
      const result = validatePlanDocument(file(fields));
      assert.equal(result.ok, false);
      return result.ok ? [] : result.problems.map((problem) => problem.path);
    };
    assert.ok(refused({ basis: 'per_deal', tiers: COUNT_BANDS }).includes('chips[0].basis'));
    assert.ok(
      refused({
        tiers: [
          { up_to_deals: 10, rate_bps: 500 },
          { up_to_cents: null, rate_bps: 800 },
        ],
      }).includes('chips[0].tiers[1]'),
    );
    assert.ok(
      refused({
        tiers: [
          { up_to_deals: 10, rate_bps: 500 },
          { up_to_deals: 10, rate_bps: 600 },
          { up_to_deals: null, rate_bps: 800 },
        ],
      }).includes('chips[0].tiers[1].up_to_deals'),
    );
  });
});

describe('docs/plan-features.md, Tiers counted in deals', () => {
  const section = workedExamples('plan-features.md');
  const cents = (money: string) => Math.round(Number(money.replaceAll('*', '').replaceAll(',', '')) * 100);

  test('the worked example: the page’s plan pays each deal the page’s figure, and 1,440.00 retroactive', () => {
    const read = readPlanFile(section('tiers-in-deals'));
    assert.ok(read.ok, JSON.stringify(read.ok ? null : read.problems));
    const [countFileChip] = read.plan.chips;
    assert.ok(countFileChip?.kind === 'tiered_commission');
    const engineChip = { ...countFileChip, id: testId('chip', 41), version: '1' } as EngineChip;
    const rows = tableRows(section('tiers-in-deals-figures'));
    const dealRows = rows.filter((cells) => cells[0] !== '');
    const pageDeals = dealRows.map(([, day, amount], index) =>
      deal(index + 1, { amount_cents: cents(amount ?? ''), close_date: day, won_at: `${day}T12:00:00.000Z` }),
    );
    const lines = linesOf(engineChip, pageDeals);
    assert.deepEqual(
      earned(lines),
      dealRows.map((cells) => cents(cells[5] ?? '')),
    );
    assert.deepEqual(
      lines.map((line) => line.trace.steps.flatMap((step) => (step.type === 'deal_count' ? [step.position] : []))),
      dealRows.map((cells) => [Number(cells[3])]),
    );
    const totals = rows.find((cells) => cells[0] === '');
    assert.equal(total(lines), cents(totals?.[5] ?? ''));
    assert.equal(total(lines), 100_500);
    const retroactive = { ...engineChip, params: { ...engineChip.params, mode: 'retroactive' } } as EngineChip;
    assert.equal(total(linesOf(retroactive, pageDeals)), 144_000);
  });

  test('the plan document says what the bands count', () => {
    const read = readPlanFile(section('tiers-in-deals'));
    assert.ok(read.ok);
    const document = planDocumentOf({
      plan: read.plan,
      plan_id: 'plan_01kjsj7s80fmtryrzh7j1q721q',
      version_id: 'pv_01kn40wx00ekj8fq0eg5srs2ry',
      version_number: 1,
      applied_at: new Date('2026-05-04T10:00:00Z'),
      currency: 'USD',
      won_stage: 'closed_won',
    });
    const text = JSON.stringify(document);
    assert.ok(text.includes('A rate by band of the number of deals you win in the period'));
    assert.ok(text.includes('deal 11'));
  });
});
