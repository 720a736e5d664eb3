import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { EngineChip, LineTarget } from '../../src/domain/earnings/types.ts';
import { planDocument as documentOf } from '../../src/domain/plans/document/model.ts';
import { readPlanFile, validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import { deal, plan, rep, testId } from '../factories/earnings.ts';
import { planDocument } from '../factories/plans.ts';
import { assertTargetTracesValid } from '../helpers/earningTraceSchema.ts';
import { tableRows, workedExamples } from '../helpers/workedExamples.ts';

// Rates finer than a basis point (docs/plan-features.md): a target-based rate of 133.33 bps, held as hundredths of a
// basis point and applied exactly in integers, the line rounded once.

const section = workedExamples('plan-features.md');
const cents = (money: string) => Math.round(Number(money.replaceAll('*', '').replaceAll(',', '')) * 100);

function pagePlan() {
  const read = readPlanFile(section('fine-rate'));
  assert.ok(read.ok, JSON.stringify(read.ok ? null : read.problems));
  return read.plan;
}

function linesOf(amounts: number[], rateBps?: number): LineTarget[] {
  const definition = pagePlan();
  const chips = definition.chips.map((each, index) => ({
    ...each,
    ...(rateBps === undefined ? {} : { params: { ...each.params, rate_bps: rateBps } }),
    id: testId('chip', 50 + index),
    version: '1',
  })) as EngineChip[];
  const subject = amounts.map((amount, index) =>
    deal(index + 1, {
      amount_cents: amount,
      close_date: `2026-02-0${index + 1}`,
      won_at: `2026-02-0${index + 1}T12:00:00.000Z`,
    }),
  );
  const evaluation = evaluateLines({
    plan: plan({ period: 'quarterly', quota_cents: definition.quota_cents, chips }),
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

describe('docs/plan-features.md, Rates finer than a basis point', () => {
  test('the worked example: each deal pays the page’s figure, 9,999.75 in all', () => {
    const rows = tableRows(section('fine-rate-figures'));
    const dealRows = rows.filter((cells) => cells[0] !== '');
    const lines = linesOf(dealRows.map((cells) => cents(cells[1] ?? '')));
    assert.deepEqual(
      lines.map((line) => line.earned_cents),
      dealRows.map((cells) => cents(cells[3] ?? '')),
    );
    assert.deepEqual(
      lines.map((line) => line.trace.steps.find((step) => step.type === 'rounding')?.exact_cents),
      ['164604.924774', '399990', '435380.075226'],
    );
    const total = rows.find((cells) => cells[0] === '');
    assert.equal(
      lines.reduce((sum, line) => sum + line.earned_cents, 0),
      cents(total?.[3] ?? ''),
    );
  });

  test('the trace gives the rate as written and the sentence the exact product', () => {
    const [line] = linesOf([12_345_678]);
    const rate = line?.trace.steps.find((step) => step.type === 'rate');
    assert.equal(rate?.type === 'rate' ? rate.rate_bps : null, 133.33);
    assert.ok(line?.trace.explanation.includes('1.3333% of 123,456.78 = 1,646.04924774'));
    assert.equal(linesOf([12_345_678], 133)[0]?.earned_cents, 164_198);
  });

  test('the target paid exactly at quota, as the page says, by a table of amounts to 100% of quota', () => {
    const table = {
      ...pagePlan().chips[0],
      kind: 'tiered_commission',
      params: { mode: 'marginal', tiers: [{ up_to_pct: 100, amount_cents: 1_000_000 }] },
      id: testId('chip', 60),
      version: '1',
    } as EngineChip;
    const rows = tableRows(section('fine-rate-figures')).filter((cells) => cells[0] !== '');
    const subject = rows.map((cells, index) =>
      deal(index + 1, { amount_cents: cents(cells[1] ?? ''), close_date: `2026-02-0${index + 1}` }),
    );
    const evaluation = evaluateLines({
      plan: plan({ period: 'quarterly', quota_cents: pagePlan().quota_cents, chips: [table] }),
      rep,
      deals: subject,
      periods: [],
      today: '2026-04-25',
    });
    assert.deepEqual(
      evaluation.targets.map((target) => target.earned_cents),
      [164_609, 400_000, 435_391],
    );
  });

  test('the plan document names the rate to the hundredth of a basis point', () => {
    const document = documentOf({
      plan: pagePlan(),
      plan_id: 'plan_01kjsj7s80fmtryrzh7j1q721q',
      version_id: 'pv_01kn40wx00ekj8fq0eg5srs2ry',
      version_number: 1,
      applied_at: new Date('2026-01-04T10:00:00Z'),
      currency: 'USD',
      won_stage: 'closed_won',
    });
    assert.equal(document.chips[0]?.pays, '1.3333% of the deal amount.');
  });
});

describe('the plan file', () => {
  const file = (rateBps: number) =>
    planDocument({ chips: [{ key: 'base', name: 'Base', kind: 'commission', rate_bps: rateBps }] });

  test('a rate with three decimals is refused with its path', () => {
    const result = validatePlanDocument(file(133.333));
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.problems.some((problem) => problem.path === 'chips[0].rate_bps'));
  });

  test('a whole rate normalises as before; a fine rate is kept as written', () => {
    const whole = validatePlanDocument(file(1000));
    const fine = validatePlanDocument(file(133.33));
    assert.ok(whole.ok && fine.ok);
    assert.deepEqual(whole.plan.chips[0]?.params, { rate_bps: 1000, base: 'amount_cents' });
    assert.deepEqual(fine.plan.chips[0]?.params, { rate_bps: 133.33, base: 'amount_cents' });
  });
});
