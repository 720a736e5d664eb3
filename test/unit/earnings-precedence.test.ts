import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { DealSnapshot, EngineChip, LineTarget } from '../../src/domain/earnings/types.ts';
import { chipDefinitionDigest } from '../../src/domain/plans/digests.ts';
import { planDocument as planDocumentOf } from '../../src/domain/plans/document/model.ts';
import { readPlanFile, validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import type { PlanDefinition } from '../../src/domain/plans/types.ts';
import { deal, plan, rep, testId } from '../factories/earnings.ts';
import { planDocument } from '../factories/plans.ts';
import { assertTargetTracesValid } from '../helpers/earningTraceSchema.ts';
import { tableRows, workedExamples } from '../helpers/workedExamples.ts';

// Rule precedence (docs/plan-features.md, Rule precedence): a specific chip replaces a general one on its deals.

const section = workedExamples('plan-features.md');
const cents = (money: string) => Math.round(Number(money.replaceAll(',', '')) * 100);

function pagePlan(): PlanDefinition {
  const read = readPlanFile(section('precedence'));
  assert.ok(read.ok, JSON.stringify(read.ok ? null : read.problems));
  return read.plan;
}

function engineChips(definition: PlanDefinition): EngineChip[] {
  return definition.chips.map((each, index) => ({ ...each, id: testId('chip', 50 + index), version: '1' }));
}

function lines(chips: EngineChip[], deals: DealSnapshot[]): LineTarget[] {
  const evaluation = evaluateLines({
    plan: plan({ period: 'quarterly', chips }),
    rep,
    deals,
    periods: [],
    today: '2026-04-25',
  });
  assert.deepEqual(evaluation.problems, []);
  assertTargetTracesValid(evaluation.targets);
  return evaluation.targets;
}

const regional = (n: number, region: string, day: string) =>
  deal(n, { amount_cents: 1_000_000, close_date: day, won_at: `${day}T12:00:00.000Z`, custom: { region } });

describe('rule precedence', () => {
  test('the worked example: the page’s plan pays each deal the page’s figures', () => {
    const chips = engineChips(pagePlan());
    const rows = tableRows(section('precedence-figures'));
    const deals = rows.map(([, region], index) => regional(index + 1, region ?? '', `2026-02-0${index + 1}`));
    const targets = lines(chips, deals);
    const of = (chip: EngineChip, subject: DealSnapshot) =>
      targets.find((target) => target.line.chip_id === chip.id && target.line.deal_id === subject.id)?.earned_cents;
    const [general, specific] = chips as [EngineChip, EngineChip];
    assert.deepEqual(
      deals.map((each) => [of(general, each), of(specific, each)]),
      rows.map((cells) => [cents(cells[2] ?? ''), cents(cells[3] ?? '')]),
    );
  });

  test('the replaced line says which rule replaced it, after its condition', () => {
    const chips = engineChips(pagePlan());
    const emea = regional(1, 'EMEA', '2026-02-01');
    const line = lines(chips, [emea]).find((target) => target.line.chip_id === chips[0]?.id);
    assert.ok(line);
    assert.equal(line.earned_cents, 0);
    assert.ok(
      line.trace.explanation.includes(
        "Rule Default rate (default-rate) is replaced by rule EMEA rate (emea-rate) for this deal: the deal meets emea-rate's condition, so default-rate does not apply to it and does not count it.",
      ),
      line.trace.explanation.join('\n'),
    );
  });

  test('a replaced tier chip does not count the deals taken from it', () => {
    const tiers = [
      { up_to_cents: 1_500_000, rate_bps: 100 },
      { up_to_cents: null, rate_bps: 1000 },
    ];
    const chips: EngineChip[] = [
      {
        key: 'tiers',
        name: 'Tiers',
        kind: 'tiered_commission',
        when: null,
        params: { mode: 'marginal', tiers },
        id: testId('chip', 60),
        version: '1',
      },
      {
        key: 'emea',
        name: 'EMEA',
        kind: 'flat',
        when: { field: 'custom.region', op: 'eq', value: 'EMEA' },
        params: { amount_cents: 5_000, replaces: ['tiers'] },
        id: testId('chip', 61),
        version: '1',
      },
    ];
    // The EMEA deal first: taken from the tiers, so the APAC deal climbs from zero, 10,000.00 at 1%.
    const targets = lines(chips, [regional(1, 'EMEA', '2026-02-01'), regional(2, 'APAC', '2026-02-02')]);
    const tierLines = targets.filter((target) => target.line.chip_id === testId('chip', 60));
    assert.deepEqual(
      tierLines.map((target) => target.earned_cents),
      [0, 10_000],
    );
  });

  test('a replaced chip’s version reads the conditions of the chips replacing it', () => {
    const definition = pagePlan();
    const general = definition.chips[0];
    assert.ok(general);
    const widened: PlanDefinition = {
      ...definition,
      chips: definition.chips.map((each) =>
        each.key === 'emea-rate'
          ? { ...each, when: { field: 'custom.region', op: 'in', value: ['EMEA', 'APAC'] } }
          : each,
      ),
    };
    assert.notEqual(chipDefinitionDigest(definition, general), chipDefinitionDigest(widened, general));
    const alone: PlanDefinition = { ...definition, chips: [general] };
    assert.notEqual(chipDefinitionDigest(definition, general), chipDefinitionDigest(alone, general));
  });

  test('the plan document says what replaces what', () => {
    const document = planDocumentOf({
      plan: pagePlan(),
      plan_id: 'plan_01kjsj7s80fmtryrzh7j1q721q',
      version_id: 'pv_01kn40wx00ekj8fq0eg5srs2ry',
      version_number: 1,
      applied_at: new Date('2026-05-04T10:00:00Z'),
      currency: 'USD',
      won_stage: 'closed_won',
    });
    const [general, specific] = document.chips;
    assert.ok(specific?.pays.endsWith('On these deals it replaces Default rate, which then pays nothing on them.'));
    assert.match(
      general?.applies_when ?? '',
      /^Every deal, except EMEA rate's deals \(.+\): there that chip pays instead$/,
    );
  });
});

describe('the plan file', () => {
  const file = (replaces: unknown, when: unknown = { field: 'custom.region', op: 'eq', value: 'EMEA' }) =>
    planDocument({
      chips: [
        { key: 'default-rate', name: 'Default', kind: 'commission', rate_bps: 800 },
        { key: 'bonus', name: 'Bonus', kind: 'attainment_bonus', threshold_pct: 100, amount_cents: 100 },
        { key: 'emea-rate', name: 'EMEA', kind: 'commission', rate_bps: 1000, when, replaces },
      ],
    });
  const paths = (document: unknown) => {
    const result = validatePlanDocument(document);
    return result.ok ? [] : result.problems.map((problem) => `${problem.path}: ${problem.message}`);
  };

  test('replaces is kept on the replacing chip', () => {
    const result = validatePlanDocument(file(['default-rate']));
    assert.ok(result.ok, JSON.stringify(result.ok ? null : result.problems));
    assert.deepEqual((result.plan.chips[2]?.params as { replaces?: string[] } | undefined)?.replaces, ['default-rate']);
  });

  test('an unknown key, itself, another kind and a replacing chip without when are refused with their paths', () => {
    assert.ok(paths(file(['nope'])).some((line) => line.startsWith('chips[2].replaces[0]: names no chip')));
    assert.ok(
      paths(file(['emea-rate'])).some((line) => line.startsWith('chips[2].replaces[0]: a chip cannot replace itself')),
    );
    assert.ok(paths(file(['bonus'])).some((line) => line.startsWith('chips[2].replaces[0]: only a commission')));
    assert.ok(
      paths(file(['default-rate'], null)).some((line) => line.startsWith('chips[2].replaces: a chip that replaces')),
    );
  });
});
