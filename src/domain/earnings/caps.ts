import { decimalsOf } from '../currencies.ts';
import type { PeriodId } from '../periods.ts';
import type { ChipCaps } from './chipRules.ts';
import { compareKeys, wonOrderKey } from './dealPeriods.ts';
import { centsAsNumber, formatMoney } from './money.ts';
import type { EnginePlanVersion, LineTarget, TraceStep } from './types.ts';

// Caps and floors (docs/plan-features.md): a chip may pay at most `deal_cap_cents` on one deal and at most `cap_cents`
// per rep and period; a plan may pay a rep at most its `cap_cents` per period over all chips. A cap cuts rounded line
// amounts (the single rounding of a line happens first), in the order a period's deals count: close date, then won
// time, then id. Earned lines take the cap first; an open deal's projection gets what the won deals leave, as if it
// were won next. A line whose deal is lost again gives its share of the cap back, so the lines after it earn more: the
// ledger books that as top-ups (in the next open period when the period is locked) beside the clawback.

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

/** The line's amount (earned for a won deal or a period line, projected for an open deal) and its kind. */
function amountOfLine(target: LineTarget): { cents: bigint; projected: boolean } {
  const projected = target.projected_cents !== 0;
  return { cents: BigInt(projected ? target.projected_cents : target.earned_cents), projected };
}

/** The line with a cap applied: the new amount, and the cap's step and sentence added to its trace. */
function capped(target: LineTarget, scope: CapScope, capCents: bigint, cut: Cut): LineTarget {
  const { step, sentence } = capTrace(scope, capCents, cut, target.period_id, decimalsOf(target.currency));
  const { projected } = amountOfLine(target);
  const amount = centsAsNumber(cut.amount);
  return {
    ...target,
    earned_cents: projected ? 0 : amount,
    projected_cents: projected ? amount : 0,
    trace: {
      ...target.trace,
      steps: [...target.trace.steps, step],
      explanation: [...target.trace.explanation, sentence],
    },
  };
}

/** Counting order of lines in a period: deals by wonOrderKey, period-level lines after them. */
function lineOrderKey(target: LineTarget): string[] {
  return target.trace.deal === null ? ['\uffff'] : wonOrderKey(target.trace.deal);
}

/**
 * Cuts lines, per period, to a cap they share: the won lines in counting order (`order` breaks ties, e.g.
 * chip order), then each projection with what the won lines left. Lines that pay nothing are left alone.
 */
function cutPeriods(
  targets: readonly LineTarget[],
  cap: bigint,
  scope: CapScope,
  order: (target: LineTarget) => string[],
): LineTarget[] {
  const result = [...targets];
  const byPeriod = new Map<PeriodId, number[]>();
  result.forEach((target, index) => {
    if (amountOfLine(target).cents === 0n) return;
    byPeriod.set(target.period_id, [...(byPeriod.get(target.period_id) ?? []), index]);
  });
  for (const indexes of byPeriod.values()) {
    const earned = indexes
      .filter((index) => !amountOfLine(result[index] as LineTarget).projected)
      .sort((a, b) => compareKeys(order(result[a] as LineTarget), order(result[b] as LineTarget)) || a - b);
    const cuts = cutToCap(
      earned.map((index) => amountOfLine(result[index] as LineTarget).cents),
      cap,
    );
    let used = 0n;
    earned.forEach((index, position) => {
      const cut = cuts[position] as Cut;
      used += cut.amount;
      result[index] = capped(result[index] as LineTarget, scope, cap, cut);
    });
    for (const index of indexes.filter((candidate) => !earned.includes(candidate))) {
      const target = result[index] as LineTarget;
      result[index] = capped(target, scope, cap, cutAfter(amountOfLine(target).cents, cap, used));
    }
  }
  return result;
}

/** Whether a line's chip applies to its won deal (computed, whatever the amount): what a floor can top up. */
function paysOnWonDeal(target: LineTarget): boolean {
  return (
    target.trace.deal?.status === 'won' &&
    target.trace.steps.some((step) => step.type === 'rounding') &&
    !target.trace.steps.some((step) => step.type === 'zero_target')
  );
}

/**
 * A chip's floor on its lines of one rep, per period: when the period's won lines the chip applies to pay less
 * than the floor, the last of them in counting order is topped up by the difference. A period without such a
 * line has no floor (a guarantee for periods without deals is the plan's draw).
 */
function raiseToFloor(targets: readonly LineTarget[], floor: bigint): LineTarget[] {
  const result = [...targets];
  const byPeriod = new Map<PeriodId, number[]>();
  result.forEach((target, index) => {
    if (paysOnWonDeal(target)) byPeriod.set(target.period_id, [...(byPeriod.get(target.period_id) ?? []), index]);
  });
  for (const indexes of byPeriod.values()) {
    const ordered = indexes.sort((a, b) =>
      compareKeys(lineOrderKey(result[a] as LineTarget), lineOrderKey(result[b] as LineTarget)),
    );
    const total = ordered.reduce((sum, index) => sum + BigInt((result[index] as LineTarget).earned_cents), 0n);
    const last = ordered.at(-1);
    if (last === undefined || total >= floor) continue;
    const target = result[last] as LineTarget;
    const before = BigInt(target.earned_cents);
    const { step, sentence } = floorTrace(
      floor,
      total,
      before,
      before + floor - total,
      target.period_id,
      decimalsOf(target.currency),
    );
    result[last] = {
      ...target,
      earned_cents: centsAsNumber(before + floor - total),
      trace: {
        ...target.trace,
        steps: [...target.trace.steps, step],
        explanation: [...target.trace.explanation, sentence],
      },
    };
  }
  return result;
}

/**
 * A chip's caps and floor on its lines of one rep: each deal's cap on its own, then each period's lines
 * together, the floor before the period cap.
 */
export function applyChipCaps(lines: LineTarget[], caps: ChipCaps) {
  let result = lines;
  const dealCap = caps.deal_cents;
  if (dealCap !== null) {
    result = result.map((target) => {
      const { cents } = amountOfLine(target);
      return cents === 0n ? target : capped(target, 'deal', dealCap, cutAfter(cents, dealCap, 0n));
    });
  }
  if (caps.floor_cents !== null) result = raiseToFloor(result, caps.floor_cents);
  if (caps.period_cents !== null) result = cutPeriods(result, caps.period_cents, 'period', lineOrderKey);
  return result;
}

/** The plan's cap over every chip's lines of the rep, per period: deals in counting order, chips in plan order. */
export function applyPlanCap(plan: EnginePlanVersion, targets: LineTarget[], cap: bigint): LineTarget[] {
  const chipIndex = new Map(plan.chips.map((chip, index) => [chip.id, String(index).padStart(4, '0')]));
  return cutPeriods(targets, cap, 'plan', (target) => [
    ...lineOrderKey(target),
    chipIndex.get(target.line.chip_id) ?? '',
  ]);
}
