import type { CalendarDate } from '../periods.ts';

// Accounting months `2026-07` and calendar dates `2026-07-15`, as plain strings and integers (UTC), so that no
// local time zone can move an amount into the neighbouring month.

export type Month = string;

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

export function isMonth(value: string): boolean {
  return MONTH.test(value) && value >= '0001-01';
}

/** Months since year 0: consecutive months differ by one. */
export function monthIndex(month: Month): number {
  return Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1;
}

export function monthOfIndex(index: number): Month {
  const year = Math.floor(index / 12);
  return `${String(year).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

export function addMonths(month: Month, count: number): Month {
  return monthOfIndex(monthIndex(month) + count);
}

export function monthOf(date: CalendarDate | string): Month {
  return date.slice(0, 7);
}

/** The months from `from` to `to`, both included (none when `to` is before `from`). */
export function monthsBetween(from: Month, to: Month): Month[] {
  const months: Month[] = [];
  for (let index = monthIndex(from); index <= monthIndex(to); index++) months.push(monthOfIndex(index));
  return months;
}

export function daysInMonth(month: Month): number {
  return new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();
}

/** The date `count` months after `date`, its day clamped to the month's last (Jan 31 + 1 month = Feb 28). */
export function addMonthsToDate(date: CalendarDate, count: number): CalendarDate {
  const month = addMonths(monthOf(date), count);
  const day = Math.min(Number(date.slice(8, 10)), daysInMonth(month));
  return `${month}-${String(day).padStart(2, '0')}`;
}

/** Days of `month` within [start, end) (dates), 0 when they do not meet. */
export function daysOfMonthWithin(month: Month, start: CalendarDate, end: CalendarDate): number {
  const first = `${month}-01`;
  const afterLast = `${addMonths(month, 1)}-01`;
  const from = start > first ? start : first;
  const to = end < afterLast ? end : afterLast;
  return from < to ? (Date.parse(to) - Date.parse(from)) / 86_400_000 : 0;
}
