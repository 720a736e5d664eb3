import { type CalendarDate, calendarDateOfInstant, type PeriodId, periodBounds } from '../periods.ts';
import type { DealSnapshot, EnginePlanVersion } from './types.ts';

// Dated assignments (docs/plan-features.md): a plan's assignee may be a rep for a window of deal dates only, so a
// rep who moves between plans mid-period is paid by each plan for the deals dated in its window. A deal's date
// is its close date, else the day it was won, else (an open deal) today.

/** A window of deal dates, both bounds inclusive; null is open. */
export interface AssignmentWindow {
  from: CalendarDate | null;
  until: CalendarDate | null;
}

/** The rep's windows in the plan: one open window for `all` or a plain assignee, none when not assigned. */
export function assignmentWindows(
  plan: Pick<EnginePlanVersion, 'assignees'>,
  repExternalId: string,
): AssignmentWindow[] {
  if (plan.assignees === 'all') return [{ from: null, until: null }];
  return plan.assignees.flatMap((entry) => {
    if (typeof entry === 'string') return entry === repExternalId ? [{ from: null, until: null }] : [];
    if (entry.owner_external_id !== repExternalId) return [];
    return [{ from: entry.from ?? null, until: entry.until ?? null }];
  });
}

/** The day a deal is dated for assignment windows. */
export function dealDate(deal: DealSnapshot, today: CalendarDate): CalendarDate {
  if (deal.close_date !== null) return deal.close_date;
  if (deal.won_at !== null) return calendarDateOfInstant(deal.won_at);
  return today;
}

export function windowCovers(window: AssignmentWindow, date: CalendarDate): boolean {
  return (window.from === null || window.from <= date) && (window.until === null || date <= window.until);
}

/** Whether any window covers part of the period (a period-level line, such as an attainment bonus, applies). */
export function windowsOverlapPeriod(windows: readonly AssignmentWindow[], periodId: PeriodId): boolean {
  const { starts_on, ends_on } = periodBounds(periodId);
  return windows.some(
    (window) =>
      (window.from === null || window.from <= ends_on) && (window.until === null || starts_on <= window.until),
  );
}

const DAY_MS = 86_400_000;

function dayNumber(date: CalendarDate): number {
  return Date.parse(`${date}T00:00:00.000Z`) / DAY_MS;
}

/**
 * How many days of the period the rep's windows cover, and how many it has: what a partly covered period's
 * quota and draw are prorated by (windows of one rep never overlap, so their days add up).
 */
export function coveredDays(
  windows: readonly AssignmentWindow[],
  periodId: PeriodId,
): { covered: number; days: number } {
  const { starts_on, ends_on } = periodBounds(periodId);
  const first = dayNumber(starts_on);
  const last = dayNumber(ends_on);
  const covered = windows.reduce((sum, window) => {
    const from = Math.max(first, window.from === null ? first : dayNumber(window.from));
    const until = Math.min(last, window.until === null ? last : dayNumber(window.until));
    return sum + Math.max(0, until - from + 1);
  }, 0);
  return { covered, days: last - first + 1 };
}

export function isDated(windows: readonly AssignmentWindow[]): boolean {
  return windows.some((window) => window.from !== null || window.until !== null);
}

/** `from 2026-04-15`, `until 2026-04-14`, `from 2026-04-01 until 2026-04-14`, joined with `and`. */
export function describeWindows(windows: readonly AssignmentWindow[]): string {
  return windows
    .map((window) =>
      [window.from === null ? '' : `from ${window.from}`, window.until === null ? '' : `until ${window.until}`]
        .filter(Boolean)
        .join(' '),
    )
    .filter(Boolean)
    .join(' and ');
}
