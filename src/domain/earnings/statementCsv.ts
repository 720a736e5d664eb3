import { decimalsOf } from '../currencies.ts';
import { plainDecimal } from './money.ts';
import type { Statement } from './statement.ts';

// A statement as a CSV file for spreadsheets (RFC 4180, CRLF): one row per line, adjustment and manual adjustment, in
// the JSON answer's
// order, so each total of the statement is the sum of its rows with that status. Text that a spreadsheet would run
// as a formula is defused with a leading apostrophe (OWASP's advice on CSV injection): a deal's external id or a
// plan's name comes from the CRM and the plan file, not from Quotient.

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

const FORMULA_START = /^[=+\-@\t\r]/;

function textCell(value: string | null): string {
  if (value === null || value === '') return '';
  const defused = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(defused) ? `"${defused.replace(/"/g, '""')}"` : defused;
}

export function statementCsv(statement: Statement): string {
  const rows: string[][] = [[...STATEMENT_CSV_COLUMNS]];
  for (const plan of statement.plans) {
    const decimals = decimalsOf(plan.currency);
    const entries = [
      ...plan.lines.map((line) => ({ ...line, kind: 'line', from_period_id: null })),
      ...plan.adjustments,
    ];
    for (const entry of entries) {
      rows.push([
        textCell(statement.period.id),
        textCell(plan.plan_key),
        textCell(plan.plan_name),
        textCell(plan.currency),
        textCell(entry.kind),
        textCell(entry.from_period_id),
        textCell(entry.earning_id),
        textCell(entry.status),
        textCell(entry.deal_external_id),
        textCell(entry.chip_key),
        textCell(entry.chip_name),
        String(entry.amount_cents),
        plainDecimal(BigInt(entry.amount_cents), decimals),
        textCell(entry.explanation),
      ]);
    }
  }
  // Manual adjustments belong to no plan: a row each, kind `manual_adjustment`, the category where a chip would be.
  for (const adjustment of statement.manual_adjustments) {
    rows.push([
      textCell(statement.period.id),
      '',
      '',
      textCell(adjustment.currency),
      'manual_adjustment',
      '',
      textCell(adjustment.id),
      textCell(adjustment.status),
      '',
      textCell(adjustment.category),
      '',
      String(adjustment.amount_cents),
      plainDecimal(BigInt(adjustment.amount_cents), decimalsOf(adjustment.currency)),
      textCell(adjustment.reason),
    ]);
  }
  return rows.map((row) => `${row.join(',')}\r\n`).join('');
}

/** The file's name: `statement-<rep's external id>-<period>.csv`, with anything but safe characters replaced. */
export function statementFileName(statement: Statement, extension: 'csv' | 'pdf'): string {
  const rep = statement.user.external_id.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `statement-${rep}-${statement.period.id}.${extension}`;
}
