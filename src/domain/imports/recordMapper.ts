import { isKnownCurrency, minorUnitExponent } from '../currencies.ts';
import type { JsonObject } from '../json.ts';
import { Refusal } from '../refusal.ts';
import { currencyMarked, dedupKeyOf, plainOfNumber, symbolFits, typed } from './cellReaders.ts';
import {
  type Conventions,
  type Evidence,
  minorUnits,
  plainNumber,
  readBoolean,
  readDate,
  ValueProblem,
} from './locale.ts';
import {
  fieldKey,
  headerIndex,
  type Mapping,
  names,
  SOURCE_KEYS,
  type Source,
  stripCurrencySuffix,
} from './mapping.ts';

// A record read by a mapping (mapping.ts): its fields' cells become one deal event, or the record is refused with
// the field (and its column) that stops it. The same reader serves an export's rows and a connector's records.

/** A record that cannot become an event: the reason names the field (and its column). */
export class RefusedRow extends Error {
  /** The record's deal id, when it could be read (so that the deal is not taken for one missing from the file). */
  readonly externalId: string | undefined;
  /**
   * What makes the refusal the file's, not the row's: a value only the file's conventions decide (`date`,
   * `number`), an id a spreadsheet shortened (`scientific`).
   */
  readonly fileLevel: 'date' | 'number' | 'scientific' | undefined;

  constructor(reason: string, externalId?: string, fileLevel?: 'date' | 'number' | 'scientific') {
    super(reason);
    this.name = 'RefusedRow';
    this.externalId = externalId;
    this.fileLevel = fileLevel;
  }
}

/** One field of a record as read: text (CSV, an API's strings), or a typed cell (XLSX, an API's JSON). */
export type Cell = string | number | boolean | Date | null | undefined;

/** What a record became, and what the import's report says about it. */
export type MappedRecord =
  | { kind: 'deleted'; externalId: string }
  | {
      kind: 'event';
      body: JsonObject;
      externalId: string;
      owner: string | undefined;
      hasCloseDate: boolean;
      /** The stage as the file names it, when the deal is read as open. */
      openStage: string | undefined;
      /** The pipeline (a custom field named so), for the report of open stages. */
      pipeline: string | undefined;
      /** The currency and what states it (`column`, `header`, `amount`, `mapping`, `option`), or the fallback. */
      currency: string;
      currencySource: 'column' | 'header' | 'amount' | 'mapping' | 'option' | 'fallback';
    };

/** How values are read: the file's conventions (evidence gathers what values decide), and the fallback currency. */
export interface ReadContext {
  conventions: Conventions;
  /** Gathers what the values decide about the conventions (the survey of a file). */
  evidence?: (found: Evidence, column: string) => void;
  /**
   * The survey of a file, which reads each record for its deal id and what its values decide: the body is not given
   * its dedup key (a digest of the whole event, taken when the rows are read for the import).
   */
  survey?: boolean;
  /** `--currency`: the currency of rows that state none. */
  currency?: string;
  /** The org's default: rows that state no currency are read in it (and the import's report says so). */
  fallbackCurrency: string;
}

interface Located {
  position: number;
  name: string;
  /** A currency the header's name states ("Amount (EUR)"). */
  currency?: string;
}

/**
 * The mapping read against a header: each mapped field's position. A missing required field, or a mapped field
 * the header has twice, refuses the whole file (a Refusal `invalid_body`, naming it) rather than every row.
 */
export class RowMapper {
  readonly mapping: Mapping;
  readonly header: readonly string[];
  private readonly fields = new Map<string, Located>();
  private readonly won: Set<string>;
  private readonly lost: Set<string>;

  constructor(mapping: Mapping, header: readonly string[]) {
    this.mapping = mapping;
    this.header = header;
    const index = headerIndex(header);
    const missing: string[] = [];
    const locate = (field: string, source: Source | undefined, required: boolean) => {
      if (source === undefined) return;
      for (const name of names(source)) {
        const positions = index.get(fieldKey(name));
        if (positions === undefined) continue;
        if (positions.length > 1) {
          throw new Refusal(
            'invalid_body',
            `the header names "${header[positions[0] as number]}" twice (columns ${positions.map((at) => at + 1).join(' and ')}): ` +
              'which one holds the value is not known; remove or rename one',
          );
        }
        const position = positions[0] as number;
        const located: Located = { position, name: header[position]?.trim() ?? name };
        const suffix = stripCurrencySuffix(header[position] ?? '').currency;
        if (suffix !== undefined) located.currency = suffix;
        this.fields.set(field, located);
        return;
      }
      if (required) missing.push(names(source).join('" or "'));
    };
    locate('id', mapping.id, true);
    locate('stage', mapping.stage, true);
    for (const key of SOURCE_KEYS) {
      locate(key, mapping[key], mapping.strict || (mapping.required as readonly string[]).includes(key));
    }
    for (const [field, spec] of Object.entries(mapping.custom)) locate(`custom.${field}`, spec.column, !spec.optional);
    if (missing.length > 0) {
      throw new Refusal(
        'invalid_body',
        `the file has no column ${missing.map((name) => `"${name}"`).join(', ')} (mapping ${mapping.name}); ` +
          `its columns: ${header.join(', ')}`,
      );
    }
    this.won = new Set(mapping.won_stages.map(foldStage));
    this.lost = new Set(mapping.lost_stages.map(foldStage));
  }

  /** The header's name of a mapped field and its column, for messages: `Amount (column 5)`. */
  describe(field: string): string {
    const located = this.fields.get(field);
    return located === undefined ? field : `${located.name} (column ${located.position + 1})`;
  }

  /** Whether the records carry the CRM's won/closed flags (then no stage is read as open by default). */
  get hasClosedFlags(): boolean {
    return this.fields.has('won') || this.fields.has('closed') || this.fields.has('lost');
  }

  /** The mapped field's position in the header, if it has it. */
  position(field: string): number | undefined {
    return this.fields.get(field)?.position;
  }

  /** The record's deal event (the body `POST /v1/deals/events` takes), with a dedup key derived from its content. */
  map(cells: readonly Cell[], context: ReadContext): MappedRecord {
    let externalId: string | undefined;
    const refuse = (field: string, problem: string, fileLevel?: RefusedRow['fileLevel']): never => {
      throw new RefusedRow(`${this.describe(field)}: ${problem}`, externalId, fileLevel);
    };
    const cell = (field: string): Cell => {
      const located = this.fields.get(field);
      if (located === undefined) return undefined;
      const value = cells[located.position];
      if (typeof value === 'string') {
        const trimmed = value.trim();
        return trimmed === '' ? undefined : trimmed;
      }
      return value === null ? undefined : value;
    };
    const text = (field: string): string | undefined => {
      const value = cell(field);
      if (value === undefined) return undefined;
      if (value instanceof Date) return value.toISOString();
      return String(value);
    };
    const read = <T>(field: string, reader: () => T): T => {
      try {
        return reader();
      } catch (error) {
        if (error instanceof ValueProblem) return refuse(field, error.message, error.ambiguous);
        throw error;
      }
    };
    const flag = (field: string): boolean | undefined => {
      const value = cell(field);
      if (value === undefined) return undefined;
      if (typeof value === 'boolean') return value;
      return read(field, () => readBoolean(String(value)));
    };
    /** Reads a value that may decide the file's conventions, and reports what it decided. */
    const decide = <T>(field: string, reader: (found: Evidence) => T): T =>
      read(field, () => {
        const found: Evidence = {};
        const value = reader(found);
        if (found.dateOrder !== undefined || found.decimal !== undefined)
          context.evidence?.(found, this.describe(field));
        return value;
      });

    const idCell = cell('id');
    if (idCell === undefined) return refuse('id', 'is empty');
    if (typeof idCell === 'number') {
      if (!Number.isSafeInteger(idCell)) return refuse('id', `${idCell} is a number whose digits are lost`);
      externalId = String(idCell);
    } else externalId = String(idCell);
    if (/^[+-]?\d+(?:[.,]\d+)?[eE][+-]?\d+$/.test(externalId)) {
      return refuse(
        'id',
        `"${externalId}" is in scientific notation (a spreadsheet shortened the id, and its digits are lost): ` +
          'export again and open it as text, not as numbers',
        'scientific',
      );
    }
    if (flag('deleted') === true) return { kind: 'deleted', externalId };

    const state: JsonObject = {};
    const stage = text('stage');
    if (stage === undefined) return refuse('stage', 'is empty');
    const won = flag('won');
    const closed = flag('closed');
    const lost = flag('lost');
    let status: 'closed_won' | 'closed_lost' | undefined;
    if (won === true) status = 'closed_won';
    else if (lost === true || (closed === true && won !== undefined)) status = 'closed_lost';
    else if (closed === true) {
      const folded = foldStage(stage);
      if (this.won.has(folded)) status = 'closed_won';
      else if (this.lost.has(folded)) status = 'closed_lost';
      else return refuse('closed', `the deal is closed, but its stage "${stage}" is not listed as won or lost`);
    } else if (won === undefined && closed === undefined && lost === undefined) {
      const folded = foldStage(stage);
      if (this.won.has(folded)) status = 'closed_won';
      else if (this.lost.has(folded)) status = 'closed_lost';
    }
    state.stage = status ?? stage;

    // The currency: what the row states, every statement agreeing.
    const stated: Array<{
      code: string;
      source: 'column' | 'header' | 'amount' | 'mapping' | 'option';
      field: string;
    }> = [];
    const currencyText = text('currency');
    if (currencyText !== undefined) {
      const code = currencyText.toUpperCase();
      if (!isKnownCurrency(code)) return refuse('currency', `"${currencyText}" is not an ISO 4217 currency code`);
      stated.push({ code, source: 'column', field: 'currency' });
    }
    const headerCurrency = this.fields.get('amount')?.currency;
    if (headerCurrency !== undefined) stated.push({ code: headerCurrency, source: 'header', field: 'amount' });
    const amountCell = cell('amount');
    let amountText: string | undefined;
    if (amountCell !== undefined) {
      if (typeof amountCell === 'number') amountText = String(amountCell);
      else if (typeof amountCell === 'string') {
        const marked = currencyMarked(amountCell);
        if (marked.currency !== undefined) {
          if (marked.currency.length === 3 && !isKnownCurrency(marked.currency)) {
            return refuse('amount', `"${amountCell}" names ${marked.currency}, not an ISO 4217 currency`);
          }
          stated.push({ code: marked.currency, source: 'amount', field: 'amount' });
        }
        amountText = marked.number;
      } else return refuse('amount', `${String(amountCell)} is not an amount`);
    }
    const codes = new Map<string, string>();
    for (const claim of stated) {
      if (claim.code.length === 1) continue;
      codes.set(claim.code, claim.field);
    }
    if (codes.size > 1) {
      return refuse(
        'amount',
        `the row's currency is not one: ${[...codes].map(([code, field]) => `${code} (${this.describe(field)})`).join(' and ')}`,
      );
    }
    const firstStated = stated.find((claim) => claim.code.length === 3);
    let currency: string;
    let currencySource: Extract<MappedRecord, { kind: 'event' }>['currencySource'];
    if (firstStated) [currency, currencySource] = [firstStated.code, firstStated.source];
    else if (this.mapping.default_currency) [currency, currencySource] = [this.mapping.default_currency, 'mapping'];
    else if (context.currency) [currency, currencySource] = [context.currency, 'option'];
    else [currency, currencySource] = [context.fallbackCurrency, 'fallback'];
    for (const claim of stated) {
      if (claim.code.length === 1 && !symbolFits(claim.code, currency)) {
        return refuse('amount', `"${amountCell}" is written in ${claim.code} but the row's currency is ${currency}`);
      }
    }

    if (amountText !== undefined) {
      const plain =
        typeof amountCell === 'number'
          ? plainOfNumber(amountCell)
          : decide('amount', (found) =>
              plainNumber(amountText as string, context.conventions.decimal, found, 'an amount'),
            );
      state.amount_cents = read('amount', () => minorUnits(plain, minorUnitExponent(currency), String(amountCell)));
    }
    const closeCell = cell('close_date');
    if (closeCell !== undefined) {
      state.close_date =
        closeCell instanceof Date
          ? closeCell.toISOString().slice(0, 10)
          : decide('close_date', (found) => readDate(String(closeCell), context.conventions.dateOrder, found).day);
    }
    const owner = text('owner');
    if (owner !== undefined) state.owner_external_id = owner;
    const custom: JsonObject = {};
    for (const [field, spec] of Object.entries(this.mapping.custom)) {
      const value = cell(`custom.${field}`);
      if (value === undefined) continue;
      custom[field] = decide(`custom.${field}`, (found) => typed(value, spec, context, found));
    }
    if (Object.keys(custom).length > 0) state.custom = custom;

    const event: JsonObject = { external_id: externalId, state };
    if (currencySource !== 'fallback') event.currency = currency;
    const occurredCell = cell('occurred_at');
    if (occurredCell !== undefined) {
      event.occurred_at =
        occurredCell instanceof Date
          ? occurredCell.toISOString()
          : decide(
              'occurred_at',
              (found) => readDate(String(occurredCell), context.conventions.dateOrder, found).instant,
            );
    }
    if (!context.survey) event.dedup_key = dedupKeyOf(event);
    const pipeline = custom.pipeline;
    return {
      kind: 'event',
      body: event,
      externalId,
      owner,
      hasCloseDate: state.close_date !== undefined,
      openStage: status === undefined ? stage : undefined,
      pipeline: typeof pipeline === 'string' ? pipeline : undefined,
      currency,
      currencySource,
    };
  }
}

function foldStage(stage: string): string {
  return stage.trim().toLowerCase();
}
