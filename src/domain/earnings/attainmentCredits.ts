import { decimalsOf } from '../currencies.ts';
import { type PeriodId, type PeriodKind, periodBounds, periodIdOf } from '../periods.ts';
import { convertMinorUnits, rateInForce } from './exchange.ts';
import { formatMoney } from './money.ts';
import type { Pricing } from './pricing.ts';
import type { EngineChip, TraceCountedAdjustment } from './types.ts';

// Manual adjustments that count toward attainment (docs/pay-workflow.md, "Adjustments that count toward
// attainment"): an admin's choice per adjustment. Such an adjustment adds its amount to the rep's running total of
// its period before the period's deals, in every tiered or attainment chip without a condition (a condition picks
// deals, and an adjustment is not a deal) and in the statement's attainment. Pure: the caller loads them.

/** An adjustment that counts toward attainment, as the engine reads it. */
export interface AttainmentCredit {
  id: string;
  /** The adjustment's own period (a month or a quarter). */
  period_id: PeriodId;
  /** Signed, in minor units of `currency`. */
  amount_cents: number;
  currency: string;
}

/** What the credits add to one period of a plan. */
export interface PeriodCredits {
  /** Their sum in the plan's currency. */
  total_cents: bigint;
  /** Each counted, in the order given (the adjustments' order of creation). */
  counted: TraceCountedAdjustment[];
  /** Ids of those no exchange rate converts into the plan's currency: left out until one does. */
  unpriced: string[];
}

export const NO_CREDITS: PeriodCredits = { total_cents: 0n, counted: [], unpriced: [] };

/**
 * The plan period an adjustment counts in: the plan's period (of its kind) that holds the last day of the
 * adjustment's period. A month's adjustment counts in its quarter under a quarterly plan; a quarter's in the
 * quarter's last month under a monthly plan.
 */
export function creditPeriodOf(adjustmentPeriod: PeriodId, kind: PeriodKind): PeriodId {
  return periodIdOf(periodBounds(adjustmentPeriod).ends_on, kind);
}

/** Whether a chip counts adjustments toward attainment: a tiered or attainment chip without a condition. */
export function countsCredits(chip: Pick<EngineChip, 'kind' | 'when'>): boolean {
  return (chip.kind === 'tiered_commission' || chip.kind === 'attainment_bonus') && chip.when === null;
}

/** The plan periods the credits count in. */
export function creditPeriods(credits: readonly AttainmentCredit[] | undefined, kind: PeriodKind): PeriodId[] {
  return [...new Set((credits ?? []).map((credit) => creditPeriodOf(credit.period_id, kind)))];
}

/**
 * What the credits add to `periodId` of a plan pricing in `pricing`: each one whose period falls in it, converted
 * into the plan's currency at the rate in force on the last day of the adjustment's period (none: left out).
 */
export function creditsIn(
  credits: readonly AttainmentCredit[] | undefined,
  kind: PeriodKind,
  pricing: Pick<Pricing, 'plan_currency' | 'rates'>,
  periodId: PeriodId,
): PeriodCredits {
  if (!credits || credits.length === 0) return NO_CREDITS;
  let total = 0n;
  const counted: TraceCountedAdjustment[] = [];
  const unpriced: string[] = [];
  for (const credit of credits) {
    if (creditPeriodOf(credit.period_id, kind) !== periodId) continue;
    const amount = BigInt(credit.amount_cents);
    let cents = amount;
    if (credit.currency !== pricing.plan_currency) {
      const used = rateInForce(
        pricing.rates,
        credit.currency,
        pricing.plan_currency,
        periodBounds(credit.period_id).ends_on,
      );
      if (used === null) {
        unpriced.push(credit.id);
        continue;
      }
      cents = convertMinorUnits(amount, credit.currency, pricing.plan_currency, used).converted;
    }
    total += cents;
    counted.push({
      id: credit.id,
      period_id: credit.period_id,
      amount_cents: credit.amount_cents,
      currency: credit.currency,
      counted_cents: Number(cents),
    });
  }
  return counted.length === 0 && unpriced.length === 0 ? NO_CREDITS : { total_cents: total, counted, unpriced };
}

/** The sentences a line counting the credits says about them. */
export function creditSentences(credits: PeriodCredits, periodId: PeriodId, planCurrency: string): string[] {
  const sentences: string[] = [];
  if (credits.counted.length > 0) {
    const decimals = decimalsOf(planCurrency);
    const each = credits.counted.map((credit) => {
      const counted = formatMoney(BigInt(credit.counted_cents), decimals);
      return credit.currency === planCurrency
        ? `${credit.id} ${counted}`
        : `${credit.id} ${counted} (${credit.currency} ${formatMoney(BigInt(credit.amount_cents), decimalsOf(credit.currency))})`;
    });
    sentences.push(
      `Manual adjustments counted toward attainment in ${periodId} before its deals: ${each.join(', ')}; the running total starts at ${formatMoney(credits.total_cents, decimals)}.`,
    );
  }
  if (credits.unpriced.length > 0) {
    sentences.push(
      `Not counted in ${periodId} until an exchange rate converts them: ${credits.unpriced.map((id) => `adjustment ${id}`).join(', ')}.`,
    );
  }
  return sentences;
}
