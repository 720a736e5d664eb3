import { formatMoney, formatRate } from './money.ts';
import type { DealSnapshot, TraceStep } from './types.ts';

// Split credit (docs/plan-features.md, Split credit): who is credited with a deal, and how much of a base each
// credited rep gets. A deal without splits credits its owner with the whole; a split deal credits each named
// rep with `share_bps` of it. The parts are whole cents that always sum to the whole, so a split never
// creates or loses a cent before the chip's single rounding per line: each rep gets the whole × share
// rounded down, and the cents left over go one each to the largest remainders (ties: the earlier entry).

export const WHOLE_SHARE_BPS = 10_000n;

export interface CreditShare {
  owner_external_id: string;
  share_bps: number;
}

/** The deal's credited reps in the order of its splits; the owner alone (10000 bp) without splits; none without an owner. */
export function creditsOf(deal: DealSnapshot): CreditShare[] {
  if (deal.splits) return deal.splits.map(({ owner_external_id, share_bps }) => ({ owner_external_id, share_bps }));
  return deal.owner_external_id === null ? [] : [{ owner_external_id: deal.owner_external_id, share_bps: 10_000 }];
}

/** Whether the deal is split among reps (rather than credited whole to its owner). */
export function isSplit(deal: DealSnapshot): boolean {
  return Boolean(deal.splits);
}

/** Every rep a deal credits. */
export function creditedReps(deal: DealSnapshot): string[] {
  return creditsOf(deal).map((credit) => credit.owner_external_id);
}

/**
 * The whole divided by the shares (basis points summing to 10000) into whole cents that sum to it exactly:
 * floors, then one cent each to the largest remainders, earlier entries first among equal remainders. A
 * negative whole (a custom base may be one) is divided as its magnitude and negated.
 */
export function divideByShares(whole: bigint, shares: readonly { share_bps: number }[]): bigint[] {
  if (whole < 0n) return divideByShares(-whole, shares).map((part) => -part);
  const exact = shares.map((share) => whole * BigInt(share.share_bps));
  const parts = exact.map((value) => value / WHOLE_SHARE_BPS);
  let left = whole - parts.reduce((sum, part) => sum + part, 0n);
  const byRemainder = exact
    .map((value, index) => ({ index, remainder: value % WHOLE_SHARE_BPS }))
    .sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  for (const { index } of byRemainder) {
    if (left <= 0n) break;
    parts[index] = (parts[index] ?? 0n) + 1n;
    left -= 1n;
  }
  return parts;
}

/** A rep's credited part of a base of the deal, with the trace step and sentence that show it. */
export interface CreditedPart {
  cents: bigint;
  /** Present for a split deal only: a deal credited whole to its owner needs no step. */
  step: TraceStep | null;
  explanation: string[];
}

/**
 * The rep's part of `whole` (a base of the deal: its amount, a custom field, a flat amount): all of it for
 * the owner of a deal without splits, the rep's share of a split deal, nothing for a rep it does not credit.
 * `decimals`: those of the currency `whole` is in, for the explanation.
 */
export function creditedPart(
  deal: DealSnapshot,
  repExternalId: string,
  whole: bigint,
  what: string,
  decimals = 2,
): CreditedPart {
  const credits = creditsOf(deal);
  const index = credits.findIndex((credit) => credit.owner_external_id === repExternalId);
  const credit = credits[index];
  if (credit === undefined) return { cents: 0n, step: null, explanation: [] };
  if (!isSplit(deal)) return { cents: whole, step: null, explanation: [] };
  const cents = divideByShares(whole, credits)[index] ?? 0n;
  const others = credits
    .filter((other) => other.owner_external_id !== repExternalId)
    .map((other) => `${other.owner_external_id} ${formatRate(BigInt(other.share_bps))}`)
    .join(', ');
  return {
    cents,
    step: {
      type: 'split',
      owner_external_id: repExternalId,
      share_bps: credit.share_bps,
      whole_cents: Number(whole),
      credited_cents: Number(cents),
    },
    explanation: [
      `Deal ${deal.external_id} is split (${others === '' ? 'no one else' : others}); ${repExternalId} is credited ${formatRate(BigInt(credit.share_bps))} of ${what} ${formatMoney(whole, decimals)} = ${formatMoney(cents, decimals)}.`,
    ],
  };
}
