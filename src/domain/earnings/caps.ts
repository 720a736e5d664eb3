import { centsAsNumber, formatMoney } from './money.ts';
import type { TraceStep } from './types.ts';

// Caps and floors (issue 16, item 3): a chip may pay at most `deal_cap_cents` on one deal and at most `cap_cents` per rep
// and period; a plan may pay a rep at most its `cap_cents` per period over all chips. A cap cuts rounded
// line amounts (the single rounding of a line happens first), in the order a period's deals count: close
// date, then won time, then id. Earned lines take the cap first; an open deal's projection gets what the
// won deals leave, as if it were won next. A line whose deal is lost again gives its share of the cap back,
// so the lines after it earn more: the ledger books that as top-ups (in the next open period when the
// period is locked) beside the clawback.

export type CapScope = 'deal' | 'period' | 'plan';

/** One line's amount before and after a cap, and how much of the cap earlier lines had used. */
export interface Cut {
  uncapped: bigint;
  amount: bigint;
  used_before: bigint;
}

/**
 * Cuts amounts, in counting order, so that their running total stays within `cap`: each gets at most what
 * the earlier ones left (never less than nothing). Amounts of zero or less pass unchanged.
 */
export function cutToCap(amounts: readonly bigint[], cap: bigint): Cut[] {
  let used = 0n;
  return amounts.map((uncapped) => {
    const left = cap - used > 0n ? cap - used : 0n;
    const amount = uncapped > left ? left : uncapped;
    const cut = { uncapped, amount, used_before: used };
    used += amount;
    return cut;
  });
}

/** A projection's cut: what the period's earned lines (`used`) leave of the cap. */
export function cutAfter(uncapped: bigint, cap: bigint, used: bigint): Cut {
  const left = cap - used > 0n ? cap - used : 0n;
  return { uncapped, amount: uncapped > left ? left : uncapped, used_before: used };
}

const SCOPE_WORDS: Record<CapScope, string> = {
  deal: 'on one deal',
  period: 'per rep and period',
  plan: 'per rep and period over all its chips',
};

/** The trace step and sentence of a cap that applies to a line (whether or not it cuts). */
export function capTrace(
  scope: CapScope,
  capCents: bigint,
  cut: Cut,
  periodId: string,
  decimals = 2,
): { step: TraceStep; sentence: string } {
  const money = (cents: bigint) => formatMoney(cents, decimals);
  const step: TraceStep = {
    type: 'cap',
    scope,
    cap_cents: centsAsNumber(capCents),
    used_before_cents: centsAsNumber(cut.used_before),
    uncapped_cents: centsAsNumber(cut.uncapped),
    amount_cents: centsAsNumber(cut.amount),
  };
  const owner = scope === 'plan' ? 'The plan' : 'The chip';
  const used = scope === 'deal' ? '' : `; earlier lines of ${periodId} used ${money(cut.used_before)} of it`;
  const outcome =
    cut.amount === cut.uncapped
      ? `so ${money(cut.uncapped)} is within the cap`
      : `so this line is cut from ${money(cut.uncapped)} to ${money(cut.amount)}`;
  return { step, sentence: `${owner} pays at most ${money(capCents)} ${SCOPE_WORDS[scope]}${used}, ${outcome}.` };
}

/**
 * The trace step and sentence of a chip's floor that tops up a line: the period's lines of the chip paid `total`,
 * less than `floorCents`, so this line, the last of them, goes from `before` to `after`.
 */
export function floorTrace(
  floorCents: bigint,
  total: bigint,
  before: bigint,
  after: bigint,
  periodId: string,
  decimals = 2,
): { step: TraceStep; sentence: string } {
  const money = (cents: bigint) => formatMoney(cents, decimals);
  const step: TraceStep = {
    type: 'floor',
    floor_cents: centsAsNumber(floorCents),
    period_total_cents: centsAsNumber(total),
    unfloored_cents: centsAsNumber(before),
    amount_cents: centsAsNumber(after),
  };
  return {
    step,
    sentence: `The chip pays at least ${money(floorCents)} per rep and period; its lines of ${periodId} pay ${money(total)}, so this line, the last of them, is topped up by ${money(floorCents - total)} from ${money(before)} to ${money(after)}.`,
  };
}
