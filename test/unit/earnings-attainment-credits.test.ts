import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import type { AttainmentCredit } from '../../src/domain/earnings/attainmentCredits.ts';
import { creditPeriodOf } from '../../src/domain/earnings/attainmentCredits.ts';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { EngineChip, LineTarget } from '../../src/domain/earnings/types.ts';
import { deal, plan, rep, workedExampleChips } from '../factories/earnings.ts';

// Manual adjustments that count toward attainment (docs/pay-workflow.md): the worked example's plan (quota
// 100,000.00; accelerator 0% to 100% of quota, 5% above; bonus 2,000.00 at 100%), with a rep who won 80,000.00 in
// April and an adjustment of 30,000.00 that counts: the running total starts at 30,000.00, so 10,000.00 of the deal
// is above quota and the bonus is reached. The traces name the adjustment.

const TODAY = '2026-04-25';
const won = deal(1, { amount_cents: 8_000_000, close_date: '2026-04-10', custom: { region: 'EMEA', new_logo: false } });
const credit: AttainmentCredit = {
  id: 'adj_01kq2m3v8ef0v9n4xw8f7c1b2d',
  period_id: '2026-04',
  amount_cents: 3_000_000,
  currency: 'USD',
};

function lines(credits: AttainmentCredit[], chips: EngineChip[] = workedExampleChips): Map<string, LineTarget> {
  const evaluation = evaluateLines({
    plan: plan({ chips, currency: 'USD' }),
    rep,
    deals: [won],
    periods: ['2026-04'],
    today: TODAY,
    credits,
  });
  return new Map(evaluation.targets.map((target) => [target.trace.chip.key, target]));
}

describe('adjustments counting toward attainment', () => {
  test('start the running total: the accelerator and the bonus count them, and their traces say so', () => {
    const without = lines([]);
    assert.equal(without.get('accelerator')?.earned_cents, 0);
    assert.equal(without.get('quota-bonus')?.earned_cents, 0);

    const counted = lines([credit]);
    // 30,000.00 + 80,000.00 = 110,000.00: 10,000.00 above quota at 5% is 500.00.
    assert.equal(counted.get('accelerator')?.earned_cents, 50_000);
    assert.equal(counted.get('quota-bonus')?.earned_cents, 200_000);
    // The base commission does not count attainment: unchanged.
    assert.equal(counted.get('base')?.earned_cents, without.get('base')?.earned_cents);

    const cumulative = counted.get('accelerator')?.trace.steps.find((step) => step.type === 'cumulative');
    assert.ok(cumulative?.type === 'cumulative');
    assert.equal(cumulative.prior_won_cents, 3_000_000);
    assert.equal(cumulative.period_won_cents, 11_000_000);
    assert.deepEqual(cumulative.counted_adjustments, [
      { id: credit.id, period_id: '2026-04', amount_cents: 3_000_000, currency: 'USD', counted_cents: 3_000_000 },
    ]);
    assert.deepEqual(
      cumulative.counted_deals?.map((each) => each.running_total_cents),
      [11_000_000],
    );
    const threshold = counted.get('quota-bonus')?.trace.steps.find((step) => step.type === 'threshold');
    assert.ok(threshold?.type === 'threshold');
    assert.equal(threshold.attained_cents, 11_000_000);
    assert.equal(threshold.counted_adjustments?.[0]?.id, credit.id);
    assert.ok(
      counted
        .get('quota-bonus')
        ?.trace.explanation.includes(
          `Manual adjustments counted toward attainment in 2026-04 before its deals: ${credit.id} 30,000.00; the running total starts at 30,000.00.`,
        ),
    );
    // Without adjustments, the trace lists none.
    const plain = without.get('accelerator')?.trace.steps.find((step) => step.type === 'cumulative');
    assert.ok(plain?.type === 'cumulative' && !('counted_adjustments' in plain));
  });

  test('a period with no deal reaches its bonus from adjustments alone; a chip with a condition counts none', () => {
    const conditioned = workedExampleChips.map(
      (chip): EngineChip =>
        chip.kind === 'attainment_bonus'
          ? { ...chip, when: { field: 'custom.region', op: 'eq' as const, value: 'EMEA' } }
          : chip,
    );
    const evaluation = evaluateLines({
      plan: plan({ currency: 'USD' }),
      rep,
      deals: [],
      periods: ['2026-05'],
      today: TODAY,
      credits: [{ ...credit, period_id: '2026-05', amount_cents: 10_000_000 }],
    });
    assert.equal(evaluation.targets.find((target) => target.trace.chip.key === 'quota-bonus')?.earned_cents, 200_000);
    assert.equal(lines([{ ...credit, amount_cents: 5_000_000 }], conditioned).get('quota-bonus')?.earned_cents, 0);
  });

  test('an adjustment in another currency is converted at the rate on its period’s last day, or left out', () => {
    const evaluate = (rates: { from_currency: string; to_currency: string; effective_on: string; rate: string }[]) =>
      evaluateLines({
        plan: plan({ currency: 'USD' }),
        rep,
        deals: [won],
        periods: ['2026-04'],
        today: TODAY,
        money: { default_currency: 'USD', rates },
        credits: [{ ...credit, amount_cents: 2_000_000, currency: 'EUR' }],
      }).targets.find((target) => target.trace.chip.key === 'quota-bonus');
    const converted = evaluate([{ from_currency: 'EUR', to_currency: 'USD', effective_on: '2026-04-30', rate: '1.1' }]);
    assert.equal(converted?.earned_cents, 200_000);
    const unpriced = evaluate([]);
    assert.equal(unpriced?.earned_cents, 0);
    assert.ok(unpriced?.trace.explanation.some((sentence) => sentence.includes(`adjustment ${credit.id}`)));
  });

  test("counts in the plan's period that holds the last day of the adjustment's", () => {
    assert.equal(creditPeriodOf('2026-04', 'quarterly'), '2026-Q2');
    assert.equal(creditPeriodOf('2026-Q2', 'monthly'), '2026-06');
    assert.equal(creditPeriodOf('2026-04', 'monthly'), '2026-04');
  });
});
