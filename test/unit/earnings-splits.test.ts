import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { divideByShares } from '../../src/domain/earnings/credit.ts';
import { parseLineKey } from '../../src/domain/earnings/lineKeys.ts';
import type { EngineChip } from '../../src/domain/earnings/types.ts';
import { chip, deal, otherRep, plan, rep, workedExampleChips } from '../factories/earnings.ts';
import { EarningsWorld, type StoredRow } from '../helpers/earningsLedger.ts';

// Split credit, computed by hand. Plan: monthly, quota 100,000.00; a 10% commission on
// every deal, the marginal accelerator (0% up to quota, 5% above) and the 2,000.00 quota bonus of
// product.md's example. rep-017 wins deal 1 alone (80,000.00) and shares deal 2 (50,000.01) 60/40 with
// rep-018.
//
// Deal 2 divided: 60% of 5,000,001 cents = 3,000,000.6, 40% = 2,000,000.4; floors 3,000,000 + 2,000,000
// leave 1 cent, which goes to the larger remainder (rep-017): 3,000,001 and 2,000,000, summing to 5,000,001.
// - base: rep-017 10% of 30,000.01 = 3,000.001 → 3,000.00; rep-018 10% of 20,000.00 = 2,000.00.
// - accelerator: rep-017 counts 80,000.00 then adds 30,000.01, reaching 110,000.01: 10,000.01 above quota at
//   5% = 500.0005 → 500.00. rep-018 reaches 20,000.00, below quota: 0, no row.
// - quota bonus: rep-017 at 110% → 2,000.00; rep-018 at 20% → none.

const splitPlan = plan({
  chips: [
    chip(11, {
      key: 'base',
      name: 'Base commission',
      kind: 'commission',
      when: null,
      params: { rate_bps: 1000, base: 'amount_cents' },
    }),
    ...(workedExampleChips.filter(
      (candidate) => candidate.key !== 'base' && candidate.key !== 'new-logo',
    ) as EngineChip[]),
  ],
});

const soloDeal = deal(1, { external_id: 'opp-solo', amount_cents: 8_000_000, close_date: '2026-04-05' });
const sharedDeal = deal(2, {
  external_id: 'opp-shared',
  amount_cents: 5_000_001,
  close_date: '2026-04-20',
  splits: [
    { owner_external_id: rep.external_id, share_bps: 6000 },
    { owner_external_id: otherRep.external_id, share_bps: 4000 },
  ],
});

function summary(rows: readonly StoredRow[]) {
  return rows.map((row) => ({
    rep: parseLineKey(row.line_key).user_id,
    chip: row.trace.chip.key,
    deal: row.trace.deal?.external_id ?? null,
    amount: row.amount_cents,
    status: row.status,
  }));
}

function live(world: EarningsWorld) {
  return summary(world.ledger.live()).sort((a, b) =>
    `${a.rep} ${a.chip} ${a.deal}`.localeCompare(`${b.rep} ${b.chip} ${b.deal}`),
  );
}

describe('split credit, by hand', () => {
  test('a 60/40 split under a marginal tier crosses quota for one rep only', () => {
    const world = new EarningsWorld(splitPlan, [rep, otherRep], '2026-04-25');
    world.change(soloDeal);
    world.change(sharedDeal);
    assert.deepEqual(live(world), [
      { rep: rep.user_id, chip: 'accelerator', deal: 'opp-shared', amount: 50_000, status: 'pending' },
      { rep: rep.user_id, chip: 'base', deal: 'opp-shared', amount: 300_000, status: 'pending' },
      { rep: rep.user_id, chip: 'base', deal: 'opp-solo', amount: 800_000, status: 'pending' },
      { rep: rep.user_id, chip: 'quota-bonus', deal: null, amount: 200_000, status: 'pending' },
      { rep: otherRep.user_id, chip: 'base', deal: 'opp-shared', amount: 200_000, status: 'pending' },
    ]);
  });

  test("the trace shows the rep's share, the credited cents, and the tier on the credited amount", () => {
    const world = new EarningsWorld(splitPlan, [rep, otherRep], '2026-04-25');
    world.change(soloDeal);
    world.change(sharedDeal);
    const accelerator = world.ledger
      .live()
      .find((row) => row.trace.chip.key === 'accelerator' && row.trace.deal?.external_id === 'opp-shared');
    assert.ok(accelerator);
    assert.deepEqual(accelerator.trace.deal?.splits, sharedDeal.splits);
    assert.deepEqual(accelerator.trace.steps.slice(0, 4), [
      { type: 'base', field: 'amount_cents', amount_cents: 5_000_001 },
      {
        type: 'split',
        owner_external_id: rep.external_id,
        share_bps: 6000,
        whole_cents: 5_000_001,
        credited_cents: 3_000_001,
      },
      {
        type: 'cumulative',
        prior_won_cents: 8_000_000,
        period_won_cents: 11_000_001,
        // The running total counts rep-017's credited part of the split deal, not the whole deal.
        counted_deals: [
          {
            id: soloDeal.id,
            external_id: 'opp-solo',
            amount_cents: 8_000_000,
            close_date: '2026-04-05',
            running_total_cents: 8_000_000,
          },
          {
            id: sharedDeal.id,
            external_id: 'opp-shared',
            amount_cents: 3_000_001,
            close_date: '2026-04-20',
            running_total_cents: 11_000_001,
          },
        ],
      },
      {
        type: 'tier',
        band: 1,
        from_cents: 0,
        to_cents: 10_000_000,
        slice_cents: 2_000_000,
        rate_bps: 0,
        exact_cents: '0',
      },
    ]);
    assert.ok(
      accelerator.trace.explanation.includes(
        'Deal opp-shared is split (rep-018 40.00%); rep-017 is credited 60.00% of the amount 50,000.01 = 30,000.01.',
      ),
      accelerator.trace.explanation.join('\n'),
    );
  });

  test('a split change supersedes exactly the rows it moves', () => {
    const world = new EarningsWorld(splitPlan, [rep, otherRep], '2026-04-25');
    world.change(soloDeal);
    world.change(sharedDeal);
    const before = new Map(world.ledger.live().map((row) => [row.id, { ...row }]));
    // rep-017 keeps 60% (same credited cents: 3,000,001 of 5,000,001); nothing of theirs may move.
    world.change({
      ...sharedDeal,
      splits: [
        { owner_external_id: otherRep.external_id, share_bps: 4000 },
        { owner_external_id: rep.external_id, share_bps: 6000 },
      ],
    });
    assert.deepEqual(
      world.ledger.live().map((row) => row.id),
      [...before.keys()],
      'the same shares in another order credit the same cents: no row moves',
    );
    // Now 50/50: 2,500,000.5 each, the leftover cent to the earlier entry (rep-018).
    world.change({
      ...sharedDeal,
      splits: [
        { owner_external_id: otherRep.external_id, share_bps: 5000 },
        { owner_external_id: rep.external_id, share_bps: 5000 },
      ],
    });
    const moved = world.ledger.rows.filter((row) => before.has(row.id) && row.status !== before.get(row.id)?.status);
    assert.deepEqual(
      summary(moved).map(({ rep: who, chip: key, deal: id, status }) => [who, key, id, status]),
      [
        [rep.user_id, 'base', 'opp-shared', 'superseded'],
        [rep.user_id, 'accelerator', 'opp-shared', 'superseded'],
        [otherRep.user_id, 'base', 'opp-shared', 'superseded'],
      ],
    );
    const written = world.ledger.rows.filter((row) => !before.has(row.id));
    assert.deepEqual(
      summary(written).map(({ rep: who, chip: key, amount }) => [who, key, amount]),
      [
        // rep-018 (the earlier entry) has the leftover cent: 10% of 25,000.01 = 2,500.001 → 2,500.00.
        [otherRep.user_id, 'base', 250_000],
        // 10% of 25,000.00 = 2,500.00; accelerator: 80,000.00 + 25,000.00 = 105,000.00, 5% of 5,000.00 = 250.00.
        [rep.user_id, 'base', 250_000],
        [rep.user_id, 'accelerator', 25_000],
      ],
    );
    assert.ok(written.every((row) => row.supersedes_id !== null && before.has(row.supersedes_id)));
  });

  test('a rep dropped from the splits has every row of the deal reversed; the owner, if not named, earns nothing', () => {
    const world = new EarningsWorld(splitPlan, [rep, otherRep], '2026-04-25');
    world.change(sharedDeal);
    world.change({ ...sharedDeal, splits: [{ owner_external_id: otherRep.external_id, share_bps: 10_000 }] });
    assert.deepEqual(live(world), [
      { rep: otherRep.user_id, chip: 'base', deal: 'opp-shared', amount: 500_000, status: 'pending' },
    ]);
    const reversed = world.ledger.rows.find((row) => row.status === 'reversed');
    assert.ok(reversed);
    assert.equal(parseLineKey(reversed.line_key).user_id, rep.user_id);
  });

  test('a flat SPIFF on a split deal is paid once in all, divided by the shares', () => {
    const spiff = plan({
      chips: [chip(21, { key: 'spiff', name: 'SPIFF', kind: 'flat', when: null, params: { amount_cents: 10_001 } })],
    });
    const world = new EarningsWorld(spiff, [rep, otherRep], '2026-04-25');
    world.change(sharedDeal);
    // 60% of 100.01 = 60.006, 40% = 40.004: floors 6,000 + 4,000 cents, the leftover cent to rep-017.
    assert.deepEqual(
      live(world).map((row) => [row.rep, row.amount]),
      [
        [rep.user_id, 6_001],
        [otherRep.user_id, 4_000],
      ],
    );
  });
});

describe('dividing a base by shares', () => {
  test('by hand: one leftover cent goes to the largest remainder, ties to the earlier entry', () => {
    assert.deepEqual(divideByShares(5_000_001n, [{ share_bps: 6000 }, { share_bps: 4000 }]), [3_000_001n, 2_000_000n]);
    assert.deepEqual(divideByShares(100n, [{ share_bps: 3333 }, { share_bps: 3333 }, { share_bps: 3334 }]), [
      33n,
      33n,
      34n,
    ]);
    assert.deepEqual(divideByShares(1n, [{ share_bps: 5000 }, { share_bps: 5000 }]), [1n, 0n]);
    assert.deepEqual(divideByShares(-5_000_001n, [{ share_bps: 6000 }, { share_bps: 4000 }]), [
      -3_000_001n,
      -2_000_000n,
    ]);
  });

  test('property: the parts are whole cents that sum to the whole, each within a cent of its exact share', () => {
    const shares = fc
      .array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 20 })
      .filter((weights) => weights.length <= 10_000)
      .map((weights) => {
        // Scale arbitrary weights to basis points summing to exactly 10000, each at least 1.
        const total = weights.reduce((sum, weight) => sum + weight, 0);
        const bps = weights.map((weight) => Math.max(1, Math.floor((weight * 10_000) / total)));
        let excess = bps.reduce((sum, share) => sum + share, 0) - 10_000;
        for (let index = 0; excess !== 0; index = (index + 1) % bps.length) {
          const share = bps[index] as number;
          if (excess > 0 && share > 1) {
            bps[index] = share - 1;
            excess -= 1;
          } else if (excess < 0) {
            bps[index] = share + 1;
            excess += 1;
          }
        }
        return bps.map((share_bps) => ({ share_bps }));
      });
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 53n), max: 2n ** 53n }), shares, (whole, split) => {
        assert.equal(
          split.reduce((sum, share) => sum + share.share_bps, 0),
          10_000,
        );
        const parts = divideByShares(whole, split);
        assert.equal(
          parts.reduce((sum, part) => sum + part, 0n),
          whole,
        );
        parts.forEach((part, index) => {
          const exactTimes10k = whole * BigInt(split[index]?.share_bps ?? 0);
          const distance = part * 10_000n - exactTimes10k;
          assert.ok(distance > -10_000n && distance < 10_000n, `part ${part} is a cent or more from its share`);
        });
      }),
      { numRuns: 500 },
    );
  });
});
