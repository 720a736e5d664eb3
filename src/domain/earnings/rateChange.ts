import type { ExchangeRate } from './exchange.ts';
import type { LineTarget } from './types.ts';

// A new exchange rate (docs/currencies.md, Setting a rate re-evaluates) moves the amount of every line whose deal it
// converts, in locked and paid periods too. The ledger rule applies to those lines as to any late change: the
// frozen rows stay, and the difference is booked as a top-up or clawback in the earliest open period after the
// line's. Other lines of closed periods are not the rate's doing and are left as they are.

/** A rate as `quotient fx set` stores it, and the rate of the same pair and day it replaced (null when none). */
export interface RateChange {
  rate: ExchangeRate;
  replaced: string | null;
}

/** The org's rates as they were before the change: without the new rate, or with the one it replaced. */
export function ratesBefore(rates: readonly ExchangeRate[], change: RateChange): ExchangeRate[] {
  const { rate, replaced } = change;
  const samePairAndDay = (known: ExchangeRate) =>
    known.from_currency === rate.from_currency &&
    known.to_currency === rate.to_currency &&
    known.effective_on === rate.effective_on;
  const others = rates.filter((known) => !samePairAndDay(known));
  return replaced === null ? others : [...others, { ...rate, rate: replaced }];
}

/**
 * Which lines the change moved, given the targets evaluated with the rates before it: a line whose earned or
 * projected amount, or whose pricing, is not what those rates gave (a line they did not give counts as 0, priced).
 */
export function movedByRate(before: readonly LineTarget[]): (target: LineTarget) => boolean {
  const previous = new Map(before.map((target) => [target.line.line_key, target]));
  return (target) => {
    const was = previous.get(target.line.line_key);
    return (
      target.earned_cents !== (was?.earned_cents ?? 0) ||
      target.projected_cents !== (was?.projected_cents ?? 0) ||
      (target.pricing ?? 'priced') !== (was?.pricing ?? 'priced')
    );
  };
}
