import { isKnownCurrency } from '../currencies.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../json.ts';
import { Refusal } from '../refusal.ts';
import type { Conventions } from './locale.ts';

// How a CRM's deal records become deal events: one record, one event (`POST /v1/deals/events`'s body). This is the
// one mapping model of Quotient, whatever carries the records: a CSV or XLSX export (rows.ts) or a CRM connector
// (records fetched by its API, their field names as the "header"). A mapping names, for each deal field, the
// record's field (a column of an export, a property of an API record) it comes from, and:
// - stages: a stage listed as won or lost becomes `closed_won` / `closed_lost`; where the records carry the CRM's
//   own won and closed flags (Salesforce's `IsWon` / `IsClosed`, a report's "Won" / "Closed", HubSpot's "Is Closed
//   Won"), those decide, for every pipeline; else any other stage is an open deal (and the import's report lists it);
// - owners: the owner field's value is the rep's external id (a rep is created on first sight);
// - currency: a currency field, else a currency the field names state ("Amount (EUR)") or the amount carries
//   ("EUR 1,200.00", "€1.200,00"), else `default_currency`, else the caller's (`--currency`, the org's default);
//   two that disagree refuse the record;
// - deleted: a record flagged deleted or archived (`IsDeleted`, "Archived") is never a live deal;
// - custom fields: further fields into `state.custom`, typed.
// Field names are matched without regard to case, spaces and underscores, and a currency suffix ("Amount (USD)").

export type CustomType = 'string' | 'number' | 'boolean';

export interface CustomColumn {
  /** The field's name, or the names it goes by (the first the records have is read). */
  column: string | string[];
  type: CustomType;
  /** A missing column is allowed: the field is left out (built-in mappings, for columns a portal may not have). */
  optional: boolean;
}

/** A deal field's source: a field name, or the names it goes by in the exports of one CRM. */
export type Source = string | string[];

/** The deal fields a built-in mapping needs: without them every deal would be missing what pays it. */
export type RequiredField = 'amount' | 'close_date' | 'owner';

export interface Mapping {
  name: string;
  /** The deal's id in the CRM: the event's `external_id`, and part of each row's dedup key. */
  id: Source;
  stage: Source;
  amount?: Source;
  close_date?: Source;
  owner?: Source;
  /** A field of ISO 4217 codes. */
  currency?: Source;
  default_currency?: string;
  /** When the CRM last changed the deal: the event's `occurred_at`, so an older export never overwrites a newer. */
  occurred_at?: Source;
  /** The CRM's "won" flag (true: closed won). */
  won?: Source;
  /** The CRM's "closed" flag (true and not won: closed lost). */
  closed?: Source;
  /** The CRM's "lost" flag (true: closed lost). */
  lost?: Source;
  /** The CRM's "deleted" / "archived" flag (true: the record is skipped, never a live deal). */
  deleted?: Source;
  won_stages: string[];
  lost_stages: string[];
  custom: Record<string, CustomColumn>;
  /**
   * Every named field must be in the records (a mapping file). A built-in mapping requires its id, stage and
   * `required` fields, and leaves out the others a file does not have (a portal without several currencies).
   */
  strict: boolean;
  required: RequiredField[];
  /** How the records write numbers and dates, when the CRM fixes it (a Salesforce Data Export: API values). */
  conventions?: Conventions;
}

const HUBSPOT: Mapping = {
  name: 'hubspot',
  id: 'Record ID',
  stage: 'Deal Stage',
  amount: 'Amount',
  close_date: 'Close Date',
  owner: 'Deal owner',
  currency: ['Currency', 'Deal Currency', 'Deal currency code'],
  occurred_at: 'Last Modified Date',
  won: 'Is Closed Won',
  closed: ['Is Deal Closed?', 'Is Closed'],
  lost: ['Is Closed Lost', 'Is closed lost'],
  deleted: ['Archived', 'Is Deleted'],
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
  required: ['amount', 'close_date', 'owner'],
};

const SALESFORCE: Mapping = {
  name: 'salesforce',
  id: 'Opportunity ID',
  stage: 'Stage',
  amount: 'Amount',
  close_date: 'Close Date',
  owner: 'Opportunity Owner',
  currency: ['Opportunity Currency', 'Amount Currency', 'Currency'],
  occurred_at: 'Last Modified Date',
  won: ['Won', 'Is Won', 'Is Closed Won'],
  closed: ['Closed', 'Is Closed'],
  deleted: ['Deleted', 'Is Deleted'],
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
  required: ['amount', 'close_date', 'owner'],
};

/** Salesforce's Data Export (Setup → Data Export, Opportunity.csv) and the API: fields by API name, API values. */
const SALESFORCE_API: Mapping = {
  name: 'salesforce-api',
  id: 'Id',
  stage: 'StageName',
  amount: 'Amount',
  close_date: 'CloseDate',
  owner: 'OwnerId',
  currency: 'CurrencyIsoCode',
  occurred_at: ['LastModifiedDate', 'SystemModstamp'],
  won: 'IsWon',
  closed: 'IsClosed',
  deleted: 'IsDeleted',
  won_stages: ['Closed Won'],
  lost_stages: ['Closed Lost'],
  custom: {
    opportunity_name: { column: 'Name', type: 'string', optional: true },
    account_id: { column: 'AccountId', type: 'string', optional: true },
    type: { column: 'Type', type: 'string', optional: true },
    lead_source: { column: 'LeadSource', type: 'string', optional: true },
  },
  strict: false,
  required: ['amount', 'close_date', 'owner'],
  conventions: { dateOrder: 'ymd', decimal: '.', source: "Salesforce's API values (a Data Export)" },
};

/**
 * HubSpot's CRM v3 objects API (a connector's deals, or an export of API values): properties by internal name. The
 * stages are pipeline-stage ids; a connector lists the portal's won and lost ones from its pipelines' metadata.
 */
const HUBSPOT_API: Mapping = {
  name: 'hubspot-api',
  id: 'hs_object_id',
  stage: 'dealstage',
  amount: 'amount',
  close_date: 'closedate',
  owner: 'hubspot_owner_id',
  currency: 'deal_currency_code',
  occurred_at: 'hs_lastmodifieddate',
  deleted: 'archived',
  won_stages: ['closedwon'],
  lost_stages: ['closedlost'],
  custom: {
    deal_name: { column: 'dealname', type: 'string', optional: true },
    pipeline: { column: 'pipeline', type: 'string', optional: true },
    deal_type: { column: 'dealtype', type: 'string', optional: true },
  },
  strict: false,
  required: [],
  conventions: { dateOrder: 'ymd', decimal: '.', source: "HubSpot's API values" },
};

export const BUILT_IN_MAPPINGS: Readonly<Record<string, Mapping>> = {
  hubspot: HUBSPOT,
  'hubspot-api': HUBSPOT_API,
  salesforce: SALESFORCE,
  'salesforce-api': SALESFORCE_API,
};

export const SOURCE_KEYS = [
  'amount',
  'close_date',
  'owner',
  'currency',
  'occurred_at',
  'won',
  'closed',
  'lost',
  'deleted',
] as const;

/** A mapping file's document (parsed YAML), checked. */
export function parseMapping(document: unknown, name: string): Mapping {
  if (!isJsonObject(document as JsonValue))
    throw new Refusal('invalid_body', 'the mapping file must be a YAML mapping');
  const doc = document as JsonObject;
  const known = new Set(['id', 'stage', ...SOURCE_KEYS, 'default_currency', 'won_stages', 'lost_stages', 'custom']);
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
    required: [],
  };
  for (const key of SOURCE_KEYS) {
    const value = column(key, false);
    if (value !== undefined) mapping[key] = value;
  }
  if (doc.default_currency !== undefined) {
    if (typeof doc.default_currency !== 'string' || !isKnownCurrency(doc.default_currency.toUpperCase()))
      throw new Refusal('invalid_body', 'default_currency: must be an ISO 4217 code');
    mapping.default_currency = doc.default_currency.toUpperCase();
  }
  return mapping;
}

/** A field name as matched: without case, spaces, underscores or a currency suffix ("Amount (USD)" is "amount"). */
export function fieldKey(name: string): string {
  return stripCurrencySuffix(name)
    .name.normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_]+/g, '');
}

export function stripCurrencySuffix(name: string): { name: string; currency?: string } {
  const match = /^(.*?)\s*[([]\s*([A-Za-z]{3})\s*[)\]]\s*$/.exec(name.trim());
  if (match && isKnownCurrency((match[2] as string).toUpperCase())) {
    return { name: match[1] as string, currency: (match[2] as string).toUpperCase() };
  }
  return { name: name.trim() };
}

export function names(source: Source): string[] {
  return typeof source === 'string' ? [source] : source;
}

/** The header's fields by key: the mapped ones must each be there once. */
export function headerIndex(header: readonly string[]): Map<string, number[]> {
  const index = new Map<string, number[]>();
  header.forEach((name, position) => {
    const key = fieldKey(name);
    if (key === '') return;
    index.set(key, [...(index.get(key) ?? []), position]);
  });
  return index;
}

/** True when the header has the mapping's id and stage fields. */
export function headerFits(mapping: Mapping, header: readonly string[]): boolean {
  const index = headerIndex(header);
  return [mapping.id, mapping.stage].every((source) => names(source).some((name) => index.has(fieldKey(name))));
}
