// The CSV files Quotient writes (the payroll file, statements, the accounting exports): RFC 4180, every record ended
// by CRLF, a field quoted when it holds a comma, a semicolon, a quote or a line break (a semicolon so that a
// spreadsheet splitting on `;` in its locale still reads one cell).
//
// Text a spreadsheet would run as a formula is defused, as OWASP advises against CSV injection: a text cell that
// starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading apostrophe, so Excel and Sheets show it
// as text. Deal ids, plan names and rep ids come from the CRM and the plan file, not from Quotient, and a payroll
// file is opened by people who trust it. A number is never defused: a cell that is a number (a JavaScript number or
// bigint, or a text that is only a decimal number such as `-1250` or `-12.50`) is written as it is, so a clawback's
// negative amount stays a number that sums; nothing that reads as a plain number can run.

/** One field: text, a number, a flag, or empty (`null` and `undefined`). */
export type CsvCell = string | number | bigint | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;
const NEEDS_QUOTES = /[",;\r\n]/;

/** A field as the file writes it: defused when it is text that would start a formula, then quoted if it must be. */
export function csvField(cell: CsvCell): string {
  if (cell === null || cell === undefined) return '';
  const text = String(cell);
  const defused = typeof cell === 'string' && FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(defused) ? `"${defused.replaceAll('"', '""')}"` : defused;
}

/** A file: the header, then one record per row, each ended by CRLF. */
export function csvFile(header: readonly string[], rows: Iterable<readonly CsvCell[]>): string {
  let text = csvRecord(header);
  for (const row of rows) text += csvRecord(row);
  return text;
}

function csvRecord(cells: readonly CsvCell[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}
