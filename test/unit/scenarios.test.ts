import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import {
  type ActualRow,
  bandOf,
  draftEnginePlan,
  periodsInSpan,
  scenarioOfRep,
  scenarioTargets,
  summariseScenario,
} from '../../src/domain/earnings/scenario.ts';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import { chipDefinitionDigest } from '../../src/domain/plans/digests.ts';
import { readPlanFile } from '../../src/domain/plans/planFile.ts';
import { deal, otherRep, rep, testId } from '../factories/earnings.ts';

// Plan scenarios (docs/scenarios.md) on the worked example of product.md section 10: the core AE plan file, and a
// draft of it whose base rate is 12% instead of 10%.

const coreFile = readFileSync(new URL('../../examples/plans/core-ae.yaml', import.meta.url), 'utf8');
const draftFile = coreFile.replace('rate_bps: 1000', 'rate_bps: 1200');

function definitionOf(text: string) {
  const read = readPlanFile(text);
  if (!read.ok) throw new Error(JSON.stringify(read.problems));
  return read.plan;
}

const identity = {
  plan_id: testId('plan', 1),
  version_id: 'scenario',
  version_number: 2,
  chips: new Map<string, { id: string; version: number; definition_digest: string }>(),
  newChipId: (key: string) => `scenario-chip-${key}`,
};

const dealA = deal(1, {
  external_id: 'opp-1042',
  amount_cents: 6_000_000,
  close_date: '2026-04-10',
  won_at: '2026-04-10T09:12:00.000Z',
  custom: { region: 'EMEA' },
});
const dealB = deal(2, {
  external_id: 'opp-1043',
  amount_cents: 5_000_000,
  close_date: '2026-04-20',
  won_at: '2026-04-20T16:30:12.456Z',
  custom: { region: 'NA', new_logo: true },
});
// Outside the span: never counted.
const dealC = deal(3, {
  external_id: 'opp-1044',
  amount_cents: 9_000_000,
  close_date: '2026-06-02',
  won_at: '2026-06-02T10:00:00.000Z',
  custom: { region: 'NA' },
});

// What the current plan booked in April (the worked example's rows): base 6,000 + 5,000, accelerator 500, new logo
// 500, quota bonus 2,000.
const actualApril: ActualRow[] = [
  { period_id: '2026-04', chip_key: 'base', amount_cents: 600_000 },
  { period_id: '2026-04', chip_key: 'base', amount_cents: 500_000 },
  { period_id: '2026-04', chip_key: 'accelerator', amount_cents: 50_000 },
  { period_id: '2026-04', chip_key: 'new-logo', amount_cents: 50_000 },
  { period_id: '2026-04', chip_key: 'quota-bonus', amount_cents: 200_000 },
];

const span = { from: '2026-03', to: '2026-05' };

describe('plan scenarios', () => {
  test('a span of months holds the plan periods wholly inside it', () => {
    assert.deepEqual(periodsInSpan(span, 'monthly'), ['2026-03', '2026-04', '2026-05']);
    assert.deepEqual(periodsInSpan({ from: '2025-10', to: '2026-09' }, 'quarterly'), [
      '2025-Q4',
      '2026-Q1',
      '2026-Q2',
      '2026-Q3',
    ]);
    assert.deepEqual(periodsInSpan({ from: '2025-11', to: '2026-03' }, 'quarterly'), ['2026-Q1']);
  });

  test("the scenario's lines are the engine's own for the draft version", () => {
    const plan = draftEnginePlan(definitionOf(draftFile), identity);
    const input = { plan, rep, deals: [dealA, dealB, dealC], span, today: '2026-11-30' };
    const { targets } = scenarioTargets(input);
    const applied = evaluateLines({
      plan,
      rep,
      deals: [dealA, dealB],
      periods: ['2026-03', '2026-04', '2026-05'],
      today: '2026-11-30',
    });
    assert.deepEqual(targets, applied.targets);
  });

  test("a draft's draw is settled over every period of the span, from the balance carried into it", () => {
    const withDraw = definitionOf(`${draftFile}\ndraw:\n  amount_cents: 300000\n  recoverable: true\n`);
    const plan = draftEnginePlan(withDraw, identity);
    const input = { plan, rep, deals: [dealA, dealB, dealC], span, today: '2026-11-30', actual: actualApril };
    // March and May earn nothing: the draw advances 3,000.00 each; April's 16,200.00 recovers March's advance.
    const fresh = scenarioOfRep(input);
    assert.deepEqual(
      fresh.periods.map((period) => [period.period_id, period.scenario_cents]),
      [
        ['2026-03', 300_000],
        ['2026-04', 1_620_000 - 300_000],
        ['2026-05', 300_000],
      ],
    );
    assert.deepEqual(
      fresh.lines
        .filter((line) => line.chip_key.startsWith('$'))
        .map((line) => [line.chip_key, line.period_id, line.cents]),
      [
        ['$draw', '2026-03', 300_000],
        ['$draw-recovery', '2026-04', -300_000],
        ['$draw', '2026-05', 300_000],
      ],
    );
    // 1,000.00 still to recover before March is recovered in April too.
    const carried = scenarioOfRep({ ...input, drawOpeningCents: 100_000 });
    assert.equal(carried.scenario_cents, fresh.scenario_cents - 100_000);
    // Each draw line is the engine's, with its trace.
    const line = scenarioTargets(input).targets.find(
      (target) => target.period_id === '2026-04' && target.earned_cents < 0,
    );
    assert.equal(line?.trace.steps[0]?.type, 'draw');
  });

  test('the current plan as a draft changes nothing; a 12% base moves the base chip only', () => {
    const same = scenarioOfRep({
      plan: draftEnginePlan(definitionOf(coreFile), identity),
      rep,
      deals: [dealA, dealB, dealC],
      span,
      today: '2026-11-30',
      actual: actualApril,
    });
    assert.equal(same.actual_cents, 1_400_000);
    assert.equal(same.scenario_cents, 1_400_000);
    assert.equal(same.difference_cents, 0);
    assert.deepEqual(same.chips, []);

    const draft = scenarioOfRep({
      plan: draftEnginePlan(definitionOf(draftFile), identity),
      rep,
      deals: [dealA, dealB, dealC],
      span,
      today: '2026-11-30',
      actual: actualApril,
    });
    // 12% of 110,000.00 is 13,200.00 instead of 11,000.00.
    assert.equal(draft.scenario_cents, 1_620_000);
    assert.equal(draft.difference_cents, 220_000);
    assert.deepEqual(draft.chips, [
      { chip_key: 'base', actual_cents: 1_100_000, scenario_cents: 1_320_000, difference_cents: 220_000 },
    ]);
    const april = draft.periods.find((period) => period.period_id === '2026-04');
    assert.deepEqual(april, {
      period_id: '2026-04',
      actual_cents: 1_400_000,
      scenario_cents: 1_620_000,
      difference_cents: 220_000,
      booked_cents: 11_000_000,
      quota_cents: 10_000_000,
      attainment_bps: 11_000,
    });
    // Three months of quota, 110,000.00 booked: 36.67%.
    assert.equal(draft.attainment_bps, 3667);
    assert.equal(draft.lines.length, 5);
  });

  test('the summary adds the reps up, with cost of sales and who is better or worse off', () => {
    const plan = draftEnginePlan(definitionOf(draftFile), identity);
    const better = scenarioOfRep({ plan, rep, deals: [dealA, dealB], span, today: '2026-11-30', actual: actualApril });
    // The other rep was paid 1,000.00 in March by a chip the draft drops, and booked nothing.
    const worse = scenarioOfRep({
      plan,
      rep: otherRep,
      deals: [],
      span,
      today: '2026-11-30',
      actual: [{ period_id: '2026-03', chip_key: 'retired-spiff', amount_cents: 100_000 }],
    });
    assert.deepEqual(worse.chips, [
      { chip_key: 'retired-spiff', actual_cents: 100_000, scenario_cents: 0, difference_cents: -100_000 },
    ]);
    const summary = summariseScenario([better, worse]);
    assert.equal(summary.actual_cents, 1_500_000);
    assert.equal(summary.scenario_cents, 1_620_000);
    assert.equal(summary.difference_cents, 120_000);
    assert.equal(summary.booked_cents, 11_000_000);
    // 15,000.00 ÷ 110,000.00 and 16,200.00 ÷ 110,000.00.
    assert.equal(summary.actual_cost_of_sales_bps, 1364);
    assert.equal(summary.scenario_cost_of_sales_bps, 1473);
    assert.deepEqual(summary.distribution.largest_gain, { user_external_id: 'rep-017', difference_cents: 220_000 });
    assert.deepEqual(summary.distribution.largest_loss, { user_external_id: 'rep-018', difference_cents: -100_000 });
    assert.equal(summary.distribution.better_off, 1);
    assert.equal(summary.distribution.worse_off, 1);
    assert.equal(summary.distribution.gained_cents, 220_000);
    assert.equal(summary.distribution.lost_cents, -100_000);
    assert.deepEqual(
      summary.periods.map((period) => [period.period_id, period.difference_cents]),
      [
        ['2026-03', -100_000],
        ['2026-04', 220_000],
        ['2026-05', 0],
      ],
    );
    // 2,200 on 14,000 is 15.7% up; losing everything is more than 20% down.
    assert.equal(bandOf(better), 'up_5_to_20_pct');
    assert.equal(bandOf(worse), 'down_more_than_20_pct');
  });

  test("a draft of an existing plan keeps its chips' ids by key, raising the version of a changed one", () => {
    const existing = draftEnginePlan(definitionOf(coreFile), identity);
    const digests = new Map(
      definitionOf(coreFile).chips.map((chip, index) => [
        chip.key,
        { id: testId('chip', index + 1), version: 3, definition_digest: digestOf(coreFile, chip.key) },
      ]),
    );
    const draft = draftEnginePlan(definitionOf(draftFile), { ...identity, chips: digests });
    assert.deepEqual(
      draft.chips.map((chip) => [chip.key, chip.id, chip.version]),
      [
        ['base', testId('chip', 1), '4'],
        ['accelerator', testId('chip', 2), '3'],
        ['new-logo', testId('chip', 3), '3'],
        ['quota-bonus', testId('chip', 4), '3'],
      ],
    );
    assert.equal(existing.chips[0]?.id, 'scenario-chip-base');
  });
});

function digestOf(text: string, key: string): string {
  const definition = definitionOf(text);
  const found = definition.chips.find((chip) => chip.key === key);
  if (!found) throw new Error(key);
  return chipDefinitionDigest(definition, found);
}
