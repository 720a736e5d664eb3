import { type CsvCell, csvFile } from '../csvFile.ts';
import { decimalsOf } from '../currencies.ts';
import { plainDecimal } from './money.ts';
import type { Statement } from './statement.ts';

// A statement as a CSV file for spreadsheets (csvFile.ts: RFC 4180, CRLF, formulas defused): one row per line,
// adjustment and manual adjustment, in the JSON answer's order, so each total of the statement is the sum of its rows
// with that status.

export const STATEMENT_CSV_COLUMNS = [
  'period_id',
  'plan_key',
  'plan_name',
  'currency',
  'kind',
  'from_period_id',
  'earning_id',
  'status',
  'deal_external_id',
  'chip_key',
  'chip_name',
  'amount_cents',
  'amount',
  'explanation',
] as const;

export function statementCsv(statement: Statement): string {
  const rows: CsvCell[][] = [];
  for (const plan of statement.plans) {
    const decimals = decimalsOf(plan.currency);
    const entries = [
      ...plan.lines.map((line) => ({ ...line, kind: 'line', from_period_id: null })),
      ...plan.adjustments,
    ];
    for (const entry of entries) {
      rows.push([
        statement.period.id,
        plan.plan_key,
        plan.plan_name,
        plan.currency,
        entry.kind,
        entry.from_period_id,
        entry.earning_id,
        entry.status,
        entry.deal_external_id,
        entry.chip_key,
        entry.chip_name,
        entry.amount_cents,
        plainDecimal(BigInt(entry.amount_cents), decimals),
        entry.explanation,
      ]);
    }
  }
  // Manual adjustments belong to no plan: a row each, kind `manual_adjustment`, the category where a chip would be.
  for (const adjustment of statement.manual_adjustments) {
    rows.push([
      statement.period.id,
      '',
      '',
      adjustment.currency,
      'manual_adjustment',
      '',
      adjustment.id,
      adjustment.status,
      '',
      adjustment.category,
      '',
      adjustment.amount_cents,
      plainDecimal(BigInt(adjustment.amount_cents), decimalsOf(adjustment.currency)),
      adjustment.reason,
    ]);
  }
  return csvFile(STATEMENT_CSV_COLUMNS, rows);
}

/** The file's name: `statement-<rep's external id>-<period>.csv`, with anything but safe characters replaced. */
export function statementFileName(statement: Statement, extension: 'csv' | 'pdf'): string {
  const rep = statement.user.external_id.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `statement-${rep}-${statement.period.id}.${extension}`;
}
