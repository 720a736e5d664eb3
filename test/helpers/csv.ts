import { csvRecords } from '../../src/domain/imports/csv.ts';

/** A CSV file's records as RFC 4180 reads them, by the reader the imports use. */
export async function csvRows(text: string): Promise<string[][]> {
  const rows: string[][] = [];
  async function* once() {
    yield text;
  }
  for await (const record of csvRecords(once())) rows.push(record.fields);
  return rows;
}
