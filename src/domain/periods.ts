// Period maths for compensation periods: monthly ids `2026-04`, quarterly ids
// `2026-Q2`. Everything works on UTC calendar dates written `YYYY-MM-DD`, as plain strings and integers,
// so that no local time zone or Date arithmetic can shift a deal into the neighbouring period.

export type PeriodKind = 'monthly' | 'quarterly';
export type PeriodId = string;
/** A calendar date `YYYY-MM-DD` (UTC). */
export type CalendarDate = string;

export interface ParsedPeriodId {
  kind: PeriodKind;
  year: number;
  /** Month 1–12 for a monthly period, quarter 1–4 for a quarterly one. */
  index: number;
}

export interface PeriodBounds {
  starts_on: CalendarDate;
  /** Inclusive: the last day of the period. */
  ends_on: CalendarDate;
}

const PERIOD_ID = /^(\d{4})-(?:(0[1-9]|1[0-2])|Q([1-4]))$/;
const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Year 0000 is a typo in a plan or a deal, never a period anyone is paid in.
const MIN_YEAR = 1;

export function parsePeriodId(id: string): ParsedPeriodId | null {
  const match = PERIOD_ID.exec(id);
  if (!match) return null;
  const year = Number(match[1]);
  if (year < MIN_YEAR) return null;
  if (match[2] !== undefined) return { kind: 'monthly', year, index: Number(match[2]) };
  return { kind: 'quarterly', year, index: Number(match[3]) };
}

export function isPeriodId(id: string): boolean {
  return parsePeriodId(id) !== null;
}

function parsedOrThrow(id: PeriodId): ParsedPeriodId {
  const parsed = parsePeriodId(id);
  if (!parsed) throw new RangeError(`not a period id: ${JSON.stringify(id)}`);
  return parsed;
}

export function periodKindOf(id: PeriodId): PeriodKind {
  return parsedOrThrow(id).kind;
}

function formatPeriodId({ kind, year, index }: ParsedPeriodId): PeriodId {
  const yyyy = String(year).padStart(4, '0');
  return kind === 'monthly' ? `${yyyy}-${String(index).padStart(2, '0')}` : `${yyyy}-Q${index}`;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

interface DateParts {
  year: number;
  month: number;
  day: number;
}

function parseCalendarDate(date: string): DateParts | null {
  const match = CALENDAR_DATE.exec(date);
  if (!match) return null;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (year < MIN_YEAR || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return { year, month, day };
}

export function isCalendarDate(date: string): boolean {
  return parseCalendarDate(date) !== null;
}

function formatCalendarDate({ year, month, day }: DateParts): CalendarDate {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The UTC calendar date of an RFC 3339 timestamp, e.g. `2026-04-30T23:30:00-02:00` → `2026-05-01`. */
export function calendarDateOfInstant(instant: string): CalendarDate {
  const time = Date.parse(instant);
  if (Number.isNaN(time)) throw new RangeError(`not a timestamp: ${JSON.stringify(instant)}`);
  return new Date(time).toISOString().slice(0, 10);
}

/** The id of the period of `kind` that contains the calendar date. */
export function periodIdOf(date: CalendarDate, kind: PeriodKind): PeriodId {
  const parts = parseCalendarDate(date);
  if (!parts) throw new RangeError(`not a calendar date: ${JSON.stringify(date)}`);
  const index = kind === 'monthly' ? parts.month : Math.ceil(parts.month / 3);
  return formatPeriodId({ kind, year: parts.year, index });
}

export function periodBounds(id: PeriodId): PeriodBounds {
  const { kind, year, index } = parsedOrThrow(id);
  const firstMonth = kind === 'monthly' ? index : (index - 1) * 3 + 1;
  const lastMonth = kind === 'monthly' ? index : firstMonth + 2;
  return {
    starts_on: formatCalendarDate({ year, month: firstMonth, day: 1 }),
    ends_on: formatCalendarDate({ year, month: lastMonth, day: daysInMonth(year, lastMonth) }),
  };
}

export function nextPeriodId(id: PeriodId): PeriodId {
  const { kind, year, index } = parsedOrThrow(id);
  const last = kind === 'monthly' ? 12 : 4;
  return index === last
    ? formatPeriodId({ kind, year: year + 1, index: 1 })
    : formatPeriodId({ kind, year, index: index + 1 });
}

/**
 * Orders periods by their first day, then by their last (so a month sorts before the quarter that starts
 * with it). Negative when `a` comes first, as `Array.prototype.sort` expects.
 */
export function comparePeriodIds(a: PeriodId, b: PeriodId): number {
  const boundsA = periodBounds(a);
  const boundsB = periodBounds(b);
  if (boundsA.starts_on !== boundsB.starts_on) return boundsA.starts_on < boundsB.starts_on ? -1 : 1;
  if (boundsA.ends_on !== boundsB.ends_on) return boundsA.ends_on < boundsB.ends_on ? -1 : 1;
  return 0;
}
