// A streaming CSV reader (RFC 4180, as CRM exports write it): fields separated by commas (or the delimiter given:
// European Excel writes semicolons, some exports tabs), quoted with double quotes
// when they hold a comma, a quote ("" inside quotes) or a line break, records ended by CRLF or LF. It holds one
// record at a time, whatever the file's size.

/** One record and the line of the file it starts on (1 is the header's). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** A file that is not CSV where the reader stopped: an unterminated quote. */
export class CsvSyntaxError extends Error {
  readonly line: number;

  constructor(line: number, problem: string) {
    super(`line ${line}: ${problem}`);
    this.name = 'CsvSyntaxError';
    this.line = line;
  }
}

/** The records of a text stream, in order; a byte order mark and blank lines are skipped. */
export async function* csvRecords(chunks: AsyncIterable<string>, delimiter = ','): AsyncGenerator<CsvRecord> {
  let field = '';
  let fields: string[] = [];
  let quoted = false;
  /** Inside quotes, the last character was a quote: either the closing one or the first of "". */
  let quoteSeen = false;
  let line = 1;
  let recordLine = 1;
  let fieldStarted = false;
  let first = true;

  const endRecord = (): CsvRecord | null => {
    fields.push(field);
    const record = fields.length === 1 && fields[0] === '' && !fieldStarted ? null : { line: recordLine, fields };
    fields = [];
    field = '';
    fieldStarted = false;
    return record;
  };

  for await (let chunk of chunks) {
    if (first) {
      if (chunk.startsWith('\ufeff')) chunk = chunk.slice(1);
      first = false;
    }
    const records: CsvRecord[] = [];
    for (const char of chunk) {
      if (quoted) {
        if (quoteSeen) {
          quoteSeen = false;
          if (char === '"') {
            field += '"';
            continue;
          }
          quoted = false;
        } else if (char === '"') {
          quoteSeen = true;
          continue;
        } else {
          if (char === '\n') line++;
          field += char;
          continue;
        }
      }
      if (char === '"' && field === '') {
        quoted = true;
        fieldStarted = true;
      } else if (char === delimiter) {
        fields.push(field);
        field = '';
        fieldStarted = true;
      } else if (char === '\n') {
        if (field.endsWith('\r')) field = field.slice(0, -1);
        const record = endRecord();
        if (record) records.push(record);
        line++;
        recordLine = line;
      } else {
        field += char;
        if (char !== '\r') fieldStarted = true;
      }
    }
    yield* records;
  }
  if (quoted && !quoteSeen) throw new CsvSyntaxError(recordLine, 'a quoted field is not closed');
  if (field.endsWith('\r')) field = field.slice(0, -1);
  const last = endRecord();
  if (last) yield last;
}
