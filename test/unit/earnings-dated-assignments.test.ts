import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { planContentDigest } from '../../src/domain/plans/digests.ts';
import { validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import { chip, deal, plan, rep } from '../factories/earnings.ts';
import { planDocument } from '../factories/plans.ts';
import { EarningsWorld } from '../helpers/earningsLedger.ts';

// Dated assignments, computed by hand: rep-017 moves from plan A to plan B on 2026-04-15.
// Plan A (until 2026-04-14): 10% commission, and 2,000.00 when the rep reaches 50% of a 100,000.00 quota.
// Plan B (from 2026-04-15): marginal tiers, 0% up to 40,000.00 and 10% above.
// Deal 1: 60,000.00 closing 2026-04-10; deal 2: 50,000.00 closing 2026-04-20.
// - Plan A pays deal 1: 10% of 60,000.00 = 6,000.00; deal 2 is outside its window: nothing. Its bonus counts
//   deal 1 only: 60,000.00 ≥ 50,000.00, so 2,000.00.
// - Plan B pays deal 2 alone: it counts 0.00 before it (deal 1 is plan A's), so 40,000.00 at 0% and
//   10,000.00 at 10% = 1,000.00. (Counting deal 1 too would have made it 5,000.00.)

const planA = plan({
  plan_key: 'plan-a',
  assignees: [{ owner_external_id: rep.external_id, until: '2026-04-14' }],
  chips: [
    chip(41, {
      key: 'base',
      name: 'Base',
      kind: 'commission',
      when: null,
      params: { rate_bps: 1000, base: 'amount_cents' },
    }),
    chip(42, {
      key: 'half-quota',
      name: 'Half quota bonus',
      kind: 'attainment_bonus',
      when: null,
      params: { threshold_pct: 50, amount_cents: 200_000 },
    }),
  ],
});
const planB = plan({
  plan_id: 'plan_0000000000000000000000000b',
  plan_key: 'plan-b',
  assignees: [{ owner_external_id: rep.external_id, from: '2026-04-15' }],
  chips: [
    chip(43, {
      key: 'tiers',
      name: 'Tiers',
      kind: 'tiered_commission',
      when: null,
      params: {
        mode: 'marginal',
        tiers: [
          { up_to_cents: 4_000_000, rate_bps: 0 },
          { up_to_cents: null, rate_bps: 1000 },
        ],
      },
    }),
  ],
});

const early = deal(1, { external_id: 'opp-early', amount_cents: 6_000_000, close_date: '2026-04-10' });
const late = deal(2, { external_id: 'opp-late', amount_cents: 5_000_000, close_date: '2026-04-20' });

function paid(world: EarningsWorld) {
  return world.ledger.live().map((row) => [row.trace.chip.key, row.trace.deal?.external_id ?? null, row.amount_cents]);
}

describe('a rep moving plans on the 15th, by hand', () => {
  test('each plan pays the deals dated in its window, and counts only those for tiers and bonuses', () => {
    const a = new EarningsWorld(planA, [rep], '2026-04-25');
    const b = new EarningsWorld(planB, [rep], '2026-04-25');
    for (const world of [a, b]) {
      world.change(early);
      world.change(late);
    }
    a.ledger.apply(a.everyTarget(['2026-04']));
    b.ledger.apply(b.everyTarget(['2026-04']));
    assert.deepEqual(paid(a), [
      ['base', 'opp-early', 600_000],
      ['half-quota', null, 200_000],
    ]);
    assert.deepEqual(paid(b), [['tiers', 'opp-late', 100_000]]);
  });

  test('the trace says whether the deal is inside the window', () => {
    const a = new EarningsWorld(planA, [rep], '2026-04-25');
    a.change(early);
    a.change(late);
    const [inside] = a.ledger.live();
    assert.ok(
      inside?.trace.explanation.includes(
        'rep-017 is assigned to plan plan-a until 2026-04-14; deal opp-early is dated 2026-04-10, inside that.',
      ),
    );
    const outside = a.everyTarget(['2026-04']).find((target) => target.trace.deal?.external_id === 'opp-late');
    assert.equal(outside?.earned_cents, 0);
    assert.ok(
      outside?.trace.explanation.includes(
        'rep-017 is assigned to plan plan-a until 2026-04-14; deal opp-late is dated 2026-04-20, outside that, so this line earns nothing.',
      ),
    );
  });

  test('moving the close date across the 15th moves the deal from one plan to the other', () => {
    const a = new EarningsWorld(planA, [rep], '2026-04-25');
    const b = new EarningsWorld(planB, [rep], '2026-04-25');
    const moved = { ...early, close_date: '2026-04-16' };
    for (const world of [a, b]) {
      world.change(early);
      world.change(moved);
    }
    assert.deepEqual(paid(a), []);
    // In plan B, 60,000.00: 40,000.00 at 0%, 20,000.00 at 10% = 2,000.00.
    assert.deepEqual(paid(b), [['tiers', 'opp-early', 200_000]]);
  });
});

describe('dated assignments in a plan file', () => {
  const valid = (assignees: unknown) => {
    const result = validatePlanDocument(planDocument({ key: 'moving', assignees }));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    return result.plan;
  };
  const refused = (assignees: unknown) => {
    const result = validatePlanDocument(planDocument({ key: 'moving', assignees }));
    assert.equal(result.ok, false);
    return result.ok ? [] : result.problems.map((problem) => `${problem.path}: ${problem.message}`);
  };

  test('entries are sorted by rep then window; an entry without dates is the plain rep id', () => {
    assert.deepEqual(
      valid([
        { owner_external_id: 'rep-b', from: '2026-05-01' },
        'rep-c',
        { owner_external_id: 'rep-a' },
        { owner_external_id: 'rep-b', until: '2026-04-30' },
      ]).assignees,
      [
        'rep-a',
        { owner_external_id: 'rep-b', until: '2026-04-30' },
        { owner_external_id: 'rep-b', from: '2026-05-01' },
        'rep-c',
      ],
    );
    assert.equal(planContentDigest(valid([{ owner_external_id: 'rep-a' }])), planContentDigest(valid(['rep-a'])));
  });

  test('overlapping windows of one rep, from after until, or a day that does not exist are refused by path', () => {
    assert.deepEqual(refused(['rep-a', { owner_external_id: 'rep-a', from: '2026-05-01' }]), [
      "assignees[1]: overlaps assignees[0] for rep-a: one rep's windows in a plan must not overlap",
    ]);
    assert.deepEqual(refused([{ owner_external_id: 'rep-a', from: '2026-05-01', until: '2026-04-30' }]), [
      'assignees[0].until: must not be before from (2026-05-01)',
    ]);
    assert.deepEqual(refused([{ owner_external_id: 'rep-a', from: '2026-02-30' }]), [
      'assignees[0].from: must be a day that exists, YYYY-MM-DD',
    ]);
    assert.equal(refused([{ owner_external_id: 'rep-a', since: '2026-02-01' }]).length, 1);
  });
});
