import type { DealEvent } from '../deals/event.ts';
import type { JsonObject } from '../json.ts';
import { Refusal } from '../refusal.ts';
import { CsvSyntaxError, csvRecords } from './csv.ts';
import { BUILT_IN_MAPPINGS, type Mapping, RefusedRow, RowMapper } from './mapping.ts';

/** One row of an export, as its mapping made it: a checked deal event, or the reason it cannot be one. */
export type ImportRow = { line: number; event: DealEvent; body: JsonObject } | { line: number; refusal: string };

/** The deal-event check the API applies to a body: the event, or the reason it is refused. */
export type EventCheck = (body: JsonObject) => { event: DealEvent } | { refusal: string };

/**
 * The rows of a CSV export, read as they come: the header first (its mapping, given or recognised, must find its
 * columns there, else a Refusal `invalid_body`), then each record mapped to a deal event and checked. A record whose field
 * count is not the header's is refused; a broken file (an unclosed quote) is refused where it breaks.
 */
export async function exportRows(
  chunks: AsyncIterable<string>,
  chosen: Mapping | undefined,
  check: EventCheck,
): Promise<{ mapping: Mapping; rows: AsyncGenerator<ImportRow> }> {
  const records = csvRecords(chunks);
  const header = await records.next();
  if (header.done) throw new Refusal('invalid_body', 'the file is empty: it needs a header row');
  const mapping = chosen ?? recognise(header.value.fields);
  const mapper = new RowMapper(mapping, header.value.fields);
  const width = header.value.fields.length;
  async function* rows(): AsyncGenerator<ImportRow> {
    try {
      for await (const { line, fields } of records) {
        if (fields.length !== width) {
          yield { line, refusal: `has ${fields.length} fields where the header has ${width}` };
          continue;
        }
        let body: JsonObject;
        try {
          body = mapper.eventOf(fields);
        } catch (error) {
          if (!(error instanceof RefusedRow)) throw error;
          yield { line, refusal: error.message };
          continue;
        }
        yield { line, body, ...check(body) };
      }
    } catch (error) {
      if (error instanceof CsvSyntaxError) throw new Refusal('invalid_body', `the file is not CSV: ${error.message}`);
      throw error;
    }
  }
  return { mapping, rows: rows() };
}

/** The built-in mapping whose id and stage columns the header has. */
function recognise(header: readonly string[]): Mapping {
  const columns = new Set(header.map((name) => name.trim()));
  const found = Object.values(BUILT_IN_MAPPINGS).find(
    (mapping) => columns.has(mapping.id) && columns.has(mapping.stage),
  );
  if (!found) {
    throw new Refusal(
      'invalid_body',
      'the header is not that of a HubSpot deal export or a Salesforce opportunity report: give a mapping',
    );
  }
  return found;
}
