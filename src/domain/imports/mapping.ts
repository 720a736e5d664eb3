import { createHash } from 'node:crypto';
import { canonicalJson, isJsonObject, type JsonObject, type JsonValue } from '../json.ts';
import { Refusal } from '../refusal.ts';

// How the columns of a CRM export become deal events: one row, one event (`POST /v1/deals/events`'s body). The
// mapping names the export's columns; stages listed as won or lost become `closed_won` / `closed_lost`, any other
// stage is kept as it is (an open deal). A mapping file is YAML of the `Mapping` shape below; HubSpot's deal export
// and Salesforce's opportunity report have built-in ones.

export type CustomType = 'string' | 'number' | 'boolean';

export interface CustomColumn {
  column: string;
  type: CustomType;
  /** A missing column is allowed: the field is left out (built-in mappings, for columns a portal may not have). */
  optional: boolean;
}

export interface Mapping {
  name: string;
  /** The deal's id in the CRM: the event's `external_id`, and part of each row's dedup key. */
  id: string;
  stage: string;
  amount?: string;
  close_date?: string;
  owner?: string;
  /** A column of ISO 4217 codes; else `default_currency`, else the org's default. */
  currency?: string;
  default_currency?: string;
  /** When the CRM last changed the deal: the event's `occurred_at`, so an older export never overwrites a newer. */
  occurred_at?: string;
  won_stages: string[];
  lost_stages: string[];
  custom: Record<string, CustomColumn>;
  /**
   * Every named column must be in the file. A built-in mapping is not strict: beyond the id and stage columns, a
   * column the export does not have (a portal without multiple currencies, a report without the last-modified
   * column) is left out.
   */
  strict: boolean;
}

/** A mapping file that cannot be used: the problem, for people. */
const HUBSPOT: Mapping = {
  name: 'hubspot',
  id: 'Record ID',
  stage: 'Deal Stage',
  amount: 'Amount',
  close_date: 'Close Date',
  owner: 'Deal owner',
  currency: 'Currency',
  occurred_at: 'Last Modified Date',
  won_stages: ['Closed Won', 'closedwon'],
  lost_stages: ['Closed Lost', 'closedlost'],
  custom: {
    deal_name: { column: 'Deal Name', type: 'string', optional: true },
    pipeline: { column: 'Pipeline', type: 'string', optional: true },
    deal_type: { column: 'Deal Type', type: 'string', optional: true },
    region: { column: 'Region', type: 'string', optional: true },
    new_logo: { column: 'New Logo', type: 'boolean', optional: true },
  },
  strict: false,
};

const SALESFORCE: Mapping = {
  name: 'salesforce',
  id: 'Opportunity ID',
  stage: 'Stage',
  amount: 'Amount',
  close_date: 'Close Date',
  owner: 'Opportunity Owner',
  currency: 'Opportunity Currency',
  occurred_at: 'Last Modified Date',
  won_stages: ['Closed Won'],
  lost_stages: ['Closed Lost'],
  custom: {
    opportunity_name: { column: 'Opportunity Name', type: 'string', optional: true },
    account_name: { column: 'Account Name', type: 'string', optional: true },
    type: { column: 'Type', type: 'string', optional: true },
    lead_source: { column: 'Lead Source', type: 'string', optional: true },
    region: { column: 'Region', type: 'string', optional: true },
    new_logo: { column: 'New Logo', type: 'boolean', optional: true },
  },
  strict: false,
};

export const BUILT_IN_MAPPINGS: Readonly<Record<string, Mapping>> = { hubspot: HUBSPOT, salesforce: SALESFORCE };

/** A mapping file's document (parsed YAML), checked. */
export function parseMapping(document: unknown, name: string): Mapping {
  if (!isJsonObject(document as JsonValue))
    throw new Refusal('invalid_body', 'the mapping file must be a YAML mapping');
  const doc = document as JsonObject;
  const known = new Set([
    'id',
    'stage',
    'amount',
    'close_date',
    'owner',
    'currency',
    'default_currency',
    'occurred_at',
    'won_stages',
    'lost_stages',
    'custom',
  ]);
  for (const key of Object.keys(doc)) {
    if (!known.has(key))
      throw new Refusal('invalid_body', `${key}: not a member of a mapping (${[...known].join(', ')})`);
  }
  const column = (key: string, required: boolean): string | undefined => {
    const value = doc[key];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || value === '') throw new Refusal('invalid_body', `${key}: must name a column`);
    return value;
  };
  const stages = (key: string): string[] => {
    const value = doc[key] ?? [];
    if (!Array.isArray(value) || !value.every((stage) => typeof stage === 'string')) {
      throw new Refusal('invalid_body', `${key}: must be a list of stage values`);
    }
    return value as string[];
  };
  const custom: Record<string, CustomColumn> = {};
  const customDoc = doc.custom ?? {};
  if (!isJsonObject(customDoc)) throw new Refusal('invalid_body', 'custom: must map field names to columns');
  for (const [field, spec] of Object.entries(customDoc)) {
    if (typeof spec === 'string') custom[field] = { column: spec, type: 'string', optional: false };
    else if (isJsonObject(spec) && typeof spec.column === 'string') {
      const type = spec.type ?? 'string';
      if (type !== 'string' && type !== 'number' && type !== 'boolean') {
        throw new Refusal('invalid_body', `custom.${field}.type: must be string, number or boolean`);
      }
      custom[field] = { column: spec.column, type, optional: spec.optional === true };
    } else throw new Refusal('invalid_body', `custom.${field}: must be a column name or {column, type}`);
  }
  const mapping: Mapping = {
    name,
    id: column('id', true) as string,
    stage: column('stage', true) as string,
    won_stages: stages('won_stages'),
    lost_stages: stages('lost_stages'),
    custom,
    strict: true,
  };
  for (const key of ['amount', 'close_date', 'owner', 'currency', 'occurred_at'] as const) {
    const value = column(key, false);
    if (value !== undefined) mapping[key] = value;
  }
  if (doc.default_currency !== undefined) {
    if (typeof doc.default_currency !== 'string')
      throw new Refusal('invalid_body', 'default_currency: must be an ISO 4217 code');
    mapping.default_currency = doc.default_currency;
  }
  return mapping;
}

/** A row that cannot become an event: the reason names the column. */
export class RefusedRow extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RefusedRow';
  }
}

/**
 * The mapping read against an export's header: each mapped column's index. A required column that is missing
 * refuses the whole file (a Refusal `invalid_body`) rather than every row.
 */
export class RowMapper {
  private readonly mapping: Mapping;
  private readonly index: Map<string, number>;
  private readonly won: Set<string>;
  private readonly lost: Set<string>;

  constructor(mapping: Mapping, header: readonly string[]) {
    this.mapping = mapping;
    this.index = new Map(header.map((name, position) => [name.trim(), position]));
    const named = mapping.strict
      ? [mapping.amount, mapping.close_date, mapping.owner, mapping.currency, mapping.occurred_at]
      : [];
    const missing = [
      mapping.id,
      mapping.stage,
      ...named,
      ...Object.values(mapping.custom)
        .filter((custom) => !custom.optional)
        .map((custom) => custom.column),
    ].filter((name): name is string => name !== undefined && !this.index.has(name));
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

  /** The row's deal event (the body `POST /v1/deals/events` takes), with a dedup key derived from its content. */
  eventOf(fields: readonly string[]): JsonObject {
    const value = (column: string | undefined) => {
      if (column === undefined) return undefined;
      const position = this.index.get(column);
      const text = position === undefined ? undefined : fields[position]?.trim();
      return text === '' ? undefined : text;
    };
    const id = value(this.mapping.id);
    if (id === undefined) throw new RefusedRow(`${this.mapping.id}: is empty`);
    const state: JsonObject = {};
    const stage = value(this.mapping.stage);
    if (stage === undefined) throw new RefusedRow(`${this.mapping.stage}: is empty`);
    const folded = foldStage(stage);
    state.stage = this.won.has(folded) ? 'closed_won' : this.lost.has(folded) ? 'closed_lost' : stage;
    const amount = value(this.mapping.amount);
    if (amount !== undefined) state.amount_cents = centsOf(amount, this.mapping.amount as string);
    const closeDate = value(this.mapping.close_date);
    if (closeDate !== undefined) state.close_date = dateOf(closeDate, this.mapping.close_date as string);
    const owner = value(this.mapping.owner);
    if (owner !== undefined) state.owner_external_id = owner;
    const custom: JsonObject = {};
    for (const [field, spec] of Object.entries(this.mapping.custom)) {
      const text = value(spec.column);
      if (text !== undefined) custom[field] = typed(text, spec);
    }
    if (Object.keys(custom).length > 0) state.custom = custom;

    const event: JsonObject = { external_id: id, state };
    const currency = value(this.mapping.currency) ?? this.mapping.default_currency;
    if (currency !== undefined) event.currency = currency.toUpperCase();
    const occurredAt = value(this.mapping.occurred_at);
    if (occurredAt !== undefined) event.occurred_at = instantOf(occurredAt, this.mapping.occurred_at as string);
    event.dedup_key = dedupKeyOf(event);
    return event;
  }
}

/**
 * `import:<external_id>:<digest of the event>`: the same row imports to the same key, so a second run replays it
 * and writes nothing; a row the CRM changed since imports as a new event of the same deal. At most 255 characters.
 */
export function dedupKeyOf(event: JsonObject): string {
  const digest = createHash('sha256').update(canonicalJson(event)).digest('hex').slice(0, 32);
  return `import:${String(event.external_id).slice(0, 200)}:${digest}`;
}

function foldStage(stage: string): string {
  return stage.trim().toLowerCase();
}

/** "12,500.00", "$12500", "USD 12,500.5", "-300" → cents; a currency prefix or symbol is ignored. */
function centsOf(text: string, column: string): number {
  const cleaned = text.replace(/^[A-Za-z]{3}\s+/, '').replace(/[$€£¥,\s]/g, '');
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(cleaned);
  if (!match) throw new RefusedRow(`${column}: "${text}" is not an amount`);
  const cents = Number(match[2]) * 100 + Number((match[3] ?? '').padEnd(2, '0'));
  if (!Number.isSafeInteger(cents)) throw new RefusedRow(`${column}: "${text}" is too large`);
  return match[1] === '-' ? -cents : cents;
}

const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})/;

/** "2026-03-14", "2026-03-14 16:02", "3/14/2026", "3/14/2026 4:02 PM" → "2026-03-14". */
function dateOf(text: string, column: string): string {
  const iso = ISO_DATE.exec(text);
  if (iso) return checkedDate(Number(iso[1]), Number(iso[2]), Number(iso[3]), text, column);
  const us = US_DATE.exec(text);
  if (us) return checkedDate(Number(us[3]), Number(us[1]), Number(us[2]), text, column);
  throw new RefusedRow(`${column}: "${text}" is not a date (YYYY-MM-DD or M/D/YYYY)`);
}

function checkedDate(year: number, month: number, day: number, text: string, column: string): string {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    throw new RefusedRow(`${column}: "${text}" is not a calendar date`);
  }
  return date.toISOString().slice(0, 10);
}

/** An ISO 8601 time as is; "2026-03-14 16:02", "3/14/2026 4:02 PM" and bare dates taken as UTC. */
function instantOf(text: string, column: string): string {
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const parsed = Date.parse(text);
    if (Number.isNaN(parsed)) throw new RefusedRow(`${column}: "${text}" is not a time`);
    return new Date(parsed).toISOString();
  }
  const day = dateOf(text, column);
  const time = /(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?\s*$/.exec(text);
  let hours = Number(time?.[1] ?? 0);
  const meridiem = time?.[4]?.toLowerCase();
  if (meridiem === 'pm' && hours < 12) hours += 12;
  if (meridiem === 'am' && hours === 12) hours = 0;
  const clock = `${String(hours).padStart(2, '0')}:${time?.[2] ?? '00'}:${time?.[3] ?? '00'}`;
  const parsed = Date.parse(`${day}T${clock}Z`);
  if (Number.isNaN(parsed)) throw new RefusedRow(`${column}: "${text}" is not a time`);
  return new Date(parsed).toISOString();
}

function typed(text: string, spec: CustomColumn): JsonValue {
  switch (spec.type) {
    case 'string':
      return text;
    case 'number': {
      const number = Number(text.replace(/,/g, ''));
      if (!Number.isFinite(number)) throw new RefusedRow(`${spec.column}: "${text}" is not a number`);
      return number;
    }
    case 'boolean': {
      const folded = text.toLowerCase();
      if (['true', 'yes', '1'].includes(folded)) return true;
      if (['false', 'no', '0'].includes(folded)) return false;
      throw new RefusedRow(`${spec.column}: "${text}" is not true or false`);
    }
  }
}
