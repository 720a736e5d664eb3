import { isKnownCurrency } from './currencies.ts';
import { CsvSyntaxError, csvRecords } from './imports/csv.ts';
import { isPeriodId } from './periods.ts';
import { Refusal } from './refusal.ts';

// Manual adjustments (docs/pay-workflow.md): what an admin may add, and the CSV file that adds many at once. Pure:
// the service resolves reps, deals and periods and writes.

export const ADJUSTMENT_CATEGORIES = ['one_off_bonus', 'correction', 'guarantee', 'deduction'] as const;
export type AdjustmentCategory = (typeof ADJUSTMENT_CATEGORIES)[number];

/** The largest amount one adjustment may carry, either sign: a billion in major units of a two-decimal currency. */
export const MAX_ADJUSTMENT_CENTS = 100_000_000_000;
const MAX_REASON = 1000;
const MAX_KEY = 255;

export function isAdjustmentCategory(value: string): value is AdjustmentCategory {
  return (ADJUSTMENT_CATEGORIES as readonly string[]).includes(value);
}

/**
 * What is wrong with an adjustment's amount, category and reason, or null: the amount is a whole number of minor
 * units, not 0, within bounds; a bonus and a guarantee add, a deduction takes away, a correction goes either way.
 */
export function adjustmentProblem(draft: { amount_cents: number; category: string; reason: string }): string | null {
  const { amount_cents: amount, category } = draft;
  if (!isAdjustmentCategory(category)) {
    return `category: ${JSON.stringify(category)} is not one of ${ADJUSTMENT_CATEGORIES.join(', ')}`;
  }
  if (!Number.isSafeInteger(amount)) return 'amount_cents: must be a whole number of minor units';
  if (amount === 0) return 'amount_cents: must not be 0';
  if (Math.abs(amount) > MAX_ADJUSTMENT_CENTS) return `amount_cents: must be within ±${MAX_ADJUSTMENT_CENTS}`;
  if ((category === 'one_off_bonus' || category === 'guarantee') && amount < 0) {
    return `amount_cents: a ${category} adds to pay and must be positive (a correction may be negative)`;
  }
  if (category === 'deduction' && amount > 0) return 'amount_cents: a deduction must be negative';
  if (draft.reason.trim() === '') return 'reason: must not be empty';
  if (draft.reason.length > MAX_REASON) return `reason: at most ${MAX_REASON} characters`;
  return null;
}

/** One row of an adjustments file, read and checked on its own; the rep, deal and period are resolved later. */
export interface AdjustmentFileRow {
  line: number;
  idempotency_key: string;
  user_external_id: string;
  period_id: string;
  amount_cents: number;
  currency: string | null;
  category: AdjustmentCategory;
  reason: string;
  deal_external_id: string | null;
  /** The `counts_toward_attainment` column: `true` or `false`, false when empty or left out. */
  counts_toward_attainment: boolean;
}

export type AdjustmentFileEntry = AdjustmentFileRow | { line: number; refusal: string };

export const ADJUSTMENT_FILE_COLUMNS = [
  'idempotency_key',
  'user_external_id',
  'period_id',
  'amount_cents',
  'currency',
  'category',
  'reason',
  'deal_external_id',
  'counts_toward_attainment',
] as const;
const OPTIONAL_COLUMNS: ReadonlySet<string> = new Set(['currency', 'deal_external_id', 'counts_toward_attainment']);

async function* once(text: string): AsyncIterable<string> {
  yield text;
}

/**
 * The rows of an adjustments file, each read and checked on its own (a row's problem is its refusal, with its
 * line), a key used twice in the file refused on its second line. A file that is not CSV, or whose header lacks a
 * required column or has one it does not know, is refused whole (`invalid_body`).
 */
export async function readAdjustmentFile(text: string): Promise<AdjustmentFileEntry[]> {
  const entries: AdjustmentFileEntry[] = [];
  let columns: Map<string, number> | null = null;
  const keys = new Map<string, number>();
  try {
    for await (const record of csvRecords(once(text))) {
      if (columns === null) {
        columns = headerColumns(record.fields);
        continue;
      }
      const entry = readRow(record.line, record.fields, columns);
      if ('idempotency_key' in entry) {
        const first = keys.get(entry.idempotency_key);
        if (first !== undefined) {
          entries.push({
            line: entry.line,
            refusal: `idempotency_key: ${entry.idempotency_key} is used on line ${first} too`,
          });
          continue;
        }
        keys.set(entry.idempotency_key, entry.line);
      }
      entries.push(entry);
    }
  } catch (error) {
    if (error instanceof CsvSyntaxError) throw new Refusal('invalid_body', `text: not CSV (${error.message})`);
    throw error;
  }
  if (columns === null) throw new Refusal('invalid_body', 'text: the file has no header row');
  return entries;
}

function headerColumns(fields: readonly string[]): Map<string, number> {
  const columns = new Map(fields.map((name, index) => [name.trim().toLowerCase(), index] as const));
  const known: ReadonlySet<string> = new Set(ADJUSTMENT_FILE_COLUMNS);
  const unknown = [...columns.keys()].filter((name) => !known.has(name));
  const missing = ADJUSTMENT_FILE_COLUMNS.filter((name) => !OPTIONAL_COLUMNS.has(name) && !columns.has(name));
  if (missing.length > 0 || unknown.length > 0) {
    throw new Refusal(
      'invalid_body',
      `text: the header must name the columns ${ADJUSTMENT_FILE_COLUMNS.join(',')} (currency, deal_external_id and counts_toward_attainment may be left out)${missing.length > 0 ? `; missing: ${missing.join(', ')}` : ''}${unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : ''}`,
    );
  }
  return columns;
}

function readRow(line: number, fields: readonly string[], columns: ReadonlyMap<string, number>): AdjustmentFileEntry {
  const cell = (name: string): string => {
    const index = columns.get(name);
    return index === undefined ? '' : (fields[index] ?? '').trim();
  };
  const key = cell('idempotency_key');
  if (key === '') return { line, refusal: 'idempotency_key: must not be empty' };
  if (key.length > MAX_KEY) return { line, refusal: `idempotency_key: at most ${MAX_KEY} characters` };
  const rep = cell('user_external_id');
  if (rep === '') return { line, refusal: 'user_external_id: must not be empty' };
  const periodId = cell('period_id');
  if (!isPeriodId(periodId)) {
    return { line, refusal: `period_id: ${JSON.stringify(periodId)} is not YYYY-MM (a month) or YYYY-Qn (a quarter)` };
  }
  const amountText = cell('amount_cents');
  if (!/^[+-]?\d{1,15}$/.test(amountText)) {
    return { line, refusal: `amount_cents: ${JSON.stringify(amountText)} is not a whole number of cents` };
  }
  const currency = cell('currency');
  if (currency !== '' && !isKnownCurrency(currency)) {
    return { line, refusal: `currency: ${JSON.stringify(currency)} is not an ISO 4217 currency code` };
  }
  const draft = { amount_cents: Number(amountText), category: cell('category'), reason: cell('reason') };
  const problem = adjustmentProblem(draft);
  if (problem) return { line, refusal: problem };
  const counts = cell('counts_toward_attainment').toLowerCase();
  if (counts !== '' && counts !== 'true' && counts !== 'false') {
    return {
      line,
      refusal: `counts_toward_attainment: ${JSON.stringify(cell('counts_toward_attainment'))} is not true or false`,
    };
  }
  const deal = cell('deal_external_id');
  return {
    line,
    idempotency_key: key,
    user_external_id: rep,
    period_id: periodId,
    amount_cents: draft.amount_cents,
    currency: currency === '' ? null : currency,
    category: draft.category as AdjustmentCategory,
    reason: draft.reason,
    deal_external_id: deal === '' ? null : deal,
    counts_toward_attainment: counts === 'true',
  };
}
