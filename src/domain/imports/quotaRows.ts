import { displayNameProblem, normaliseDisplayName } from '../displayNames.ts';
import { type CalendarDate, isCalendarDate, type PeriodKind } from '../periods.ts';
import type { CsvRecord } from './csv.ts';

// The quota file (docs/quotas.md, "Uploading a quota file"): one row per rep, each setting the rep's quota under a
// plan from a day on, its start date, its display name, or several of them. Pure: the rows are read and checked here; the service resolves reps
// and plans and applies the file whole or not at all.

/** The columns, by header name; `rep_external_id` and at least `plan_key`, `start_date` or `display_name` are required. */
export const QUOTA_FILE_COLUMNS = [
  'rep_external_id',
  'plan_key',
  'from',
  'quota',
  'start_date',
  'display_name',
] as const;

type Column = (typeof QUOTA_FILE_COLUMNS)[number];

/** What one row of the file asks for. */
export interface QuotaFileRow {
  line: number;
  rep_external_id: string;
  /** The rep's quota under a plan from a day on; absent when the row sets only the start date. */
  quota?: { plan_key: string; from: CalendarDate; amount: string | null };
  /** The rep's start date; absent when the row does not set it; null clears it. */
  start_date?: CalendarDate | null;
  /** The rep's display name, as an admin sets it; absent when the cell is empty (the name is left alone). */
  display_name?: string;
}

export interface QuotaFileProblem {
  line: number;
  message: string;
}

const MAX_EXTERNAL_ID_LENGTH = 255;
const AMOUNT = /^\d{1,16}(?:\.\d{1,4})?$/;

/** The header's columns (by position), or the problem with it. */
export function quotaFileHeader(header: CsvRecord): { columns: Map<Column, number> } | { problem: QuotaFileProblem } {
  const columns = new Map<Column, number>();
  for (const [index, raw] of header.fields.entries()) {
    const name = raw.trim().toLowerCase();
    if (!(QUOTA_FILE_COLUMNS as readonly string[]).includes(name)) {
      return {
        problem: {
          line: header.line,
          message: `unknown column "${raw}": the columns are ${QUOTA_FILE_COLUMNS.join(', ')}`,
        },
      };
    }
    if (columns.has(name as Column)) return { problem: { line: header.line, message: `column ${name} is repeated` } };
    columns.set(name as Column, index);
  }
  if (!columns.has('rep_external_id')) {
    return { problem: { line: header.line, message: 'the header has no rep_external_id column' } };
  }
  if (!columns.has('plan_key') && !columns.has('start_date') && !columns.has('display_name')) {
    return {
      problem: {
        line: header.line,
        message: 'the header needs plan_key (with from and quota), start_date or display_name',
      },
    };
  }
  if (columns.has('plan_key') && (!columns.has('from') || !columns.has('quota'))) {
    return { problem: { line: header.line, message: 'a plan_key column needs from and quota columns' } };
  }
  return { columns };
}

/** One row, checked on its own: its fields' shapes (the plans and their periods are the caller's to check). */
export function quotaFileRow(record: CsvRecord, columns: ReadonlyMap<Column, number>): QuotaFileRow | QuotaFileProblem {
  const field = (column: Column) => {
    const index = columns.get(column);
    return index === undefined ? '' : (record.fields[index] ?? '').trim();
  };
  const line = record.line;
  const rep = field('rep_external_id');
  if (rep === '' || rep.length > MAX_EXTERNAL_ID_LENGTH) {
    return { line, message: "rep_external_id: must be a rep's external id, not blank, at most 255 characters" };
  }
  const row: QuotaFileRow = { line, rep_external_id: rep };
  const planKey = field('plan_key');
  const from = field('from');
  const quota = field('quota');
  if (planKey !== '') {
    if (!isDay(from)) return { line, message: `from: "${from}" is not a day (YYYY-MM-DD)` };
    if (quota === '') {
      return { line, message: 'quota: missing; an amount such as 100000.00, or "plan" for the plan\'s own quota' };
    }
    if (quota.toLowerCase() !== 'plan' && !AMOUNT.test(quota)) {
      return { line, message: `quota: "${quota}" is not an amount such as 100000.00 (or "plan")` };
    }
    row.quota = { plan_key: planKey, from, amount: quota.toLowerCase() === 'plan' ? null : quota };
  } else if (from !== '' || quota !== '') {
    return { line, message: 'plan_key: missing; from and quota set a quota under a plan' };
  }
  const start = field('start_date');
  if (start !== '') {
    if (start.toLowerCase() === 'none') row.start_date = null;
    else if (isDay(start)) row.start_date = start;
    else return { line, message: `start_date: "${start}" is not a day (YYYY-MM-DD), or "none" to clear it` };
  }
  const name = normaliseDisplayName(field('display_name'));
  if (name !== '') {
    const problem = displayNameProblem(name);
    if (problem !== null) return { line, message: `display_name: ${problem}` };
    row.display_name = name;
  }
  if (row.quota === undefined && row.start_date === undefined && row.display_name === undefined) {
    return { line, message: 'the row sets nothing: give plan_key, from and quota, start_date, or display_name' };
  }
  return row;
}

function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && isCalendarDate(value);
}

/**
 * An amount in the plan currency's major units ("100000.00") as minor units; a problem when it has more decimals than
 * the currency or exceeds the largest amount a quota can be.
 */
export function amountInMinorUnits(amount: string, decimals: number): number | string {
  const [whole = '0', fraction = ''] = amount.split('.');
  if (fraction.length > decimals) {
    return `quota: "${amount}" has ${fraction.length} decimals: the plan's currency takes at most ${decimals}`;
  }
  const cents = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
  if (cents < 1n) return 'quota: must be more than 0';
  if (cents > BigInt(Number.MAX_SAFE_INTEGER)) return `quota: "${amount}" is too large`;
  return Number(cents);
}

/**
 * Why `from` cannot start a quota under a plan of this period kind, or null: a quota applies to whole periods, so it
 * starts on a period's first day (the 1st of a month; of January, April, July or October for a quarterly plan).
 */
export function quotaStartProblem(from: CalendarDate, period: PeriodKind): string | null {
  if (!isDay(from)) return `from: "${from}" is not a day (YYYY-MM-DD)`;
  const month = Number(from.slice(5, 7));
  if (from.slice(8) !== '01' || (period === 'quarterly' && (month - 1) % 3 !== 0)) {
    return period === 'quarterly'
      ? `from: ${from} is not the first day of a quarter; a quota applies to whole periods of this quarterly plan`
      : `from: ${from} is not the first day of a month; a quota applies to whole periods of this monthly plan`;
  }
  return null;
}
