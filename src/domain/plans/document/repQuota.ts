import { decimalsOf } from '../../currencies.ts';
import { hasOwnQuota, quotaForPeriod, type RepQuotas } from '../../earnings/quotas.ts';
import { nextPeriodId, type PeriodId } from '../../periods.ts';
import type { PlanDefinition } from '../types.ts';
import type { QuotaSource } from './model.ts';

// A rep's own quota in their plan document (docs/plan-documents.md, docs/quotas.md): the figure of every period of
// the year from the version's period, each from `quotaForPeriod`, the function the engine and statements use, so the
// document shows the very quota the rep is paid against. Pure: the caller reads the rep's quota table and start date.

/** How many periods the document lists: a year of the plan's periods. */
export function periodsInYear(plan: Pick<PlanDefinition, 'period'>): number {
  return plan.period === 'monthly' ? 12 : 4;
}

/**
 * The quota source of a rep's document: the figure of `firstPeriodId` (the period the worked examples take place in,
 * so tier bounds and thresholds in percent of quota are the rep's), a sentence saying where it came from, the plan's
 * ramp when it ramps this rep, and the figure of each period of the year from `firstPeriodId` on.
 */
export function repQuotaSource(
  plan: Pick<PlanDefinition, 'period' | 'quota_cents' | 'ramp'>,
  quotas: RepQuotas,
  firstPeriodId: PeriodId,
  currency: string,
): QuotaSource {
  const decimals = decimalsOf(currency);
  const periods: NonNullable<QuotaSource['periods']> = [];
  let periodId = firstPeriodId;
  for (let index = 0; index < periodsInYear(plan); index += 1) {
    const figure = quotaForPeriod(plan, quotas, periodId, decimals);
    periods.push({ period_id: periodId, quota_cents: figure.quota_cents, explanation: figure.explanation });
    periodId = nextPeriodId(periodId);
  }
  const first = periods[0];
  const ramped = quotas.start_date !== null && (plan.ramp?.length ?? 0) > 0;
  const own = hasOwnQuota(plan, quotas);
  return {
    quota_cents: first?.quota_cents ?? plan.quota_cents,
    source: own
      ? `Your quota for ${firstPeriodId}, the period of the worked examples: ${first?.explanation ?? ''} Your quota for each period is in the table below.`
      : plan.quota_cents === null
        ? 'The plan has no quota, and none is set for you.'
        : `The plan's quota; no quota of your own is set under this plan. Your quota for each period is in the table below.`,
    ...(ramped && plan.ramp ? { ramp_pct: [...plan.ramp] } : {}),
    start_date: quotas.start_date,
    periods,
  };
}
