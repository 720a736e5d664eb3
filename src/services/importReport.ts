import type { ImportRow } from '../domain/imports/rows.ts';

// What an import's report says beyond its counts (DealImport): the new reps, the rows without owner or close date,
// the stages read as open, the currencies and what states each, the deleted and repeated rows, the deals missing
// from the file; each list in full up to LISTED_REFUSALS items, counted beyond.

/** The refused rows a summary lists, and the items of each of the report's lists; the rest are counted. */
export const LISTED_REFUSALS = 1000;

/** A list the report gives in full up to LISTED_REFUSALS items, counted beyond. */
export interface Listed<T> {
  count: number;
  items: T[];
}

export interface ImportReport {
  /** Owners the org has no rep for: a rep is created for each (by its first line). */
  new_reps: Listed<{ external_id: string; line: number }>;
  rows_without_owner: Listed<number>;
  rows_without_close_date: Listed<number>;
  /** Stages read as open deals (no won/lost flag in the file says otherwise, and no stage list names them). */
  open_stages: Array<{ stage: string; pipeline?: string; rows: number; line: number }>;
  /** The currencies of the rows, and what states each: a column, the header, the amount, the mapping, --currency, or the org's default. */
  currencies: Array<{ currency: string; rows: number; stated_by: string[] }>;
  /** Rows the CRM marks deleted or archived: skipped, never live deals. */
  deleted_rows: Listed<{ line: number; external_id: string }>;
  /** Rows identical to an earlier row of the file: counted as unchanged, applied once. */
  repeated_rows: Listed<number>;
  /** Live deals of the org that the file does not have (or has as deleted), and what the import does with them. */
  missing_deals: Listed<{ external_id: string }> & { action: 'reported' | 'deleted'; deleted: number };
}

/** What the import has seen of the file so far (rows come a chunk at a time). */
export interface FileState {
  /** Every deal id the file has, refused rows included (a refused row's deal is not missing from the file). */
  deals: Set<string>;
  /** The dedup keys of the file's rows, with the line of the first row of each. */
  keys: Map<string, number>;
  owners: Set<string>;
  ownerLines: Map<string, number>;
  currencies: Map<string, { rows: number; stated_by: Set<string> }>;
  stages: Map<string, ImportReport['open_stages'][number]>;
}

const CURRENCY_SOURCES = {
  column: 'the currency column',
  header: "the amount column's name",
  amount: 'the amount',
  mapping: "the mapping's default_currency",
  option: '--currency',
  fallback: "the org's default currency (the row states none)",
} as const;

export function emptyReport(action: 'reported' | 'deleted'): ImportReport {
  const none = () => ({ count: 0, items: [] });
  return {
    new_reps: none(),
    rows_without_owner: none(),
    rows_without_close_date: none(),
    open_stages: [],
    currencies: [],
    deleted_rows: none(),
    repeated_rows: none(),
    missing_deals: { ...none(), action, deleted: 0 },
  };
}

export function list<T>(listed: Listed<T>, item: T): void {
  listed.count++;
  if (listed.items.length < LISTED_REFUSALS) listed.items.push(item);
}

export function finishReport(report: ImportReport, file: FileState): void {
  report.open_stages = [...file.stages.values()].sort((a, b) => a.line - b.line);
  report.currencies = [...file.currencies]
    .map(([currency, { rows, stated_by }]) => ({ currency, rows, stated_by: [...stated_by] }))
    .sort((a, b) => b.rows - a.rows);
  report.new_reps.items.sort((a, b) => a.line - b.line);
}

/**
 * Notes a row the import applies (the first of its dedup key) in the report and the file's state: its owner, close
 * date, open stage and currency. Returns the owner when the file names it for the first time.
 */
export function reportRow(
  report: ImportReport,
  file: FileState,
  line: number,
  facts: Extract<ImportRow, { event: unknown }>['facts'],
): string | undefined {
  let newOwner: string | undefined;
  if (facts.owner === undefined) list(report.rows_without_owner, line);
  else if (!file.owners.has(facts.owner)) {
    file.owners.add(facts.owner);
    file.ownerLines.set(facts.owner, line);
    newOwner = facts.owner;
  }
  if (!facts.hasCloseDate) list(report.rows_without_close_date, line);
  if (facts.openStage !== undefined) {
    const label = `${facts.pipeline ?? ''}\u0000${facts.openStage}`;
    const stage = file.stages.get(label);
    if (stage) stage.rows++;
    else
      file.stages.set(label, {
        stage: facts.openStage,
        ...(facts.pipeline === undefined ? {} : { pipeline: facts.pipeline }),
        rows: 1,
        line,
      });
  }
  const currency = file.currencies.get(facts.currency) ?? { rows: 0, stated_by: new Set<string>() };
  currency.rows++;
  currency.stated_by.add(CURRENCY_SOURCES[facts.currencySource]);
  file.currencies.set(facts.currency, currency);
  return newOwner;
}
