import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { scopeOfDealChange } from '../../src/domain/earnings/changeScope.ts';
import {
  firstCycle,
  type ManagerEntry,
  managersOn,
  overridesMovedBy,
  repHierarchyOf,
} from '../../src/domain/earnings/hierarchy.ts';
import { reconcileLine } from '../../src/domain/earnings/ledger.ts';
import { parseLineKey } from '../../src/domain/earnings/lineKeys.ts';
import type { DealSnapshot, EngineChip, EnginePlanVersion, Rep, TraceStep } from '../../src/domain/earnings/types.ts';
import { MAX_OVERRIDE_DEPTH } from '../../src/domain/plans/types.ts';
import { chip, deal, otherRep, plan, rep, testId } from '../factories/earnings.ts';
import { EarningsWorld, type StoredRow } from '../helpers/earningsLedger.ts';

// Manager overrides, computed by hand. Plan: monthly; a 10% commission on every deal and a 5%
// override down to two levels. Hierarchy from 2026-01-01: rep-017 and rep-018 report to mgr-001, who reports to
// vp-001. From 2026-05-01 rep-018 reports to mgr-002 instead.
//
// - opp-shared, 50,000.01 won 2026-04-20, split 60/40 between rep-017 and rep-018: parts 3,000,001 and 2,000,000
//   cents (the leftover cent to the larger remainder). mgr-001 manages both: ONE override line on their sum,
//   5% of 50,000.01 = 2,500.0005 → 2,500.00 (two lines would round twice: 1,500.0005 → 1,500.00 plus 1,000.00;
//   here the same, but the deal would be listed twice). vp-001 has both two levels down: once more ONE line,
//   2,500.00.
// - opp-mixed, 20,000.00 won 2026-04-22, split 50/50 between rep-017 and mgr-001: mgr-001's override counts
//   rep-017's part only (10,000.00 → 500.00): the manager's own share is their own deal. vp-001 has rep-017 two
//   levels down and mgr-001 directly: still one line, on 20,000.00 → 1,000.00.
// - opp-may, 30,000.00 won 2026-05-03 by rep-018: on that day rep-018 reports to mgr-002, who earns 1,500.00;
//   mgr-001 earns nothing on it, and nor does vp-001 (mgr-002 reports to nobody).

const mgr: Rep = { user_id: testId('user', 30), external_id: 'mgr-001' };
const mgr2: Rep = { user_id: testId('user', 31), external_id: 'mgr-002' };
const vp: Rep = { user_id: testId('user', 40), external_id: 'vp-001' };
const everyone = [rep, otherRep, mgr, mgr2, vp];

const overrideChip = (depth: number, params: Record<string, unknown> = {}): EngineChip =>
  chip(21, {
    key: 'override',
    name: 'Manager override',
    kind: 'override',
    when: null,
    params: { rate_bps: 500, depth, ...params },
  });

const overridePlan = (depth = 2, params: Record<string, unknown> = {}): EnginePlanVersion =>
  plan({
    plan_key: 'managers',
    quota_cents: null,
    chips: [
      chip(20, {
        key: 'base',
        name: 'Base commission',
        kind: 'commission',
        when: null,
        params: { rate_bps: 1000, base: 'amount_cents' },
      }),
      overrideChip(depth, params),
    ],
  });

const entries: ManagerEntry[] = [
  { rep_external_id: rep.external_id, manager_external_id: mgr.external_id, from: '2026-01-01' },
  { rep_external_id: otherRep.external_id, manager_external_id: mgr.external_id, from: '2026-01-01' },
  { rep_external_id: otherRep.external_id, manager_external_id: mgr2.external_id, from: '2026-05-01' },
  { rep_external_id: mgr.external_id, manager_external_id: vp.external_id, from: '2026-01-01' },
];
const hierarchy = repHierarchyOf(entries);

const shared = deal(1, {
  external_id: 'opp-shared',
  amount_cents: 5_000_001,
  close_date: '2026-04-20',
  won_at: '2026-04-20T09:00:00.000Z',
  splits: [
    { owner_external_id: rep.external_id, share_bps: 6000 },
    { owner_external_id: otherRep.external_id, share_bps: 4000 },
  ],
});
const mixed = deal(2, {
  external_id: 'opp-mixed',
  amount_cents: 2_000_000,
  close_date: '2026-04-22',
  won_at: '2026-04-22T09:00:00.000Z',
  splits: [
    { owner_external_id: rep.external_id, share_bps: 5000 },
    { owner_external_id: mgr.external_id, share_bps: 5000 },
  ],
});
const may = deal(3, {
  external_id: 'opp-may',
  amount_cents: 3_000_000,
  close_date: '2026-05-03',
  won_at: '2026-05-03T09:00:00.000Z',
  owner_external_id: otherRep.external_id,
});

function overrideRows(world: EarningsWorld) {
  return world.ledger
    .live()
    .filter((row) => row.trace.chip.kind === 'override')
    .map((row) => ({
      manager: parseLineKey(row.line_key).user_id,
      deal: row.trace.deal?.external_id ?? null,
      amount: row.amount_cents,
    }))
    .sort((a, b) => `${a.manager} ${a.deal}`.localeCompare(`${b.manager} ${b.deal}`));
}

function overrideStep(row: StoredRow | undefined) {
  const step = row?.trace.steps.find((candidate: TraceStep) => candidate.type === 'override');
  assert.ok(step?.type === 'override', 'the row has an override step');
  return step;
}

describe('manager overrides, by hand', () => {
  test('two reports who split a deal give their manager one override line, on the sum of their shares', () => {
    const world = new EarningsWorld(overridePlan(1), everyone, '2026-05-10', hierarchy);
    world.change(shared);
    assert.deepEqual(overrideRows(world), [{ manager: mgr.user_id, deal: 'opp-shared', amount: 250_000 }]);
    const row = world.ledger.live().find((candidate) => candidate.trace.chip.kind === 'override');
    const step = overrideStep(row);
    assert.deepEqual(step, {
      type: 'override',
      manager_external_id: 'mgr-001',
      depth: 1,
      as_of: '2026-04-20',
      reports: [
        {
          owner_external_id: 'rep-017',
          share_bps: 6000,
          credited_cents: 3_000_001,
          level: 1,
          path: ['rep-017', 'mgr-001'],
        },
        {
          owner_external_id: 'rep-018',
          share_bps: 4000,
          credited_cents: 2_000_000,
          level: 1,
          path: ['rep-018', 'mgr-001'],
        },
      ],
      base_cents: 5_000_001,
    });
    assert.deepEqual(row?.trace.explanation.slice(-6, -1), [
      'On 2026-04-20, rep-017 reports directly to mgr-001 (rep-017 → mgr-001), credited 60.00% of the amount 50,000.01 = 30,000.01.',
      'On 2026-04-20, rep-018 reports directly to mgr-001 (rep-018 → mgr-001), credited 40.00% of the amount 50,000.01 = 20,000.00.',
      'The deal counts once for mgr-001: 30,000.01 + 20,000.00 = 50,000.01.',
      '5.00% of 50,000.01 = 2,500.0005',
      '2,500.0005 rounded half away from zero is 2,500.00',
    ]);
  });

  test('depth 2: a deal of a report two levels down and of a direct report is still counted once', () => {
    const world = new EarningsWorld(overridePlan(2), everyone, '2026-05-10', hierarchy);
    world.change(shared);
    world.change(mixed);
    world.change(may);
    assert.deepEqual(overrideRows(world), [
      { manager: mgr.user_id, deal: 'opp-mixed', amount: 50_000 },
      { manager: mgr.user_id, deal: 'opp-shared', amount: 250_000 },
      { manager: mgr2.user_id, deal: 'opp-may', amount: 150_000 },
      { manager: vp.user_id, deal: 'opp-mixed', amount: 100_000 },
      { manager: vp.user_id, deal: 'opp-shared', amount: 250_000 },
    ]);
    const vpMixed = world.ledger
      .live()
      .find((row) => parseLineKey(row.line_key).user_id === vp.user_id && row.trace.deal?.external_id === 'opp-mixed');
    assert.deepEqual(
      overrideStep(vpMixed).reports.map((report) => [report.owner_external_id, report.level, report.path]),
      [
        ['rep-017', 2, ['rep-017', 'mgr-001', 'vp-001']],
        ['mgr-001', 1, ['mgr-001', 'vp-001']],
      ],
    );
    // mgr-001's own share of opp-mixed pays the base commission, not an override.
    const mgrBase = world.ledger
      .live()
      .find((row) => parseLineKey(row.line_key).user_id === mgr.user_id && row.trace.chip.key === 'base');
    assert.equal(mgrBase?.amount_cents, 100_000);
  });

  test("the hierarchy in effect on the deal's date decides, and a manager outside it earns nothing", () => {
    const world = new EarningsWorld(overridePlan(1), everyone, '2026-05-10', hierarchy);
    world.change(may);
    const lines = world.everyTarget(['2026-05']).filter((target) => target.trace.chip.kind === 'override');
    const mgrLine = lines.find((target) => target.line.user_id === mgr.user_id);
    assert.equal(mgrLine?.earned_cents, 0);
    assert.deepEqual(mgrLine?.trace.steps, [{ type: 'zero_target', reason: 'not_a_report', earned_cents: 0 }]);
    assert.match(
      mgrLine?.trace.explanation.at(-1) ?? '',
      /On 2026-05-03, deal opp-may credits rep-018, none of whom reports to mgr-001/,
    );
  });

  test('a hierarchy change into a locked period books the difference in the next open period', () => {
    const world = new EarningsWorld(overridePlan(1), everyone, '2026-05-10', hierarchy);
    world.change(shared);
    world.ledger.lock('2026-04');
    // From 2026-04-01 rep-018 reports to mgr-002: opp-shared now pays mgr-001 on rep-017's 30,000.01 only and
    // mgr-002 on rep-018's 20,000.00.
    const changed = repHierarchyOf([
      ...entries,
      { rep_external_id: otherRep.external_id, manager_external_id: mgr2.external_id, from: '2026-04-01' },
    ]);
    const moved = overridesMovedBy(hierarchy, changed, otherRep.external_id, MAX_OVERRIDE_DEPTH);
    assert.deepEqual([...moved].sort(), ['mgr-001', 'mgr-002', 'vp-001']);
    world.changeHierarchy(changed, moved, ['2026-04', '2026-05']);
    const rows = world.ledger.rows
      .filter((row) => row.trace.chip.kind === 'override')
      .map((row) => [parseLineKey(row.line_key).user_id, row.period_id, row.amount_cents, row.status]);
    assert.deepEqual(rows, [
      [mgr.user_id, '2026-04', 250_000, 'approved'],
      [mgr.user_id, '2026-05', -100_000, 'pending'],
      [mgr2.user_id, '2026-05', 100_000, 'pending'],
    ]);
  });

  test('the hierarchy reads chains defensively and finds the first day of a cycle', () => {
    assert.deepEqual(managersOn(hierarchy, rep.external_id, '2026-04-01', 3), ['mgr-001', 'vp-001']);
    assert.deepEqual(managersOn(hierarchy, rep.external_id, '2025-12-31', 3), []);
    assert.equal(firstCycle(hierarchy), null);
    const looped = repHierarchyOf([
      ...entries,
      { rep_external_id: vp.external_id, manager_external_id: rep.external_id, from: '2026-03-01' },
    ]);
    assert.deepEqual(firstCycle(looped)?.day, '2026-03-01');
  });
});

// Properties over random histories of deal events, hierarchy changes and period locks, with override lines at
// depth 1 and 2 (a capped override, and tiers beside an override with or without a plan cap): (a) after every event the live rows of every line equal its target
// from a full evaluation (so incremental evaluation, through `scopeOfDealChange`, equals a full recompute),
// (b) approved and paid rows never change amount and only move from approved to paid.

const TODAY = '2026-04-25';
const PERIODS = ['2026-03', '2026-04', '2026-05'];
// A manager's own tiered lines do not read a report's deal, so a report's deal event leaves them alone; under a
// plan cap the manager's override shares the cap with every line of the manager's period, which it then evaluates.
const withTiers: EnginePlanVersion = {
  ...overridePlan(1),
  chips: [
    ...overridePlan(1).chips,
    chip(22, {
      key: 'retro',
      name: 'Retroactive tiers',
      kind: 'tiered_commission',
      when: null,
      params: {
        mode: 'retroactive',
        tiers: [
          { up_to_cents: 4_000_000, rate_bps: 200 },
          { up_to_cents: null, rate_bps: 800 },
        ],
      },
    }),
  ],
};
const plans = fc.constantFrom(overridePlan(1), overridePlan(2), overridePlan(2, { cap_cents: 300_000 }), withTiers, {
  ...withTiers,
  cap_cents: 700_000,
});
const reportingReps = [rep.external_id, otherRep.external_id, mgr.external_id];
const managers = [mgr.external_id, mgr2.external_id, vp.external_id, null];

function dealState(ids: fc.Arbitrary<number>): fc.Arbitrary<DealSnapshot> {
  return fc
    .record({
      n: ids,
      status: fc.constantFrom('open' as const, 'won' as const, 'won' as const, 'lost' as const),
      amount: fc.integer({ min: 0, max: 9_000_001 }),
      won_on: fc.constantFrom('2026-03-30', '2026-04-10', '2026-05-02'),
      owner: fc.constantFrom(rep.external_id, otherRep.external_id, mgr.external_id),
      splits: fc.constantFrom<DealSnapshot['splits']>(
        null,
        null,
        [
          { owner_external_id: rep.external_id, share_bps: 6000 },
          { owner_external_id: otherRep.external_id, share_bps: 4000 },
        ],
        [
          { owner_external_id: rep.external_id, share_bps: 3333 },
          { owner_external_id: mgr.external_id, share_bps: 6667 },
        ],
      ),
    })
    .map(({ n, status, amount, won_on, owner, splits }) =>
      deal(n, {
        ...(splits === null ? {} : { splits }),
        status,
        stage: status === 'won' ? 'closed_won' : status === 'lost' ? 'closed_lost' : 'proposal',
        amount_cents: amount,
        close_date: status === 'won' ? won_on : null,
        owner_external_id: owner,
        won_at: status === 'won' ? `${won_on}T10:00:00.000Z` : null,
      }),
    );
}

type Event =
  | { kind: 'deal'; state: DealSnapshot }
  | { kind: 'manager'; entry: ManagerEntry }
  | { kind: 'lock' }
  | { kind: 'pay' };

const events: fc.Arbitrary<Event[]> = fc.array(
  fc.oneof(
    {
      weight: 5,
      arbitrary: dealState(fc.integer({ min: 1, max: 4 })).map((state) => ({ kind: 'deal' as const, state })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          rep_external_id: fc.constantFrom(...reportingReps),
          manager_external_id: fc.constantFrom(...managers),
          from: fc.constantFrom('2026-01-01', '2026-04-05', '2026-05-01'),
        })
        .map((entry) => ({ kind: 'manager' as const, entry })),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'lock' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'pay' as const }) },
  ),
  { maxLength: 18 },
);

function play(world: EarningsWorld, entries: ManagerEntry[], event: Event): ManagerEntry[] {
  if (event.kind === 'deal') {
    world.change(event.state);
    return entries;
  }
  if (event.kind === 'manager') {
    const { entry } = event;
    if (entry.manager_external_id === entry.rep_external_id) return entries;
    const next = [
      ...entries.filter((other) => !(other.rep_external_id === entry.rep_external_id && other.from === entry.from)),
      entry,
    ];
    const after = repHierarchyOf(next);
    if (firstCycle(after)) return entries;
    world.changeHierarchy(
      after,
      overridesMovedBy(world.hierarchy, after, entry.rep_external_id, MAX_OVERRIDE_DEPTH),
      PERIODS,
    );
    return next;
  }
  const statuses = PERIODS.map((period) => world.ledger.periods.get(period) ?? 'open');
  if (event.kind === 'lock') {
    const open = PERIODS[statuses.indexOf('open')];
    if (open) world.ledger.lock(open);
  } else {
    const locked = PERIODS[statuses.indexOf('locked')];
    if (locked) world.ledger.markPaid(locked);
  }
  return entries;
}

function assertLiveRowsEqualTargets(world: EarningsWorld): void {
  const targets = world.everyTarget(PERIODS);
  const keys = new Set(targets.map((target) => target.line.line_key));
  for (const row of world.ledger.rows)
    assert.ok(keys.has(row.line_key), `a row of a line nobody evaluates: ${row.line_key}`);
  for (const target of targets) {
    const rows = world.ledger.rowsOf(target.line.line_key);
    const locked = rows
      .filter((row) => row.status === 'approved' || row.status === 'paid')
      .reduce((sum, row) => sum + row.amount_cents, 0);
    const pending = rows.filter((row) => row.status === 'pending');
    const projected = rows.filter((row) => row.status === 'projected');
    assert.ok(pending.length <= 1 && projected.length <= 1, 'one live row per status');
    assert.equal(
      pending[0]?.amount_cents ?? 0,
      target.earned_cents - locked,
      `pending = E - L (${target.line.line_key})`,
    );
    assert.equal(projected[0]?.amount_cents ?? 0, target.projected_cents, 'projected = F');
    assert.deepEqual(
      reconcileLine(target, rows, world.ledger.periods),
      { retire: [], write: [] },
      'nothing left to do',
    );
  }
}

describe('manager overrides over random histories', () => {
  test('(a) after every deal event and hierarchy change, live rows equal a full recompute, override lines included', () => {
    fc.assert(
      fc.property(plans, events, (chosen, history) => {
        const world = new EarningsWorld(chosen, everyone, TODAY, hierarchy);
        let current = entries;
        for (const event of history) {
          current = play(world, current, event);
          assertLiveRowsEqualTargets(world);
        }
      }),
      { numRuns: 150 },
    );
  });

  test('(b) approved and paid rows never change amount and only move from approved to paid', () => {
    fc.assert(
      fc.property(plans, events, (chosen, history) => {
        const world = new EarningsWorld(chosen, everyone, TODAY, hierarchy);
        let current = entries;
        const frozen = new Map<string, StoredRow>();
        for (const event of history) {
          current = play(world, current, event);
          for (const [id, before] of frozen) {
            const now = world.ledger.rows.find((row) => row.id === id);
            assert.ok(now, 'a locked row disappeared');
            assert.equal(now.amount_cents, before.amount_cents);
            assert.ok(now.status === 'paid' || (now.status === 'approved' && before.status === 'approved'));
          }
          for (const row of world.ledger.rows) {
            if (row.status === 'approved' || row.status === 'paid') frozen.set(row.id, { ...row });
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  test('a deal is never counted twice for one manager: the override base is at most the deal amount', () => {
    fc.assert(
      fc.property(plans, fc.array(dealState(fc.integer({ min: 1, max: 6 })), { maxLength: 8 }), (chosen, deals) => {
        const world = new EarningsWorld(chosen, everyone, TODAY, hierarchy);
        for (const state of deals) world.change(state);
        for (const target of world.everyTarget(PERIODS)) {
          const step = target.trace.steps.find((candidate) => candidate.type === 'override');
          if (step?.type !== 'override') continue;
          const names = step.reports.map((report) => report.owner_external_id);
          assert.equal(new Set(names).size, names.length, 'each report once');
          assert.ok(step.base_cents <= (target.trace.deal?.amount_cents ?? 0));
        }
      }),
      { numRuns: 100 },
    );
  });
});

describe('the lines a deal event evaluates (docs/plans-and-earnings.md, When lines are evaluated)', () => {
  const [base, override, retro] = withTiers.chips.map((candidate) => candidate.id);
  const own = deal(9, { external_id: 'opp-own', close_date: '2026-04-12', won_at: '2026-04-12T09:00:00.000Z' });

  test("the credited rep's lines of the deal and its tiered period; the manager's override line of the deal alone", () => {
    assert.deepEqual(scopeOfDealChange(withTiers, null, own, TODAY, [], hierarchy), [
      { rep_external_id: rep.external_id, deal_chips: [base, override], period_chips: [retro], periods: ['2026-04'] },
      { rep_external_id: mgr.external_id, deal_chips: [override], period_chips: [], periods: [] },
    ]);
  });

  test("under a plan cap, the manager's override shares the cap with every line of the manager's period", () => {
    const every = [base, override, retro];
    assert.deepEqual(scopeOfDealChange({ ...withTiers, cap_cents: 700_000 }, null, own, TODAY, [], hierarchy), [
      { rep_external_id: rep.external_id, deal_chips: [], period_chips: every, periods: ['2026-04'] },
      { rep_external_id: mgr.external_id, deal_chips: [], period_chips: every, periods: ['2026-04'] },
    ]);
  });

  test("a report's deal moved into a period writes the manager's override row of it and nothing else of the manager's", () => {
    // mgr-001 is credited half of an open deal dated in March; a report's deal then moves into March.
    const world = new EarningsWorld(withTiers, everyone, TODAY, hierarchy);
    const ov2 = deal(10, {
      external_id: 'ov2',
      status: 'open',
      stage: 'proposal',
      amount_cents: 2_000_000,
      close_date: '2026-03-20',
      won_at: null,
      owner_external_id: mgr.external_id,
      splits: [
        { owner_external_id: mgr.external_id, share_bps: 5000 },
        { owner_external_id: otherRep.external_id, share_bps: 5000 },
      ],
    });
    world.change(ov2);
    const managerRows = () => world.ledger.rows.filter((row) => parseLineKey(row.line_key).user_id === mgr.user_id);
    const before = managerRows().length;
    world.change({ ...own, close_date: '2026-03-25', won_at: '2026-03-25T09:00:00.000Z' });
    const written = managerRows().slice(before);
    assert.deepEqual(
      written.map((row) => [row.trace.chip.key, row.trace.deal?.external_id, row.amount_cents, row.period_id]),
      [['override', 'opp-own', 50_000, '2026-03']],
    );
  });
});
