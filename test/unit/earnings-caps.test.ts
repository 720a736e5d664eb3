import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { cutToCap } from '../../src/domain/earnings/caps.ts';
import { checkPlanForEngine } from '../../src/domain/earnings/chipRules.ts';
import type { EngineChip } from '../../src/domain/earnings/types.ts';
import { chip, deal, plan, rep } from '../factories/earnings.ts';
import { EarningsWorld, type StoredRow } from '../helpers/earningsLedger.ts';

// Caps, computed by hand. A 10% commission that pays at most 5,000.00 per rep and period:
// deal 1 (30,000.00, Apr 5) earns 3,000.00; deal 2 (30,000.00, Apr 10) would earn 3,000.00 but only
// 2,000.00 of the cap is left; deal 3 (10,000.00, Apr 15) would earn 1,000.00 and gets nothing.

const capped = (params: Record<string, unknown>, planCap?: number) =>
  plan({
    quota_cents: null,
    ...(planCap === undefined ? {} : { cap_cents: planCap }),
    chips: [
      chip(31, {
        key: 'base',
        name: 'Capped commission',
        kind: 'commission',
        when: null,
        params: { rate_bps: 1000, base: 'amount_cents', ...params },
      }),
    ],
  });

const april = [
  deal(1, { external_id: 'opp-1', amount_cents: 3_000_000, close_date: '2026-04-05' }),
  deal(2, { external_id: 'opp-2', amount_cents: 3_000_000, close_date: '2026-04-10' }),
  deal(3, { external_id: 'opp-3', amount_cents: 1_000_000, close_date: '2026-04-15' }),
];

function rows(world: EarningsWorld, filter: (row: StoredRow) => boolean = () => true) {
  return world.ledger.rows
    .filter(filter)
    .map((row) => [row.trace.deal?.external_id ?? row.trace.chip.key, row.amount_cents, row.status, row.period_id]);
}

describe('a chip cap per rep and period, by hand', () => {
  test('the deal that reaches the cap is cut and the deals after it earn nothing', () => {
    const world = new EarningsWorld(capped({ cap_cents: 500_000 }), [rep], '2026-04-25');
    for (const won of april) world.change(won);
    assert.deepEqual(rows(world), [
      ['opp-1', 300_000, 'pending', '2026-04'],
      ['opp-2', 200_000, 'pending', '2026-04'],
    ]);
  });

  test('the cut is in the trace: a cap step after the rounding, and a sentence', () => {
    const world = new EarningsWorld(capped({ cap_cents: 500_000 }), [rep], '2026-04-25');
    for (const won of april) world.change(won);
    const second = world.ledger.live().find((row) => row.trace.deal?.external_id === 'opp-2');
    assert.deepEqual(second?.trace.steps.slice(-3), [
      { type: 'rounding', exact_cents: '300000', rounded_cents: 300_000, rule: 'half away from zero' },
      {
        type: 'cap',
        scope: 'period',
        cap_cents: 500_000,
        used_before_cents: 300_000,
        uncapped_cents: 300_000,
        amount_cents: 200_000,
      },
      { type: 'locked_total', approved_and_paid_cents: 0 },
    ]);
    assert.ok(
      second?.trace.explanation.includes(
        'The chip pays at most 5,000.00 per rep and period; earlier lines of 2026-04 used 3,000.00 of it, so this line is cut from 3,000.00 to 2,000.00.',
      ),
      second?.trace.explanation.join('\n'),
    );
    assert.equal(second?.trace.result?.target_cents, 200_000);
  });

  test('a cap hit mid-period, then released by a clawback after the period is locked', () => {
    const world = new EarningsWorld(capped({ cap_cents: 500_000 }), [rep], '2026-05-10');
    for (const won of april) world.change(won);
    world.ledger.lock('2026-04');
    // Deal 1 is lost in May: its 3,000.00 is clawed back, which frees the cap for deals 2 and 3. Deal 2 now
    // earns its full 3,000.00 (1,000.00 more than approved) and deal 3 its 1,000.00, both booked in May.
    world.change({ ...(april[0] as (typeof april)[0]), status: 'lost', stage: 'closed_lost', won_at: null });
    assert.deepEqual(
      rows(world, (row) => row.period_id === '2026-05'),
      [
        ['opp-1', -300_000, 'pending', '2026-05'],
        ['opp-2', 100_000, 'pending', '2026-05'],
        ['opp-3', 100_000, 'pending', '2026-05'],
      ],
    );
    const live = world.ledger.rows.filter((row) => row.status !== 'superseded' && row.status !== 'reversed');
    assert.equal(
      live.reduce((sum, row) => sum + row.amount_cents, 0),
      400_000,
      'after the clawback the rep has 3,000.00 + 1,000.00 in all',
    );
  });

  test('an open deal is projected with what the won deals leave of the cap', () => {
    const world = new EarningsWorld(capped({ cap_cents: 500_000 }), [rep], '2026-04-25');
    world.change(april[0] as (typeof april)[0]);
    world.change(
      deal(4, { external_id: 'opp-open', amount_cents: 4_000_000, status: 'open', stage: 'proposal', won_at: null }),
    );
    assert.deepEqual(rows(world), [
      ['opp-1', 300_000, 'pending', '2026-04'],
      ['opp-open', 200_000, 'projected', '2026-04'],
    ]);
  });
});

describe('a chip cap per deal, and a plan cap over all chips', () => {
  test('deal_cap_cents cuts each deal on its own', () => {
    const world = new EarningsWorld(capped({ deal_cap_cents: 250_000 }), [rep], '2026-04-25');
    for (const won of april) world.change(won);
    assert.deepEqual(
      world.ledger.live().map((row) => [row.trace.deal?.external_id, row.amount_cents]),
      [
        ['opp-1', 250_000],
        ['opp-2', 250_000],
        ['opp-3', 100_000],
      ],
    );
    const first = world.ledger.live()[0];
    assert.deepEqual(
      first?.trace.steps.find((step) => step.type === 'cap'),
      {
        type: 'cap',
        scope: 'deal',
        cap_cents: 250_000,
        used_before_cents: 0,
        uncapped_cents: 300_000,
        amount_cents: 250_000,
      },
    );
  });

  test("the plan's cap_cents caps a rep's total over every chip, deals in counting order, chips in plan order", () => {
    // Commission 10% and a 500.00 SPIFF per deal, plan cap 7,000.00. Deal 1: 3,000.00 + 500.00 (3,500.00
    // used); deal 2: 3,000.00 (6,500.00) and its SPIFF just fits (7,000.00); deal 3: nothing left.
    const chips: EngineChip[] = [
      ...capped({}).chips,
      chip(32, { key: 'spiff', name: 'SPIFF', kind: 'flat', when: null, params: { amount_cents: 50_000 } }),
    ];
    const world = new EarningsWorld({ ...capped({}, 700_000), chips }, [rep], '2026-04-25');
    for (const won of april) world.change(won);
    assert.deepEqual(
      world.ledger
        .live()
        .map((row) => [row.trace.chip.key, row.trace.deal?.external_id, row.amount_cents])
        .sort((a, b) => `${a[1]} ${a[0]}`.localeCompare(`${b[1]} ${b[0]}`)),
      [
        ['base', 'opp-1', 300_000],
        ['spiff', 'opp-1', 50_000],
        ['base', 'opp-2', 300_000],
        ['spiff', 'opp-2', 50_000],
      ],
    );
    const spiff2 = world.ledger
      .live()
      .find((row) => row.trace.chip.key === 'spiff' && row.trace.deal?.external_id === 'opp-2');
    assert.deepEqual(
      spiff2?.trace.steps.find((step) => step.type === 'cap'),
      {
        type: 'cap',
        scope: 'plan',
        cap_cents: 700_000,
        used_before_cents: 650_000,
        uncapped_cents: 50_000,
        amount_cents: 50_000,
      },
    );
  });

  test('a cap that is not a whole number of cents ≥ 0 is a problem of the chip, by path', () => {
    assert.deepEqual(checkPlanForEngine(capped({ cap_cents: -1, deal_cap_cents: 'x' })), [
      { path: 'chips[0].cap_cents', message: 'must be an integer ≥ 0' },
      { path: 'chips[0].deal_cap_cents', message: 'must be an integer ≥ 0' },
    ]);
  });
});

describe('cutting amounts to a cap', () => {
  test('each amount gets at most what the earlier ones left, never less than nothing', () => {
    assert.deepEqual(
      cutToCap([300n, 300n, 100n, -50n, 80n], 500n).map((cut) => [cut.amount, cut.used_before]),
      [
        [300n, 0n],
        [200n, 300n],
        [0n, 500n],
        [-50n, 500n],
        [50n, 450n],
      ],
    );
  });
});
