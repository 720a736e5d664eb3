import { decimalsOf } from '../currencies.ts';
import { type CalendarDate, type PeriodId, periodKindOf } from '../periods.ts';
import { dealDate, windowCovers, windowsOverlapPeriod } from './assignments.ts';
import { type AttainmentCredit, creditsIn } from './attainmentCredits.ts';
import { dealPeriodId } from './dealPeriods.ts';
import { repWindows } from './leavers.ts';
import { creditedAmountOf, type OrgMoney, pricingOf } from './pricing.ts';
import { partialCover, proratedQuota } from './proration.ts';
import { type QuotaFigure, quotaForPeriod, type RepQuotas } from './quotas.ts';
import type { DealSnapshot, EnginePlanVersion } from './types.ts';

export interface AttainmentRequest {
  plan: Pick<EnginePlanVersion, 'assignees' | 'period' | 'quota_cents' | 'ramp' | 'currency'>;
  repExternalId: string;
  /** The rep's deals: those it owns and the split deals that credit it (others count nothing). */
  deals: readonly DealSnapshot[];
  periodId: PeriodId;
  today: CalendarDate;
  money?: OrgMoney;
  /** The rep's quota table under the plan and its start date; absent: the plan's quota. */
  quotas?: RepQuotas;
  /** The rep's adjustments that count toward attainment (attainmentCredits.ts); absent: none. */
  credits?: readonly AttainmentCredit[];
}

/**
 * A rep's attainment under a plan in a period, counted as the plan's tiers and attainment bonuses count it: the
 * rep's credited part of each won deal of the period dated in the rep's assignment windows, in the plan's currency
 * (a deal no rate converts is left out, as the running totals leave it out), against the quota, prorated when the
 * windows cover only part of the period. The quota is the rep's own for the period (quotas.ts), as the engine reads
 * it; `quota` says where it came from. A period of another kind than the plan's counts nothing. Adjustments that
 * count toward attainment add their amount (`adjustments_cents`, within `won_cents`) when the rep is assigned to the
 * plan during the period, as the chips without a condition count them.
 */
export function attainmentIn(request: AttainmentRequest): {
  won_cents: bigint;
  /** What the adjustments counted add, within `won_cents`; null when none counts here. */
  adjustments_cents: bigint | null;
  quota_cents: bigint | null;
  quota: QuotaFigure;
} {
  const { plan, repExternalId, periodId, today } = request;
  const windows = repWindows(plan, repExternalId, request.quotas);
  const figure = quotaForPeriod(
    plan,
    request.quotas,
    periodId,
    decimalsOf(pricingOf(plan, request.money, today).plan_currency),
  );
  const quota = figure.quota_cents === null ? null : BigInt(figure.quota_cents);
  const cover = partialCover(windows, periodId);
  const quotaCents = quota !== null && cover ? proratedQuota(quota, cover.covered, cover.days) : quota;
  if (periodKindOf(periodId) !== plan.period) {
    return { won_cents: 0n, adjustments_cents: null, quota_cents: quotaCents, quota: figure };
  }
  const pricing = pricingOf(plan, request.money, today);
  const credits = windowsOverlapPeriod(windows, periodId)
    ? creditsIn(request.credits, plan.period, pricing, periodId)
    : null;
  const credited = credits && credits.counted.length > 0 ? credits.total_cents : null;
  let won = credited ?? 0n;
  for (const deal of request.deals) {
    if (deal.status !== 'won' || dealPeriodId(deal, plan.period, today) !== periodId) continue;
    if (!windows.some((window) => windowCovers(window, dealDate(deal, today)))) continue;
    won += creditedAmountOf(deal, repExternalId, pricing) ?? 0n;
  }
  return { won_cents: won, adjustments_cents: credited, quota_cents: quotaCents, quota: figure };
}
