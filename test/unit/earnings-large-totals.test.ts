import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { MAX_AMOUNT_CENTS, parseDealEvent } from '../../src/domain/deals/event.ts';
import { computeAttainmentBonus } from '../../src/domain/earnings/chips.ts';
import { exactFromCents, rateOfWholeBps, runningTotalOnWire } from '../../src/domain/earnings/money.ts';
import { computeTiered } from '../../src/domain/earnings/tieredChip.ts';

// Amounts and running totals at the edges: one deal is at most MAX_AMOUNT_CENTS, and sums over many deals are
// exact bigints whose trace notation switches to a decimal string past 2^53 − 1 instead of failing.

const BEYOND = 2n ** 53n + 7n;

describe('the largest deal amount', () => {
  test('amount_cents up to one trillion in currency units is accepted; one cent more is refused naming it', () => {
    assert.equal(
      parseDealEvent({ external_id: 'a', state: { amount_cents: MAX_AMOUNT_CENTS } }).patch.standard.amount_cents,
      MAX_AMOUNT_CENTS,
    );
    assert.throws(
      () => parseDealEvent({ external_id: 'a', state: { amount_cents: MAX_AMOUNT_CENTS + 1 } }),
      /^Refusal: state\.amount_cents: must be a whole number of cents from 0 to 100000000000000$/,
    );
    assert.throws(() => parseDealEvent({ external_id: 'a', state: { amount_cents: 2 ** 52 } }), /state\.amount_cents/);
  });
});

describe('running totals past 2^53 - 1', () => {
  test('are numbers up to 2^53 - 1 and exact decimal strings beyond', () => {
    assert.equal(runningTotalOnWire(9_007_199_254_740_991n), 9_007_199_254_740_991);
    assert.equal(runningTotalOnWire(BEYOND), '9007199254740999');
  });

  const bands = [
    { position: 1, from_cents: 0n, to_cents: 1_000_000n, rate: 0n, up_to_pct: null },
    { position: 2, from_cents: 1_000_000n, to_cents: null, rate: rateOfWholeBps(500n), up_to_pct: null },
  ];
  const cumulative = (prior: bigint, amount: bigint) => ({
    prior_cents: prior,
    period_cents: prior + amount,
    rep_external_id: 'rep-1',
    period_id: '2026-06',
    projected: false,
  });

  test('a marginal tier still computes the deal exactly, and the trace says the total is beyond a JSON number', () => {
    const amount = BigInt(MAX_AMOUNT_CENTS);
    const computation = computeTiered(
      amount,
      cumulative(BEYOND, amount),
      {
        kind: 'tiered_commission',
        basis: 'cumulative',
        mode: 'marginal',
        bands,
        caps: { period_cents: null, deal_cents: null, floor_cents: null },
      },
      null,
    );
    assert.equal(computation.exact, amount * rateOfWholeBps(500n));
    assert.deepEqual(computation.steps[1], {
      type: 'cumulative',
      prior_won_cents: BEYOND.toString(),
      period_won_cents: (BEYOND + amount).toString(),
    });
    assert.ok(computation.explanation.some((sentence) => sentence.includes('exact decimal string')));
  });

  test('a retroactive tier picks the open band for a total beyond 2^53 - 1', () => {
    const computation = computeTiered(
      100n,
      cumulative(BEYOND, 100n),
      {
        kind: 'tiered_commission',
        basis: 'cumulative',
        mode: 'retroactive',
        bands,
        caps: { period_cents: null, deal_cents: null, floor_cents: null },
      },
      null,
    );
    assert.equal(computation.exact, 100n * rateOfWholeBps(500n));
  });

  test('an attainment bonus with a total beyond 2^53 - 1 is reached and shows the exact total', () => {
    const computation = computeAttainmentBonus(
      BEYOND,
      10_000_000n,
      { kind: 'attainment_bonus', threshold_pct: 100, amount_cents: 200_000n },
      'rep-1',
      '2026-06',
    );
    assert.equal(computation.exact, exactFromCents(200_000n));
    assert.equal((computation.steps[0] as { attained_cents: unknown }).attained_cents, BEYOND.toString());
  });
});
