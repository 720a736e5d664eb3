import { type CalendarDate, type PeriodId, periodBounds } from '../periods.ts';
import { formatMoney, roundHalfAwayFromZero } from './money.ts';

// A plan year paid monthly (docs/plan-features.md, "A plan year paid monthly"). Attainment and tiers are counted
// year to date against an annual quota; each month pays what the year to date has earned less what the year's
// earlier months paid (the true-up). The annual quota may change during the year: each quota counts for the days of
// the year it is in force (a quota raised on 1 July counts the old one for 181 days and the new one for 184). A rep
// who joins during the year has the blended quota prorated by the days of the year the rep is assigned. A locked
// month's payment is never rewritten: the next month's true-up carries the difference. A negative true-up (the year
// to date now earns less than was paid) is carried forward, not clawed back, unless the plan says `claw_back`.

/** An annual quota in force from `from` (inclusive) until the next segment's `from`. */
export interface QuotaSegment {
  from: CalendarDate;
  quota_cents: bigint;
}

/** A band of the year's tiers, in percent of the annual quota; the last is open (`null`). Marginal. */
export interface YearTier {
  up_to_pct: number | null;
  rate_bps: bigint;
}

export interface YearRules {
  /** The first day of the plan year (`2026-01-01`); the year runs 12 months from it. */
  starts_on: CalendarDate;
  quotas: readonly QuotaSegment[];
  tiers: readonly YearTier[];
  /**
   * Rates changed during the year: the tiers in force from each date (the first from `starts_on` are `tiers`). The
   * year to date's earnings are blended by days: each set of tiers earns on the whole YTD amount for the share of
   * the year's elapsed days it was in force.
   */
  tiers_from?: readonly { from: CalendarDate; tiers: readonly YearTier[] }[];
  negative: 'carry_forward' | 'claw_back';
}

/** A month of the year: the rep's credited won amount in it, and, when it is locked, what it paid. */
export interface YearMonth {
  period_id: PeriodId;
  won_cents: bigint;
  /** Set for a locked (or paid) month: its payment stands, whatever the year to date says now. */
  locked_paid_cents?: bigint;
}

/** One month's true-up, as the trace's `year_to_date` step shows it. */
export interface TrueUp {
  period_id: PeriodId;
  ytd_won_cents: bigint;
  ytd_earned_cents: bigint;
  paid_before_cents: bigint;
  /** ytd earned − paid before: what the month owes (negative when the year has been overpaid). */
  due_cents: bigint;
  /** What the month pays: `due`, or its locked payment, or 0 for a negative due carried forward. */
  pays_cents: bigint;
  locked: boolean;
}

const DAY_MS = 86_400_000;
const dayNumber = (date: CalendarDate) => Date.parse(`${date}T00:00:00.000Z`) / DAY_MS;

function yearEnd(startsOn: CalendarDate): CalendarDate {
  const [y, m, d] = startsOn.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y + 1, m - 1, d) - DAY_MS).toISOString().slice(0, 10);
}

/** The days of the plan year (365 or 366). */
export function daysOfYear(startsOn: CalendarDate): number {
  return dayNumber(yearEnd(startsOn)) - dayNumber(startsOn) + 1;
}

/** The days of the year a rep is assigned, both ends included; absent: the whole year. */
export interface YearAssignment {
  from?: CalendarDate;
  until?: CalendarDate;
}

/**
 * The rep's annual quota blended by days: Σ quota × days it is in force in the year and the rep is assigned / days of
 * the year, rounded once, half away from zero, to the cent. A rep assigned from 1 July carries only the quota in
 * force from then, for the days from then.
 */
export function blendedQuota(rules: YearRules, assigned: YearAssignment = {}): bigint {
  const start = dayNumber(rules.starts_on);
  const end = dayNumber(yearEnd(rules.starts_on));
  const days = end - start + 1;
  const first = Math.max(start, assigned.from ? dayNumber(assigned.from) : start);
  const last = Math.min(end, assigned.until ? dayNumber(assigned.until) : end);
  const sorted = [...rules.quotas].sort((a, b) => (a.from < b.from ? -1 : 1));
  let numerator = 0n;
  sorted.forEach((segment, index) => {
    const next = sorted[index + 1];
    const from = Math.max(first, dayNumber(segment.from));
    const to = Math.min(last, next ? dayNumber(next.from) - 1 : last);
    if (to >= from) numerator += segment.quota_cents * BigInt(to - from + 1);
  });
  return roundHalfAwayFromZero(numerator, BigInt(days));
}

/** Marginal tiers in percent of the quota over an amount: exact in cents × basis points, rounded once to the cent. */
export function yearTiersEarned(tiers: readonly YearTier[], quota: bigint, amount: bigint): bigint {
  return roundHalfAwayFromZero(tiersNumerator(tiers, quota, amount), 10_000n);
}

/**
 * The year to date's earnings through `through` (a calendar date): with one set of tiers, its earnings; with rates
 * changed during the year, Σ earnings under each set × days elapsed while it was in force / days elapsed, exact,
 * rounded once to the cent.
 */
export function ytdEarned(rules: YearRules, quota: bigint, amount: bigint, through: CalendarDate): bigint {
  if (!rules.tiers_from || rules.tiers_from.length === 0) return yearTiersEarned(rules.tiers, quota, amount);
  const sets = [{ from: rules.starts_on, tiers: rules.tiers }, ...rules.tiers_from].sort((a, b) =>
    a.from < b.from ? -1 : 1,
  );
  const start = dayNumber(rules.starts_on);
  const end = dayNumber(through);
  let numerator = 0n;
  sets.forEach((set, index) => {
    const next = sets[index + 1];
    const from = Math.max(start, dayNumber(set.from));
    const to = Math.min(end, next ? dayNumber(next.from) - 1 : end);
    if (to >= from) numerator += tiersNumerator(set.tiers, quota, amount) * BigInt(to - from + 1);
  });
  return roundHalfAwayFromZero(numerator, 10_000n * BigInt(end - start + 1));
}

function tiersNumerator(tiers: readonly YearTier[], quota: bigint, amount: bigint): bigint {
  let from = 0n;
  let numerator = 0n;
  for (const tier of tiers) {
    const to =
      tier.up_to_pct === null ? null : roundHalfAwayFromZero(quota * BigInt(Math.round(tier.up_to_pct * 100)), 10_000n);
    const top = to === null || amount < to ? amount : to;
    if (top > from) numerator += (top - from) * tier.rate_bps;
    if (to === null || amount <= to) break;
    from = to > from ? to : from;
  }
  return numerator;
}

/** The true-up of every month of the year so far, in order. */
export function trueUpYear(rules: YearRules, months: readonly YearMonth[], assigned: YearAssignment = {}): TrueUp[] {
  const quota = blendedQuota(rules, assigned);
  let won = 0n;
  let paid = 0n;
  return [...months]
    .sort((a, b) => (a.period_id < b.period_id ? -1 : 1))
    .map((month) => {
      won += month.won_cents;
      const earned = ytdEarned(rules, quota, won, periodBounds(month.period_id).ends_on);
      const due = earned - paid;
      const locked = month.locked_paid_cents !== undefined;
      const pays = locked
        ? (month.locked_paid_cents as bigint)
        : due < 0n && rules.negative === 'carry_forward'
          ? 0n
          : due;
      const outcome: TrueUp = {
        period_id: month.period_id,
        ytd_won_cents: won,
        ytd_earned_cents: earned,
        paid_before_cents: paid,
        due_cents: due,
        pays_cents: pays,
        locked,
      };
      paid += pays;
      return outcome;
    });
}

/** Whether a month is inside the plan year. */
export function inPlanYear(rules: YearRules, periodId: PeriodId): boolean {
  const { starts_on } = periodBounds(periodId);
  return starts_on >= rules.starts_on && starts_on <= yearEnd(rules.starts_on);
}

/** The trace's sentences of one month: YTD earned, paid before, this month. */
export function trueUpSentences(outcome: TrueUp, quota: bigint, decimals = 2): string[] {
  const money = (cents: bigint) => formatMoney(cents, decimals);
  const lines = [
    `Year to date through ${outcome.period_id}: won ${money(outcome.ytd_won_cents)} against the annual quota of ${money(quota)}, earning ${money(outcome.ytd_earned_cents)}.`,
    `Earlier months of the year paid ${money(outcome.paid_before_cents)}, so ${outcome.period_id} owes ${money(outcome.ytd_earned_cents)} − ${money(outcome.paid_before_cents)} = ${money(outcome.due_cents)}.`,
  ];
  if (outcome.locked) lines.push(`${outcome.period_id} is locked: it paid ${money(outcome.pays_cents)}, which stands.`);
  else if (outcome.due_cents < 0n && outcome.pays_cents === 0n)
    lines.push(
      'The true-up is negative: nothing is clawed back; later months pay only once the year to date passes what was paid.',
    );
  return lines;
}
