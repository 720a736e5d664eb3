import { Refusal, type RefusalCode } from '../domain/refusal.ts';

// Every command prints exactly one JSON document on stdout with --json; otherwise lines for people.

export interface OutputOptions {
  json?: boolean;
}

export function print(options: OutputOptions, document: unknown, human: () => string): void {
  process.stdout.write(options.json ? `${JSON.stringify(document, jsonReplacer, 2)}\n` : endLine(human()));
}

/** Text ends with one line break: a file that ends its own records (a CSV file's CRLF) is printed as it is. */
function endLine(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** A command's input is its arguments: the refusal the API calls `invalid_body` is `invalid_argument` here. */
const CLI_CODE: Partial<Record<RefusalCode, string>> = { invalid_body: 'invalid_argument' };

/**
 * Prints the failure in the same shape as the API's errors and sets a failing exit code: 2 for a refusal, 1 for
 * anything else (`internal_error`).
 */
export function printFailure(options: OutputOptions, error: unknown): void {
  const refusal = error instanceof Refusal ? error : undefined;
  const code = refusal ? (CLI_CODE[refusal.code] ?? refusal.code) : 'internal_error';
  const reason = error instanceof Error ? error.message : String(error);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ error: code, reason, ...refusal?.details })}\n`);
  } else {
    process.stderr.write(`quotient: ${[reason, ...(refusal?.lines ?? [])].join('\n  ')}\n`);
  }
  process.exitCode = refusal ? 2 : 1;
}

function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? Number(value) : value;
}

export function table<Row extends object>(rows: Row[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((row) => columns.map((column) => format((row as Record<string, unknown>)[column])));
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...cells.map((row) => row[index]?.length ?? 0)),
  );
  const line = (values: string[]) =>
    values
      .map((value, index) => value.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

function format(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.join(',');
  return String(value);
}
