import { type CalendarDate, nextPeriodId, type PeriodId, periodBounds } from '../periods.ts';
import type { PlanYear } from '../plans/types.ts';
import type { AssignmentWindow } from './assignments.ts';
import { formatMoney, roundHalfAwayFromZero } from './money.ts';
import type { RepQuotas } from './quotas.ts';
import type { EnginePlanVersion, LineTarget, TraceStep } from './types.ts';

// A plan year paid monthly (docs/plan-features.md, "A plan year paid monthly"), as the engine runs it from a plan
// file's `plan_year`: a monthly plan's tiered chips count the rep's won deals from the first day of the plan year
// against the rep's annual quota, blended by days (yearToDate.ts holds the same arithmetic month by month). Each deal's
// line takes the slices of the year's bands it covers, so the lines of the months through M add up to the year to
// date's earnings through M; a change to an earlier month moves its lines and the later months' ones, and the ledger
// books what a locked month would now pay differently in the next open month: that is the true-up.

const DAY_MS = 86_400_000;
const dayNumber = (date: CalendarDate) => Date.parse(`${date}T00:00:00.000Z`) / DAY_MS;
const pad = (n: number) => String(n).padStart(2, '0');

/** One plan year: its first and last day and its twelve months, in order. */
export interface PlanYearSpan {
  starts_on: CalendarDate;
  ends_on: CalendarDate;
  months: PeriodId[];
}

/** The plan year a month belongs to. */
export function planYearOf(planYear: PlanYear, periodId: PeriodId): PlanYearSpan {
  const { starts_on } = periodBounds(periodId);
  const year = Number(starts_on.slice(0, 4));
  const month = Number(starts_on.slice(5, 7));
  const startYear = month >= planYear.starts_month ? year : year - 1;
  const months: PeriodId[] = [`${startYear}-${pad(planYear.starts_month)}`];
  while (months.length < 12) months.push(nextPeriodId(months.at(-1) as PeriodId));
  return {
    starts_on: `${startYear}-${pad(planYear.starts_month)}-01`,
    ends_on: periodBounds(months.at(-1) as PeriodId).ends_on,
    months,
  };
}

/** An annual quota in force for the rep during the year, and the days it counts for. */
export interface AnnualQuotaSegment {
  from: CalendarDate;
  quota_cents: number;
  days: number;
}

export interface AnnualQuota {
  /** Σ quota × days / days of the year, rounded once, half away from zero; null when neither rep nor plan has one. */
  quota_cents: number | null;
  segments: AnnualQuotaSegment[];
  year_days: number;
}

/**
 * The rep's annual quota for the year: the plan's `quota_cents` or the rep's quota table's entry in force, each for
 * the days of the year it is in force and the rep is assigned (the windows, which never overlap), over the days of
 * the year.
 */
export function annualQuotaOf(
  plan: Pick<EnginePlanVersion, 'quota_cents'>,
  quotas: RepQuotas | undefined,
  windows: readonly AssignmentWindow[],
  span: PlanYearSpan,
): AnnualQuota {
  const start = dayNumber(span.starts_on);
  const end = dayNumber(span.ends_on);
  const yearDays = end - start + 1;
  const planQuota = plan.quota_cents ?? null;
  const entries = [...(quotas?.entries ?? [])].sort((a, b) => (a.from < b.from ? -1 : 1));
  const inForce = entries.filter((entry) => entry.from <= span.starts_on).at(-1);
  const changes: Array<{ from: CalendarDate; quota: number | null }> = [
    { from: span.starts_on, quota: inForce ? (inForce.quota_cents ?? planQuota) : planQuota },
    ...entries
      .filter((entry) => entry.from > span.starts_on && entry.from <= span.ends_on)
      .map((entry) => ({ from: entry.from, quota: entry.quota_cents ?? planQuota })),
  ];
  if (changes.every((change) => change.quota === null)) return { quota_cents: null, segments: [], year_days: yearDays };
  const segments: AnnualQuotaSegment[] = [];
  let numerator = 0n;
  changes.forEach((change, index) => {
    const next = changes[index + 1];
    const from = dayNumber(change.from);
    const to = next ? dayNumber(next.from) - 1 : end;
    let days = 0;
    for (const window of windows) {
      const low = Math.max(from, window.from === null ? from : dayNumber(window.from));
      const high = Math.min(to, window.until === null ? to : dayNumber(window.until));
      if (high >= low) days += high - low + 1;
    }
    const quota = change.quota ?? 0;
    segments.push({ from: change.from, quota_cents: quota, days });
    numerator += BigInt(quota) * BigInt(days);
  });
  return { quota_cents: Number(roundHalfAwayFromZero(numerator, BigInt(yearDays))), segments, year_days: yearDays };
}

/** "the plan year from 2026-01-01 through 2026-03": what a year-to-date running total counts over. */
export function yearToDateLabel(span: PlanYearSpan, periodId: PeriodId): string {
  return `the plan year from ${span.starts_on} through ${periodId}`;
}

/** The trace step and sentences of a tiered line of a plan year, which the engine puts before its running total. */
export function planYearTrace(
  span: PlanYearSpan,
  quota: AnnualQuota,
  periodId: PeriodId,
  repExternalId: string,
  decimals: number,
): { step: TraceStep; sentences: string[] } {
  const money = (cents: number) => formatMoney(BigInt(cents), decimals);
  const annual = quota.quota_cents ?? 0;
  const sentences = [
    `Plan year ${span.starts_on} to ${span.ends_on}, paid monthly: the bands count the won deals of ${repExternalId} from ${span.starts_on} through ${periodId} against the annual quota of ${money(annual)}.`,
  ];
  const whole = quota.segments.length === 1 && quota.segments[0]?.days === quota.year_days;
  if (!whole && quota.segments.length > 0) {
    const terms = quota.segments.map((segment) => `${money(segment.quota_cents)} × ${segment.days}`).join(' + ');
    sentences.push(
      `The annual quota is blended by days: (${terms}) / ${quota.year_days}, rounded half away from zero, is ${money(annual)}.`,
    );
  }
  sentences.push(
    "Each month pays what the year to date earns less what the year's earlier months paid: this deal's line is the part of the year's bands it covers, a locked month's payment stands, and a later difference is booked in the next open month.",
  );
  return {
    step: {
      type: 'plan_year',
      starts_on: span.starts_on,
      ends_on: span.ends_on,
      through_period_id: periodId,
      annual_quota_cents: annual,
      year_days: quota.year_days,
      quotas: quota.segments.map((segment) => ({ ...segment })),
    },
    sentences,
  };
}

/** The tiered lines of a year with the year's step before their running total and its sentences first. */
export function withPlanYearTraces(
  targets: readonly LineTarget[],
  tieredChips: ReadonlySet<string>,
  trace: (periodId: PeriodId) => { step: TraceStep; sentences: string[] },
): LineTarget[] {
  return targets.map((target) => {
    if (!tieredChips.has(target.line.chip_id)) return target;
    const steps = target.trace.steps;
    const at = steps.findIndex((step) => step.type === 'cumulative');
    if (at === -1) return target;
    const { step, sentences } = trace(target.period_id);
    return {
      ...target,
      trace: {
        ...target.trace,
        steps: [...steps.slice(0, at), step, ...steps.slice(at)],
        explanation: [...sentences, ...target.trace.explanation],
      },
    };
  });
}

/**
 * The first day whose lines a quota change from `from` can move: `from` itself, or in a plan year the first day of
 * `from`'s plan year, since the annual quota blends every quota of the year by its days and every month reads it.
 */
export function quotaMovesFrom(
  plan: Pick<EnginePlanVersion, 'plan_year' | 'period'>,
  from: CalendarDate,
): CalendarDate {
  if (!plan.plan_year || plan.period !== 'monthly') return from;
  return planYearOf(plan.plan_year, from.slice(0, 7)).starts_on;
}

/**
 * Whether what counts toward the running totals of `counted` (an adjustment counted in that period) moves the lines of
 * `periodId`: the period itself, or in a plan year every month of its year from it on.
 */
export function countingMoves(
  plan: Pick<EnginePlanVersion, 'plan_year' | 'period'>,
  counted: PeriodId,
  periodId: PeriodId,
): boolean {
  if (counted === periodId) return true;
  if (!plan.plan_year || plan.period !== 'monthly') return false;
  return periodId > counted && planYearOf(plan.plan_year, counted).months.includes(periodId);
}
