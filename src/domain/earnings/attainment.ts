import { type CalendarDate, type PeriodId, periodKindOf } from '../periods.ts';
import { assignmentWindows, dealDate, windowCovers } from './assignments.ts';
import { dealPeriodId } from './dealPeriods.ts';
import { creditedAmountOf, type OrgMoney, pricingOf } from './pricing.ts';
import { partialCover, proratedQuota } from './proration.ts';
import type { DealSnapshot, EnginePlanVersion } from './types.ts';

export interface AttainmentRequest {
  plan: Pick<EnginePlanVersion, 'assignees' | 'period' | 'quota_cents' | 'currency'>;
  repExternalId: string;
  /** The rep's deals: those it owns and the split deals that credit it (others count nothing). */
  deals: readonly DealSnapshot[];
  periodId: PeriodId;
  today: CalendarDate;
  money?: OrgMoney;
}

/**
 * A rep's attainment under a plan in a period, counted as the plan's tiers and attainment bonuses count it: the
 * rep's credited part of each won deal of the period dated in the rep's assignment windows, in the plan's currency
 * (a deal no rate converts is left out, as the running totals leave it out), against the quota, prorated when the
 * windows cover only part of the period. A period of another kind than the plan's counts nothing.
 */
export function attainmentIn(request: AttainmentRequest): { won_cents: bigint; quota_cents: bigint | null } {
  const { plan, repExternalId, periodId, today } = request;
  const windows = assignmentWindows(plan, repExternalId);
  const quota = plan.quota_cents === null || plan.quota_cents === undefined ? null : BigInt(plan.quota_cents);
  const cover = partialCover(windows, periodId);
  const quotaCents = quota !== null && cover ? proratedQuota(quota, cover.covered, cover.days) : quota;
  if (periodKindOf(periodId) !== plan.period) return { won_cents: 0n, quota_cents: quotaCents };
  const pricing = pricingOf(plan, request.money, today);
  let won = 0n;
  for (const deal of request.deals) {
    if (deal.status !== 'won' || dealPeriodId(deal, plan.period, today) !== periodId) continue;
    if (!windows.some((window) => windowCovers(window, dealDate(deal, today)))) continue;
    won += creditedAmountOf(deal, repExternalId, pricing) ?? 0n;
  }
  return { won_cents: won, quota_cents: quotaCents };
}
