import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { checkPlanForEngine } from '../../src/domain/earnings/chipRules.ts';
import { type Evaluation, evaluateLines } from '../../src/domain/earnings/targets.ts';
import type {
  DealSnapshot,
  EngineChip,
  EnginePlanVersion,
  LineTarget,
  TraceStep,
} from '../../src/domain/earnings/types.ts';
import { chip, deal, otherRep, plan, rep } from '../factories/earnings.ts';
import { assertTargetTracesValid } from '../helpers/earningTraceSchema.ts';

// Hand-computed cases for each chip kind. Every evaluation's traces are checked against the contract.

function evaluate(
  chips: EngineChip[],
  deals: DealSnapshot[],
  options: { plan?: Partial<EnginePlanVersion>; periods?: string[]; today?: string } = {},
): Evaluation {
  const evaluation = evaluateLines({
    plan: plan({ chips, ...options.plan }),
    rep,
    deals,
    periods: options.periods ?? [],
    today: options.today ?? '2026-04-25',
  });
  assertTargetTracesValid(evaluation.targets);
  return evaluation;
}

function lineOf(evaluation: Evaluation, dealOrPeriod: DealSnapshot | string, chipIndex = 0): LineTarget {
  const found = evaluation.targets.filter((target) =>
    typeof dealOrPeriod === 'string' ? target.line.period_id === dealOrPeriod : target.line.deal_id === dealOrPeriod.id,
  )[chipIndex];
  assert.ok(found, 'no such line');
  return found;
}

/** The deals a cumulative or threshold step names, in counting order, with the running total after each. */
function counted(...deals: DealSnapshot[]) {
  let running = 0;
  return deals.map((d) => {
    running += d.amount_cents ?? 0;
    return {
      id: d.id,
      external_id: d.external_id,
      amount_cents: d.amount_cents ?? 0,
      close_date: d.close_date,
      running_total_cents: running,
    };
  });
}

function stepsOf<Type extends TraceStep['type']>(target: LineTarget, type: Type): (TraceStep & { type: Type })[] {
  return target.trace.steps.filter((step): step is TraceStep & { type: Type } => step.type === type);
}

const commission = (params: Record<string, unknown>, when: EngineChip['when'] = null) =>
  chip(10, { key: 'base', name: 'Base', kind: 'commission', when, params });
const flat = (amount_cents: number, when: EngineChip['when'] = null) =>
  chip(11, { key: 'spiff', name: 'SPIFF', kind: 'flat', when, params: { amount_cents } });
const tiered = (mode: 'marginal' | 'retroactive', tiers: Record<string, number | null>[]) =>
  chip(12, {
    key: 'tiers',
    name: 'Tiers',
    kind: 'tiered_commission',
    when: null,
    params: { mode, tiers },
  });
const bonus = (threshold_pct: number, amount_cents: number, when: EngineChip['when'] = null) =>
  chip(13, { key: 'bonus', name: 'Bonus', kind: 'attainment_bonus', when, params: { threshold_pct, amount_cents } });

describe('commission', () => {
  test('10% of 50,000.00 is 5,000.00, earned when the deal is won', () => {
    const won = deal(1, { amount_cents: 5_000_000 });
    const line = lineOf(evaluate([commission({ rate_bps: 1000 })], [won]), won);
    assert.equal(line.earned_cents, 500_000);
    assert.equal(line.projected_cents, 0);
    assert.equal(line.period_id, '2026-04');
    assert.deepEqual(stepsOf(line, 'rate'), [
      { type: 'rate', rate_bps: 1000, base_cents: 5_000_000, exact_cents: '500000' },
    ]);
    assert.ok(line.trace.explanation.includes('10.00% of 50,000.00 = 5,000.00'));
  });

  test.each<[number, number, number, string]>([
    [12_345, 1234, 1523, '1523.373'],
    [1_001, 50, 5, '5.005'],
    [1, 5000, 1, '0.5'],
    [3, 5000, 2, '1.5'],
    [99, 1, 0, '0.0099'],
  ])('the exact amount is rounded once, half away from zero: %i cents at %i bps', (amount, rate, expected, exact) => {
    const won = deal(1, { amount_cents: amount });
    const line = lineOf(evaluate([commission({ rate_bps: rate })], [won]), won);
    assert.equal(line.earned_cents, expected, `${rate} bps of ${amount}`);
    assert.deepEqual(stepsOf(line, 'rounding'), [
      { type: 'rounding', exact_cents: exact, rounded_cents: expected, rule: 'half away from zero' },
    ]);
  });

  test('a negative base rounds away from zero too', () => {
    const credit = deal(1, { custom: { adjustment: -3 } });
    const line = lineOf(evaluate([commission({ rate_bps: 5000, base: 'custom.adjustment' })], [credit]), credit);
    assert.equal(line.earned_cents, -2, '50% of -0.03 is -0.015, which rounds to -0.02');
  });

  test('base custom.<field> takes the base from a custom field, and a missing one earns nothing', () => {
    const withAcv = deal(1, { amount_cents: 9_999_999, custom: { acv: 2_000_000 } });
    const withoutAcv = deal(2, { custom: { acv: '20,000' } });
    const evaluation = evaluate([commission({ rate_bps: 250, base: 'custom.acv' })], [withAcv, withoutAcv]);
    assert.equal(lineOf(evaluation, withAcv).earned_cents, 50_000);
    assert.deepEqual(stepsOf(lineOf(evaluation, withAcv), 'base'), [
      { type: 'base', field: 'custom.acv', amount_cents: 2_000_000 },
    ]);
    assert.equal(lineOf(evaluation, withoutAcv).earned_cents, 0);
    assert.ok(
      lineOf(evaluation, withoutAcv).trace.explanation.includes(
        'The deal has no custom.acv in whole cents, so the base is 0.00.',
      ),
    );
  });

  test('an open deal is projected, in the period of its close date or else the current one', () => {
    const dated = deal(1, { status: 'open', stage: 'proposal', won_at: null, close_date: '2026-06-03' });
    const undated = deal(2, { status: 'open', stage: 'proposal', won_at: null, close_date: null });
    const evaluation = evaluate([commission({ rate_bps: 1000 })], [dated, undated], { today: '2026-04-25' });
    assert.deepEqual(
      [lineOf(evaluation, dated), lineOf(evaluation, undated)].map((line) => [
        line.earned_cents,
        line.projected_cents,
        line.period_id,
      ]),
      [
        [0, 100_000, '2026-06'],
        [0, 100_000, '2026-04'],
      ],
    );
  });

  test('a won deal without a close date counts in the period it was won in', () => {
    const won = deal(1, { close_date: null, won_at: '2026-05-31T23:59:59.999Z' });
    assert.equal(lineOf(evaluate([commission({ rate_bps: 1000 })], [won]), won).period_id, '2026-05');
    assert.equal(
      lineOf(evaluate([commission({ rate_bps: 1000 })], [won], { plan: { period: 'quarterly' } }), won).period_id,
      '2026-Q2',
    );
  });

  test('a lost or deleted deal, a deal of another rep and a rep outside the plan earn nothing', () => {
    const lost = deal(1, { status: 'lost', stage: 'closed_lost', won_at: null });
    const deleted = deal(2, { status: 'deleted' });
    const theirs = deal(3, { owner_external_id: otherRep.external_id });
    const unowned = deal(4, { owner_external_id: null });
    const evaluation = evaluate([commission({ rate_bps: 1000 })], [lost, deleted, theirs, unowned]);
    for (const target of evaluation.targets) assert.deepEqual([target.earned_cents, target.projected_cents], [0, 0]);
    assert.deepEqual(lineOf(evaluation, theirs).trace.explanation, [
      'Deal opp-3 is owned by rep-018, not by rep-017, so this line earns nothing.',
    ]);
    assert.deepEqual(lineOf(evaluation, lost).trace.explanation, ['Deal opp-1 is lost, so it earns nothing.']);

    const mine = deal(5);
    const outside = evaluate([commission({ rate_bps: 1000 })], [mine], { plan: { assignees: ['rep-099'] } });
    assert.equal(lineOf(outside, mine).earned_cents, 0);
    assert.ok(lineOf(outside, mine).trace.explanation[0]?.includes('is not assigned to plan core-ae'));
  });

  test('the chip applies only when its condition holds, and the trace records the condition', () => {
    const emea = deal(1, { custom: { region: 'EMEA' } });
    const apac = deal(2, { custom: { region: 'APAC' } });
    const when: EngineChip['when'] = { field: 'custom.region', op: 'in', value: ['EMEA', 'NA'] };
    const evaluation = evaluate([commission({ rate_bps: 1000 }, when)], [emea, apac]);
    assert.equal(lineOf(evaluation, emea).earned_cents, 100_000);
    assert.equal(lineOf(evaluation, apac).earned_cents, 0);
    assert.deepEqual(stepsOf(lineOf(evaluation, apac), 'condition'), [
      { type: 'condition', expression: when, inputs: { 'custom.region': 'APAC' }, result: false },
    ]);
    assert.ok(
      lineOf(evaluation, apac).trace.explanation.includes(
        'custom.region is APAC, which is not in [EMEA, NA], so the chip does not apply.',
      ),
    );
  });
});

describe('flat', () => {
  test('pays its amount per matching deal, whatever the deal amount', () => {
    const newLogo = deal(1, { amount_cents: 1, custom: { new_logo: true } });
    const renewal = deal(2, { custom: { new_logo: false } });
    const evaluation = evaluate(
      [flat(50_000, { field: 'custom.new_logo', op: 'eq', value: true })],
      [newLogo, renewal],
    );
    assert.equal(lineOf(evaluation, newLogo).earned_cents, 50_000);
    assert.deepEqual(stepsOf(lineOf(evaluation, newLogo), 'flat'), [{ type: 'flat', amount_cents: 50_000 }]);
    assert.equal(lineOf(evaluation, renewal).earned_cents, 0);
  });
});

describe('tiered commission, marginal', () => {
  // 0% up to 100,000.00, 5% up to 200,000.00, 10% above.
  const centsBands = [
    { up_to_cents: 10_000_000, rate_bps: 0 },
    { up_to_cents: 20_000_000, rate_bps: 500 },
    { up_to_cents: null, rate_bps: 1000 },
  ];
  const pctBands = [
    { up_to_pct: 100, rate_bps: 0 },
    { up_to_pct: 200, rate_bps: 500 },
    { up_to_pct: null, rate_bps: 1000 },
  ];
  const won = (n: number, amount: number, day: string) =>
    deal(n, { amount_cents: amount, close_date: `2026-04-${day}`, won_at: `2026-04-${day}T12:00:00.000Z` });

  test('a deal ending exactly at a band edge stays in the lower band', () => {
    const first = won(1, 10_000_000, '01');
    const line = lineOf(evaluate([tiered('marginal', centsBands)], [first]), first);
    assert.equal(line.earned_cents, 0);
    assert.deepEqual(stepsOf(line, 'tier'), [
      {
        type: 'tier',
        band: 1,
        from_cents: 0,
        to_cents: 10_000_000,
        slice_cents: 10_000_000,
        rate_bps: 0,
        exact_cents: '0',
      },
    ]);
  });

  test('one cent over the edge falls in the next band, and is rounded only at the end', () => {
    const first = won(1, 10_000_000, '01');
    const cent = won(2, 1, '02');
    const line = lineOf(evaluate([tiered('marginal', centsBands)], [first, cent]), cent);
    assert.deepEqual(stepsOf(line, 'cumulative'), [
      {
        type: 'cumulative',
        prior_won_cents: 10_000_000,
        period_won_cents: 10_000_001,
        counted_deals: counted(first, cent),
      },
    ]);
    assert.deepEqual(stepsOf(line, 'tier'), [
      {
        type: 'tier',
        band: 2,
        from_cents: 10_000_000,
        to_cents: 20_000_000,
        slice_cents: 1,
        rate_bps: 500,
        exact_cents: '0.05',
      },
    ]);
    assert.equal(line.earned_cents, 0);
  });

  test('a deal spanning several bands earns each slice at its band rate', () => {
    const first = won(1, 5_000_000, '01');
    const big = won(2, 20_000_000, '02');
    const line = lineOf(evaluate([tiered('marginal', centsBands)], [first, big]), big);
    // 50,000.00 .. 250,000.00: 50,000.00 at 0%, 100,000.00 at 5%, 50,000.00 at 10%.
    assert.deepEqual(
      stepsOf(line, 'tier').map((step) => [step.band, step.slice_cents, step.exact_cents]),
      [
        [1, 5_000_000, '0'],
        [2, 10_000_000, '500000'],
        [3, 5_000_000, '500000'],
      ],
    );
    assert.equal(line.earned_cents, 1_000_000);
    assert.ok(
      line.trace.explanation.includes(
        '0.00 + 5,000.00 + 5,000.00 = 10,000.00, rounded half away from zero to 10,000.00',
      ),
    );
  });

  test('bands in percent of quota give the same amounts as the same bands in cents', () => {
    const deals = [won(1, 5_000_000, '01'), won(2, 20_000_000, '02'), won(3, 3_333_333, '03')];
    const inCents = evaluate([tiered('marginal', centsBands)], deals);
    const inPct = evaluate([tiered('marginal', pctBands)], deals);
    assert.deepEqual(
      inPct.targets.map((target) => target.earned_cents),
      inCents.targets.map((target) => target.earned_cents),
    );
    assert.deepEqual(
      inPct.targets.map((target) => target.earned_cents),
      [0, 1_000_000, 333_333],
    );
    assert.ok(
      lineOf(inPct, deals[1] as DealSnapshot).trace.explanation.includes(
        'Band 2 (100,000.00 to 200,000.00, 200% of quota 100,000.00) takes 100,000.00 at 5.00% = 5,000.00',
      ),
    );
  });

  test('a percentage bound between two cents is rounded half away from zero to a whole cent', () => {
    const only = won(1, 6_000_000, '01');
    const line = lineOf(
      evaluate(
        [
          tiered('marginal', [
            { up_to_pct: 50, rate_bps: 0 },
            { up_to_pct: null, rate_bps: 1000 },
          ]),
        ],
        [only],
        {
          plan: { quota_cents: 10_000_001 },
        },
      ),
      only,
    );
    assert.deepEqual(
      stepsOf(line, 'tier').map((step) => [step.to_cents, step.slice_cents]),
      [
        [5_000_001, 5_000_001],
        [null, 999_999],
      ],
    );
    assert.equal(line.earned_cents, 100_000, '10% of 9,999.99 = 999.999, rounded to 1,000.00');
  });

  test('deals count in order of close date, then won time, then id', () => {
    const bands = [
      { up_to_cents: 1_000_000, rate_bps: 0 },
      { up_to_cents: null, rate_bps: 1000 },
    ];
    const closesFirst = deal(3, {
      amount_cents: 1_000_000,
      close_date: '2026-04-05',
      won_at: '2026-04-20T00:00:00.000Z',
    });
    const wonFirst = deal(2, { amount_cents: 1_000_000, close_date: '2026-04-10', won_at: '2026-04-10T09:00:00.000Z' });
    const wonLater = deal(1, { amount_cents: 1_000_000, close_date: '2026-04-10', won_at: '2026-04-10T10:00:00.000Z' });
    const tieA = deal(4, { amount_cents: 1_000_000, close_date: '2026-04-12', won_at: '2026-04-12T10:00:00.000Z' });
    const tieB = deal(5, { amount_cents: 1_000_000, close_date: '2026-04-12', won_at: '2026-04-12T10:00:00.000Z' });
    const evaluation = evaluate([tiered('marginal', bands)], [tieB, wonLater, tieA, wonFirst, closesFirst]);
    const priors = [closesFirst, wonFirst, wonLater, tieA, tieB].map(
      (d) => stepsOf(lineOf(evaluation, d), 'cumulative')[0]?.prior_won_cents,
    );
    assert.deepEqual(priors, [0, 1_000_000, 2_000_000, 3_000_000, 4_000_000]);
    assert.equal(lineOf(evaluation, closesFirst).earned_cents, 0);
    assert.equal(lineOf(evaluation, wonFirst).earned_cents, 100_000);
  });

  test('only won deals of the rep in the same period count', () => {
    const bands = [
      { up_to_cents: 1_000_000, rate_bps: 0 },
      { up_to_cents: null, rate_bps: 1000 },
    ];
    const march = deal(1, { amount_cents: 5_000_000, close_date: '2026-03-30' });
    const lost = deal(2, { amount_cents: 5_000_000, status: 'lost', won_at: null });
    const open = deal(3, { amount_cents: 5_000_000, status: 'open', won_at: null, close_date: '2026-04-01' });
    const theirs = deal(4, { amount_cents: 5_000_000, owner_external_id: otherRep.external_id });
    const april = deal(5, { amount_cents: 1_000_000, close_date: '2026-04-28' });
    const line = lineOf(evaluate([tiered('marginal', bands)], [march, lost, open, theirs, april]), april);
    assert.deepEqual(stepsOf(line, 'cumulative'), [
      { type: 'cumulative', prior_won_cents: 0, period_won_cents: 1_000_000, counted_deals: counted(april) },
    ]);
    assert.equal(line.earned_cents, 0);
  });

  test('an open deal is projected as if won next, after every deal already won', () => {
    const first = won(1, 6_000_000, '01');
    const second = won(2, 5_000_000, '28');
    const pipeline = deal(3, {
      amount_cents: 2_000_000,
      status: 'open',
      stage: 'proposal',
      won_at: null,
      close_date: '2026-04-15',
    });
    const evaluation = evaluate([tiered('marginal', pctBands)], [first, second, pipeline]);
    const line = lineOf(evaluation, pipeline);
    assert.deepEqual(stepsOf(line, 'cumulative'), [
      {
        type: 'cumulative',
        prior_won_cents: 11_000_000,
        period_won_cents: 13_000_000,
        counted_deals: counted(first, second),
      },
    ]);
    assert.deepEqual([line.earned_cents, line.projected_cents], [0, 100_000]);
    assert.equal(lineOf(evaluation, second).earned_cents, 50_000, 'an open deal does not move won deals');
  });
});

describe('tiered commission, retroactive', () => {
  const bands = [
    { up_to_pct: 100, rate_bps: 200 },
    { up_to_pct: null, rate_bps: 500 },
  ];
  const won = (n: number, amount: number) =>
    deal(n, { amount_cents: amount, close_date: `2026-04-0${n}`, won_at: `2026-04-0${n}T12:00:00.000Z` });

  test('below the edge every deal earns the first band rate', () => {
    const deals = [won(1, 6_000_000), won(2, 3_999_999)];
    const evaluation = evaluate([tiered('retroactive', bands)], deals);
    assert.deepEqual(
      evaluation.targets.map((t) => t.earned_cents),
      [120_000, 80_000],
    );
  });

  test('past 20 deals counted, a line names the deal counted before it and itself, not the whole count', () => {
    // 25 won deals of April, in close-date order (days 01..25); the attainment bonus is not among these chips.
    const deals = Array.from({ length: 25 }, (_, index) =>
      deal(index + 1, {
        amount_cents: 100_000,
        close_date: `2026-04-${String(index + 1).padStart(2, '0')}`,
        won_at: `2026-04-${String(index + 1).padStart(2, '0')}T12:00:00.000Z`,
      }),
    );
    const evaluation = evaluate([tiered('retroactive', bands)], deals);
    const all = counted(...deals);
    const tenth = stepsOf(lineOf(evaluation, deals[9] as DealSnapshot), 'cumulative')[0];
    assert.deepEqual(tenth?.counted_deals, all.slice(8, 10));
    assert.equal(tenth?.prior_won_cents, all[8]?.running_total_cents, 'the previous deal carries the prior total');
    const first = stepsOf(lineOf(evaluation, deals[0] as DealSnapshot), 'cumulative')[0];
    assert.deepEqual(first?.counted_deals, all.slice(0, 1));
    // Twenty deals counted: each line lists them all.
    const twenty = evaluate([tiered('retroactive', bands)], deals.slice(0, 20));
    const last = stepsOf(lineOf(twenty, deals[19] as DealSnapshot), 'cumulative')[0];
    assert.deepEqual(last?.counted_deals, counted(...deals.slice(0, 20)));
  });

  test('reaching the edge exactly moves every deal of the period, earlier ones included, to the higher rate', () => {
    const deals = [won(1, 6_000_000), won(2, 4_000_000)];
    const evaluation = evaluate([tiered('retroactive', bands)], deals);
    assert.deepEqual(
      evaluation.targets.map((t) => t.earned_cents),
      [300_000, 200_000],
    );
    const first = lineOf(evaluation, deals[0] as DealSnapshot);
    assert.deepEqual(stepsOf(first, 'cumulative'), [
      {
        type: 'cumulative',
        prior_won_cents: 0,
        period_won_cents: 10_000_000,
        counted_deals: counted(...(deals as DealSnapshot[])),
      },
    ]);
    assert.deepEqual(stepsOf(first, 'tier'), [
      {
        type: 'tier',
        band: 2,
        from_cents: 10_000_000,
        to_cents: null,
        slice_cents: 6_000_000,
        rate_bps: 500,
        exact_cents: '300000',
      },
    ]);
  });

  test('the worked example in retroactive mode: 110,000.00 reached, so A earns 3,000.00 and B 2,500.00', () => {
    const deals = [won(1, 6_000_000), won(2, 5_000_000)];
    assert.deepEqual(
      evaluate([tiered('retroactive', bands)], deals).targets.map((t) => t.earned_cents),
      [300_000, 250_000],
    );
  });

  test('an open deal projects at the rate the period would reach with it', () => {
    const pipeline = deal(3, { amount_cents: 4_000_000, status: 'open', stage: 'proposal', won_at: null });
    const evaluation = evaluate([tiered('retroactive', bands)], [won(1, 6_000_000), pipeline]);
    assert.equal(lineOf(evaluation, pipeline).projected_cents, 200_000);
    assert.equal(evaluation.targets[0]?.earned_cents, 120_000, 'the won deal stays at 2% until the open one is won');
  });
});

describe('attainment bonus', () => {
  const won = (n: number, amount: number, custom: Record<string, unknown> = {}) =>
    deal(n, { amount_cents: amount, close_date: `2026-04-1${n}`, custom });

  test('is paid when the won amount reaches the threshold exactly, as a period line without a deal', () => {
    const deals = [won(1, 6_000_000), won(2, 4_000_000)];
    const evaluation = evaluate([bonus(100, 200_000)], deals, { periods: ['2026-04'] });
    assert.equal(evaluation.targets.length, 1);
    const line = lineOf(evaluation, '2026-04');
    assert.deepEqual([line.line.deal_id, line.line.period_id, line.earned_cents], [null, '2026-04', 200_000]);
    assert.equal(line.trace.deal, null);
    assert.deepEqual(stepsOf(line, 'threshold'), [
      {
        type: 'threshold',
        attained_cents: 10_000_000,
        quota_cents: 10_000_000,
        threshold_pct: 100,
        reached: true,
        counted_deals: counted(...deals),
      },
    ]);
  });

  test('is not paid one cent below the threshold', () => {
    const evaluation = evaluate([bonus(100, 200_000)], [won(1, 6_000_000), won(2, 3_999_999)], {
      periods: ['2026-04'],
    });
    assert.equal(lineOf(evaluation, '2026-04').earned_cents, 0);
    assert.ok(lineOf(evaluation, '2026-04').trace.explanation[0]?.endsWith('the threshold of 100% is not reached.'));
  });

  test('a fractional threshold is compared exactly', () => {
    const evaluation = evaluate([bonus(87.5, 100_000)], [won(1, 8_750_000)], { periods: ['2026-04', '2026-05'] });
    assert.equal(lineOf(evaluation, '2026-04').earned_cents, 100_000);
    assert.equal(lineOf(evaluation, '2026-05').earned_cents, 0, 'nothing won in May');
    const below = evaluate([bonus(87.5, 100_000)], [won(1, 8_749_999)], { periods: ['2026-04'] });
    assert.equal(lineOf(below, '2026-04').earned_cents, 0);
  });

  test('with a condition, only the won deals that meet it count toward attainment', () => {
    const deals = [won(1, 6_000_000, { region: 'NA' }), won(2, 5_000_000, { region: 'APAC' })];
    const evaluation = evaluate([bonus(100, 200_000, { field: 'custom.region', op: 'eq', value: 'NA' })], deals, {
      periods: ['2026-04'],
    });
    assert.deepEqual(stepsOf(lineOf(evaluation, '2026-04'), 'threshold')[0]?.attained_cents, 6_000_000);
  });
});

describe('plans the engine cannot evaluate', () => {
  test('a chip that needs quota on a plan without one is reported, and the other chips still evaluate', () => {
    const chips = [
      commission({ rate_bps: 1000 }),
      tiered('marginal', [
        { up_to_pct: 100, rate_bps: 0 },
        { up_to_pct: null, rate_bps: 500 },
      ]),
      bonus(100, 200_000),
    ];
    const won = deal(1);
    const evaluation = evaluate(chips, [won], { plan: { quota_cents: null }, periods: ['2026-04'] });
    assert.deepEqual(
      evaluation.problems.map((problem) => problem.path),
      ['chips[1].tiers[0].up_to_pct', 'chips[2]'],
    );
    assert.deepEqual(
      evaluation.targets.map((target) => target.line.chip_id),
      [chips[0]?.id],
    );
  });

  test('bands that do not rise, a closed last band or a bad rate are reported by path', () => {
    const broken = plan({
      chips: [
        tiered('marginal', [
          { up_to_cents: 500, rate_bps: 0 },
          { up_to_cents: 500, rate_bps: 100 },
          { up_to_cents: 900, rate_bps: -1 },
        ]),
        commission({ rate_bps: 2.505 }), // finer than a hundredth of a basis point
        chip(14, {
          key: 'x',
          name: 'x',
          kind: 'tiered_commission',
          when: null,
          params: { mode: 'sideways', tiers: [] },
        }),
      ],
    });
    assert.deepEqual(
      checkPlanForEngine(broken).map((problem) => problem.path),
      [
        'chips[0].tiers[1]',
        'chips[0].tiers[2].rate_bps',
        'chips[0].tiers[2]',
        'chips[1].rate_bps',
        'chips[2].mode',
        'chips[2].tiers',
      ],
    );
  });

  test('the worked example plan has no problems', () => {
    assert.deepEqual(checkPlanForEngine(plan()), []);
  });
});

describe('tier bands of a tiny quota', () => {
  const bands = [
    { up_to_pct: 100, rate_bps: 500 },
    { up_to_pct: 120, rate_bps: 700 },
    { up_to_pct: 150, rate_bps: 800 },
    { up_to_pct: null, rate_bps: 1000 },
  ];
  const big = deal(1, { amount_cents: 1_000_000, close_date: '2026-04-10', won_at: '2026-04-10T12:00:00.000Z' });
  const withRepQuota = (mode: 'marginal' | 'retroactive', quotaCents: number) => {
    const evaluation = evaluateLines({
      plan: plan({ chips: [tiered(mode, bands)] }),
      rep,
      deals: [big],
      periods: [],
      today: '2026-04-25',
      quotas: { start_date: null, entries: [{ from: '2026-01-01', quota_cents: quotaCents }] },
    });
    assertTargetTracesValid(evaluation.targets);
    assert.deepEqual(evaluation.problems, []);
    return lineOf(evaluation, big);
  };

  test('a band whose bound rounds onto the previous one is empty: the line is still there, and says so', () => {
    // Quota 2.00: bounds 2.00, 2.40, 3.00; 10 + 2.8 + 4.8 + 99,970 cents = 99,987.6, rounded to 999.88.
    assert.equal(withRepQuota('marginal', 200).earned_cents, 99_988);
    // Quota 0.01: 100% → 1 cent, 120% → 1.2, rounded to 1 cent (band 2 is empty), 150% → 1.5, rounded to 2 cents.
    const line = withRepQuota('marginal', 1);
    assert.deepEqual(
      stepsOf(line, 'tier').map((step) => [step.band, step.from_cents, step.to_cents, step.slice_cents]),
      [
        [1, 0, 1, 1],
        [3, 1, 2, 1],
        [4, 2, null, 999_998],
      ],
    );
    assert.equal(line.earned_cents, 100_000, '0.05 + 0.08 + 99,999.8 cents = 99,999.93, rounded to 1,000.00');
    assert.ok(
      line.trace.explanation.includes(
        'Band 2 ends at 120% of quota 0.01, which rounds to 0.01, not above the band before it (0.01): the band is empty and takes nothing, and amounts from 0.01 belong to the next band.',
      ),
    );
    assert.equal(withRepQuota('retroactive', 1).earned_cents, 100_000);
  });

  test('bands in percent of a plan quota that collapse are not a problem of the plan', () => {
    assert.deepEqual(checkPlanForEngine(plan({ quota_cents: 1, chips: [tiered('marginal', bands)] })), []);
  });
});
