import { csvRecords } from '../domain/imports/csv.ts';
import {
  type QuotaFileProblem,
  type QuotaFileRow,
  quotaFileHeader,
  quotaFileRow,
} from '../domain/imports/quotaRows.ts';
import type { CalendarDate } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';

// A quota file read into the writes of its rows (entries, start dates, display names), and the refusal of a file that
// names every bad row.

export interface QuotaWrite {
  line: number;
  rep_external_id: string;
  plan_key: string;
  from: CalendarDate;
  quota_cents: number | null;
  /** A file's amount in the plan currency's major units, converted once the plan is known; then `quota_cents` is unused. */
  amount?: string;
}

export interface StartWrite {
  line: number;
  rep_external_id: string;
  start_date: CalendarDate | null;
}

export interface NameWrite {
  line: number;
  rep_external_id: string;
  display_name: string;
}

/** What a quota file asks: its rows' count and their writes. */
export interface QuotaFileWrites {
  rows: number;
  /** The writes of the rows that passed the file's own checks. */
  writes: { quotas: QuotaWrite[]; starts: StartWrite[]; names: NameWrite[] };
  /** The rows that did not, by line: the caller adds the problems its checks against the org find and refuses all. */
  problems: QuotaFileProblem[];
}

/** The refusal of a file names this many bad rows at most. */
const MAX_PROBLEMS_SHOWN = 20;

/**
 * Reads a quota file (CSV, docs/quotas.md) into the writes of its good rows and the problems of its bad ones, so that
 * the caller can name every bad row in one refusal; only a bad header or a file that is not CSV is refused here.
 */
export async function readQuotaFile(text: string | AsyncIterable<string>): Promise<QuotaFileWrites> {
  const chunks = typeof text === 'string' ? single(text) : text;
  const problems: QuotaFileProblem[] = [];
  const rows: QuotaFileRow[] = [];
  let columns: Parameters<typeof quotaFileRow>[1] | null = null;
  let count = 0;
  try {
    for await (const record of csvRecords(chunks)) {
      if (columns === null) {
        const header = quotaFileHeader(record);
        if ('problem' in header) throw fileRefusal([header.problem]);
        columns = header.columns;
        continue;
      }
      count += 1;
      const row = quotaFileRow(record, columns);
      if ('message' in row) problems.push(row);
      else rows.push(row);
    }
  } catch (error) {
    if (error instanceof Refusal) throw error;
    if (error instanceof Error && error.name === 'CsvSyntaxError') {
      throw new Refusal('invalid_body', `the quota file is not CSV: ${error.message}; nothing was applied`);
    }
    throw error;
  }
  if (columns === null) throw new Refusal('invalid_body', 'the quota file is empty: it needs a header and rows');
  const quotaWrites: QuotaWrite[] = [];
  const startWrites: StartWrite[] = [];
  const nameWrites: NameWrite[] = [];
  for (const row of rows) {
    if (row.quota) {
      quotaWrites.push({
        line: row.line,
        rep_external_id: row.rep_external_id,
        plan_key: row.quota.plan_key,
        from: row.quota.from,
        quota_cents: null,
        ...(row.quota.amount === null ? {} : { amount: row.quota.amount }),
      });
    }
    if (row.start_date !== undefined) {
      startWrites.push({ line: row.line, rep_external_id: row.rep_external_id, start_date: row.start_date });
    }
    if (row.display_name !== undefined) {
      nameWrites.push({ line: row.line, rep_external_id: row.rep_external_id, display_name: row.display_name });
    }
  }
  return { rows: count, writes: { quotas: quotaWrites, starts: startWrites, names: nameWrites }, problems };
}

/** A refused file: every bad row by line (the first few in the reason, all in the CLI's lines); nothing applied. */
export function fileRefusal(problems: readonly QuotaFileProblem[]): Refusal {
  const sorted = [...problems].sort((a, b) => a.line - b.line);
  const shown = sorted.slice(0, MAX_PROBLEMS_SHOWN).map((problem) => `line ${problem.line}: ${problem.message}`);
  const more = sorted.length > MAX_PROBLEMS_SHOWN ? `; and ${sorted.length - MAX_PROBLEMS_SHOWN} more` : '';
  const rows = sorted.length === 1 ? 'a bad row' : `${sorted.length} bad rows`;
  return new Refusal('invalid_body', `the quota file has ${rows}, nothing was applied: ${shown.join('; ')}${more}`, {
    lines: sorted.map((problem) => `line ${problem.line}: ${problem.message}`),
  });
}

async function* single(text: string): AsyncGenerator<string> {
  yield text;
}
