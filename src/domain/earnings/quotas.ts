import { type CalendarDate, type PeriodId, periodBounds } from '../periods.ts';
import type { RepLeaving } from './leavers.ts';
import { formatMoney, roundHalfAwayFromZero } from './money.ts';
import type { EnginePlanVersion } from './types.ts';

// A rep's own quota (docs/quotas.md): the quota table's entry in force for the period (effective-dated: an entry
// applies to the periods from its day on until the rep's next entry under the plan), else the plan's `quota_cents`;
// then, when the plan has a ramp and the rep a start date, the ramp's percent of it for the months since the start.
// Pure: the caller reads the entries and the start date; the engine, statements and plan documents all ask here, so
// they can never disagree about a rep's quota.

/** One entry of a rep's quota table under one plan: from `from` (a period's first day) on, this quota. */
export interface QuotaEntry {
  from: CalendarDate;
  /** Minor units of the plan's currency; null: the plan's own quota again from `from` on. */
  quota_cents: number | null;
}

/** What a rep brings to the quota of one plan: its quota table under the plan and its start date. */
export interface RepQuotas {
  /** The day the rep started; null: the rep is not ramped. */
  start_date: CalendarDate | null;
  /** The rep's entries under the plan, in any order, at most one per day. */
  entries: readonly QuotaEntry[];
  /** The rep's leaving (leavers.ts); absent or null: the rep has not left. */
  leaving?: RepLeaving | null;
}

export const NO_REP_QUOTAS: RepQuotas = { start_date: null, entries: [] };

/** The ramp months a period falls in, and their percents. */
export interface QuotaRamp {
  /** Month numbers since the start (the start's month is 1), first and last of the period's months. */
  first_month: number;
  last_month: number;
  /** How many months the plan's ramp has. */
  months: number;
  /** The percent of each of the period's months (100 past the ramp). */
  percents: number[];
}

/** A rep's quota for a period under a plan, before any proration by assignment, and where it came from. */
export interface QuotaFigure {
  /** The quota that applies; null when neither the rep nor the plan has one. */
  quota_cents: number | null;
  /** The full quota the ramp is a percentage of (the same as `quota_cents` without a ramp in the period). */
  full_cents: number | null;
  /** `rep`: the rep's quota table; `plan`: the plan's `quota_cents`. */
  source: 'rep' | 'plan';
  /** The day the rep's entry in force applies from; null when the plan's quota applies. */
  set_from: CalendarDate | null;
  /** The ramp the period is in; null when the rep is not ramped in it (no ramp, no start date, or past it). */
  ramp: QuotaRamp | null;
  /** "quota 75,000.00: ramp month 3 of 4, 75% of 100,000.00, the plan quota; the rep started on 2026-01-20." */
  explanation: string;
}

type QuotaPlan = Pick<EnginePlanVersion, 'quota_cents' | 'ramp'>;

/**
 * Whether the rep's quota under the plan can differ from the plan's: the rep has entries, or the plan a ramp and
 * the rep a start date. Without either the quota is the plan's everywhere, and traces say nothing more about it.
 */
export function hasOwnQuota(plan: QuotaPlan, quotas: RepQuotas | undefined): boolean {
  if (!quotas) return false;
  return quotas.entries.length > 0 || (quotas.start_date !== null && (plan.ramp?.length ?? 0) > 0);
}

/** The entry in force for a period: the latest whose day is on or before the period's first day. */
export function entryInForce(entries: readonly QuotaEntry[], periodId: PeriodId): QuotaEntry | null {
  const { starts_on } = periodBounds(periodId);
  let found: QuotaEntry | null = null;
  for (const entry of entries) {
    if (entry.from <= starts_on && (found === null || entry.from > found.from)) found = entry;
  }
  return found;
}

function monthNumber(date: CalendarDate): number {
  return Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1;
}

/** The months of a period, as month numbers (year × 12 + month − 1). */
function monthsOf(periodId: PeriodId): number[] {
  const { starts_on, ends_on } = periodBounds(periodId);
  const months: number[] = [];
  for (let month = monthNumber(starts_on); month <= monthNumber(ends_on); month += 1) months.push(month);
  return months;
}

/**
 * The ramp a period falls in for a rep who started on `startDate`: each of the period's months is month n since the
 * start (the start's own month is 1), at the ramp's n-th percent, or 100 past the ramp or before the start (a rep
 * ramps from the start on only). Null when no month of the period is in the ramp.
 */
export function rampOf(ramp: readonly number[], startDate: CalendarDate, periodId: PeriodId): QuotaRamp | null {
  const start = monthNumber(startDate);
  const numbers = monthsOf(periodId).map((month) => month - start + 1);
  const percents = numbers.map((n) => (n >= 1 && n <= ramp.length ? (ramp[n - 1] ?? 100) : 100));
  if (percents.every((percent) => percent === 100)) return null;
  return {
    first_month: numbers[0] ?? 1,
    last_month: numbers.at(-1) ?? 1,
    months: ramp.length,
    percents,
  };
}

/**
 * The rep's quota for the period under the plan: its entry in force, else the plan's; times the ramp's percent
 * (the average of the period's months' percents) when ramped, rounded half away from zero, at least a cent. The
 * explanation says where the figure came from, in the plan currency's decimals.
 */
export function quotaForPeriod(
  plan: QuotaPlan,
  quotas: RepQuotas | undefined,
  periodId: PeriodId,
  decimals = 2,
): QuotaFigure {
  const entry = entryInForce(quotas?.entries ?? [], periodId);
  const own = entry !== null && entry.quota_cents !== null;
  const full = own ? entry.quota_cents : (plan.quota_cents ?? null);
  const source = own ? 'rep' : 'plan';
  const setFrom = own ? entry.from : null;
  const startDate = quotas?.start_date ?? null;
  const ramp =
    full !== null && startDate !== null && plan.ramp && plan.ramp.length > 0
      ? rampOf(plan.ramp, startDate, periodId)
      : null;
  const quota = full === null || ramp === null ? full : rampedQuota(full, ramp.percents);
  const money = (cents: number) => formatMoney(BigInt(cents), decimals);
  const from = own ? `the quota set for this rep from ${entry.from}` : 'the plan quota';
  let explanation: string;
  if (quota === null || full === null) {
    explanation = 'no quota: neither the rep nor the plan has one.';
  } else if (ramp === null) {
    explanation = `quota ${money(quota)}: ${own ? `quota set for this rep from ${entry.from}` : 'plan quota'}.`;
  } else {
    const share =
      ramp.percents.length === 1
        ? `ramp month ${ramp.first_month} of ${ramp.months}, ${ramp.percents[0]}% of ${money(full)}`
        : `ramp of ${ramp.months} months in ${periodId} (its months at ${ramp.percents.map((p) => `${p}%`).join(', ')}), on average ${averagePercent(ramp.percents)} of ${money(full)}`;
    explanation = `quota ${money(quota)}: ${share}, ${from}; the rep started on ${startDate}.`;
  }
  return { quota_cents: quota, full_cents: full, source, set_from: setFrom, ramp, explanation };
}

/** The full quota times the average of the percents, rounded half away from zero, at least a cent. */
export function rampedQuota(full: number, percents: readonly number[]): number {
  const sum = percents.reduce((total, percent) => total + BigInt(percent), 0n);
  const exact = roundHalfAwayFromZero(BigInt(full) * sum, 100n * BigInt(percents.length));
  return Number(exact > 0n || full === 0 ? exact : 1n);
}

function averagePercent(percents: readonly number[]): string {
  const sum = percents.reduce((total, percent) => total + percent, 0);
  const average = Math.round((sum / percents.length) * 100) / 100;
  return `${average}%`;
}
