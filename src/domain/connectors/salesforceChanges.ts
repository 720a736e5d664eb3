import { isKnownCurrency, minorUnitExponent } from '../currencies.ts';
import { plainOfNumber } from '../imports/cellReaders.ts';
import { minorUnits } from '../imports/locale.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import type { OpportunityStage } from './salesforce.ts';

// Salesforce Change Data Capture as the Pub/Sub API publishes it (developer.salesforce.com/docs/platform/pub-sub-api,
// "Event Deserialization Considerations"; the Change Event Header of the CDC developer guide): an Avro record with a
// `ChangeEventHeader` and the entity's fields, its field lists (`changedFields`, `nulledFields`, `diffFields`) encoded
// as bitmaps over the schema's field positions, and how one change of an Opportunity becomes a deal event's patch.

/** The header of a change event, its field lists decoded to field names. */
export interface ChangeHeader {
  entityName: string;
  recordIds: string[];
  changeType: string;
  transactionKey: string;
  sequenceNumber: number;
  /** When the change was committed, in ms since the epoch. */
  commitTimestamp: number;
  changedFields: string[];
  nulledFields: string[];
}

/** An Avro record schema as `GetSchema` serves it, as far as the bitmaps need: its fields in order. */
export interface RecordSchema {
  type: string;
  fields: Array<{ name: string; type: unknown }>;
}

/** The field names a bitmap's set bits name: bit i (least significant first) is the schema's i-th field. */
function namesOfBitmap(hex: string, fields: ReadonlyArray<{ name: string }>): string[] {
  let bits = BigInt(hex.startsWith('0x') ? hex : `0x${hex}`);
  const names: string[] = [];
  for (let index = 0; bits > 0n; index++, bits >>= 1n) {
    if ((bits & 1n) === 1n) {
      const field = fields[index];
      if (field) names.push(field.name);
    }
  }
  return names;
}

/** A union `[null, record]` (or a record itself): the record, where the field is a compound one. */
function compoundOf(type: unknown): RecordSchema | null {
  const candidates = Array.isArray(type) ? type : [type];
  const found = candidates.find(
    (candidate): candidate is RecordSchema =>
      typeof candidate === 'object' && candidate !== null && (candidate as RecordSchema).type === 'record',
  );
  return found ?? null;
}

/**
 * A field list of the header as names. Each entry is a bitmap: `0x…` over the top-level fields, or
 * `<position>-0x…` over the nested fields of the compound field at that position (named `Parent.Child`). Entries that
 * are plain names already (as some orgs' field lists are) are kept as they are.
 */
export function decodeFieldList(entries: readonly string[], schema: RecordSchema): string[] {
  const names: string[] = [];
  for (const entry of entries) {
    const nested = /^(\d+)-(0x[0-9a-fA-F]+)$/.exec(entry);
    if (/^0x[0-9a-fA-F]+$/.test(entry)) names.push(...namesOfBitmap(entry, schema.fields));
    else if (nested) {
      const parent = schema.fields[Number(nested[1])];
      const compound = parent ? compoundOf(parent.type) : null;
      if (parent && compound) {
        names.push(...namesOfBitmap(nested[2] as string, compound.fields).map((name) => `${parent.name}.${name}`));
      }
    } else names.push(entry);
  }
  return names;
}

/** A decoded event's header, its field lists named by the schema. */
export function headerOf(payload: Record<string, unknown>, schema: RecordSchema): ChangeHeader {
  const raw = (payload.ChangeEventHeader ?? {}) as Record<string, unknown>;
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
  return {
    entityName: String(raw.entityName ?? ''),
    recordIds: list(raw.recordIds),
    changeType: String(raw.changeType ?? ''),
    transactionKey: String(raw.transactionKey ?? ''),
    sequenceNumber: Number(raw.sequenceNumber ?? 0),
    commitTimestamp: Number(raw.commitTimestamp ?? 0),
    changedFields: decodeFieldList(list(raw.changedFields), schema),
    nulledFields: decodeFieldList(list(raw.nulledFields), schema),
  };
}

/** A change that names records without their values: read them again (GAP_* events, and GAP_OVERFLOW). */
export function isGap(changeType: string): boolean {
  return changeType.startsWith('GAP_');
}

/** The dedup key of one record's change: its transaction and its place in it, so a replay changes nothing twice. */
export function changeKey(sfOrgId: string, recordId: string, header: ChangeHeader): string {
  return `salesforce:${sfOrgId}:${recordId}:cdc:${header.transactionKey}:${header.sequenceNumber}`;
}

/** A change that cannot become a deal event, and why (the field named as the deal event names it). */
export class RefusedChange extends Error {}

/** What reading a change needs of the org: its stages, its users as reps, the deal's and the org's currency. */
export interface ChangeContext {
  sfOrgId: string;
  stages: readonly OpportunityStage[];
  /** The rep a Salesforce user is, or null where the user is not one of the org's users the connection reads. */
  repOfUser: (userId: string) => string | null;
  /** The currency of the amounts the change does not state one for: the deal's, else the org's. */
  currency: string;
  /** Custom fields: deal field → Opportunity field. */
  custom: Readonly<Record<string, string>>;
}

function dayOf(value: unknown): string {
  const number = Number(value);
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  if (!Number.isFinite(number)) throw new RefusedChange(`close_date: ${JSON.stringify(value)} is not a date`);
  // Date fields are days since the epoch; a datetime's milliseconds are taken as its UTC day.
  const ms = Math.abs(number) < 1e7 ? number * 86_400_000 : number;
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * One record's CREATE, UPDATE or UNDELETE as a deal event: a patch of the fields the change carries (a creation, all
 * its non-null fields; an update, its `changedFields`, with its `nulledFields` cleared), in force at its
 * `commitTimestamp` (an older change is stale and never overwrites a newer one), with the change's dedup key.
 */
export function changeEvent(
  context: ChangeContext,
  recordId: string,
  header: ChangeHeader,
  payload: Record<string, unknown>,
): JsonObject {
  const whole = header.changeType === 'CREATE' || header.changeType === 'UNDELETE';
  const nulled = new Set(header.nulledFields);
  const named = whole
    ? Object.keys(payload).filter((name) => payload[name] !== null && payload[name] !== undefined)
    : [...header.changedFields, ...header.nulledFields];
  const fields = new Map<string, unknown>();
  for (const name of named) {
    if (name === 'ChangeEventHeader') continue;
    fields.set(name, nulled.has(name) ? null : payload[name]);
  }
  const state: JsonObject = {};
  const event: JsonObject = { external_id: recordId, state };
  if (fields.has('StageName')) {
    const name = fields.get('StageName');
    const stage = context.stages.find((found) => found.ApiName === name);
    if (!stage) throw new RefusedChange(`stage: "${String(name)}" is not a stage of the org's OpportunityStage`);
    state.stage = stage.IsWon ? 'closed_won' : stage.IsClosed ? 'closed_lost' : stage.ApiName;
  } else if (whole) throw new RefusedChange('stage: is empty');
  let currency = context.currency;
  if (fields.has('CurrencyIsoCode') && fields.get('CurrencyIsoCode') !== null) {
    const code = String(fields.get('CurrencyIsoCode')).toUpperCase();
    if (!isKnownCurrency(code)) throw new RefusedChange(`currency: "${code}" is not an ISO 4217 currency code`);
    currency = code;
    event.currency = code;
  } else if (whole) event.currency = currency;
  if (fields.has('Amount')) {
    const amount = fields.get('Amount');
    if (amount === null) state.amount_cents = null;
    else if (typeof amount !== 'number' || !Number.isFinite(amount)) {
      throw new RefusedChange(`amount: ${JSON.stringify(amount)} is not a number`);
    } else {
      try {
        state.amount_cents = minorUnits(plainOfNumber(amount), minorUnitExponent(currency), String(amount));
      } catch (error) {
        throw new RefusedChange(`amount: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  if (fields.has('CloseDate')) {
    const close = fields.get('CloseDate');
    state.close_date = close === null ? null : dayOf(close);
  }
  if (fields.has('OwnerId')) {
    const owner = fields.get('OwnerId');
    if (owner === null) state.owner_external_id = null;
    else {
      const rep = context.repOfUser(String(owner));
      if (rep === null) throw new RefusedChange(`owner: user ${String(owner)} is not a user of the Salesforce org`);
      state.owner_external_id = rep;
    }
  }
  const custom: JsonObject = {};
  for (const [field, source] of Object.entries(context.custom)) {
    if (fields.has(source)) custom[field] = (fields.get(source) ?? null) as JsonValue;
  }
  if (Object.keys(custom).length > 0) state.custom = custom;
  event.occurred_at = new Date(header.commitTimestamp).toISOString();
  event.dedup_key = changeKey(context.sfOrgId, recordId, header);
  return event;
}
