import { currencyProblem } from '../currencies.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../json.ts';
import { Refusal } from '../refusal.ts';

// A deal event as POST /v1/deals/events receives it, validated and split into what it says about each
// field. The contract validator checks the shape first; these checks repeat the typed rules (so the domain
// never trusts its caller) and add what a JSON Schema cannot say: custom-field merging and conflicts,
// reserved names, and strings PostgreSQL cannot store.

export const STANDARD_FIELDS = ['amount_cents', 'stage', 'close_date', 'owner_external_id'] as const;
export type StandardField = (typeof STANDARD_FIELDS)[number];

export const EVENT_TYPES = ['upsert', 'stage_change', 'amount_change', 'delete'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Names that would reach Object.prototype in careless consumers (plan rules, SDKs), refused everywhere. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The largest deal amount: one trillion in currency units. Every amount the engine derives from one deal (at
 * most rate_bps 100000, 1000% of it) stays exact in a JSON number; sums over many deals are exact bigints.
 */
export const MAX_AMOUNT_CENTS = 100_000_000_000_000;
export const MAX_TEXT_LENGTH = 255;
/** Custom values may nest objects and arrays this deep; deeper is refused rather than recursed into. */
export const MAX_CUSTOM_DEPTH = 32;

const EVENT_MEMBERS: ReadonlySet<string> = new Set([
  'external_id',
  'state',
  'splits',
  'currency',
  'event_type',
  'dedup_key',
  'occurred_at',
]);
/** A deal's shares are basis points of the whole: they must add up to exactly this. */
export const WHOLE_SHARE_BPS = 10_000;
export const MAX_SPLITS = 20;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * What one event says about the deal's state. A standard member that is absent leaves the projection's value
 * unchanged; `null` clears it. Likewise for each custom field: absent = unchanged, `null` = removed.
 */
export interface StatePatch {
  standard: {
    amount_cents?: number | null;
    stage?: string | null;
    close_date?: string | null;
    owner_external_id?: string | null;
  };
  custom: JsonObject;
}

/** One credited rep's share of a deal, in basis points of the whole. */
export interface DealSplit {
  owner_external_id: string;
  share_bps: number;
}

export interface DealEvent {
  externalId: string;
  patch: StatePatch;
  /** Absent: the deal keeps its splits; `null`: the owner is credited alone; a list: replaces the deal's. */
  splits: DealSplit[] | null | undefined;
  /** ISO 4217; absent: the deal keeps its currency (a new deal takes the org's default). */
  currency: string | undefined;
  eventType: EventType;
  /** Absent when the caller sent none; the service then generates one. */
  dedupKey: string | undefined;
  occurredAt: Date | undefined;
}

/** A body that is JSON but not a valid deal event: `invalid_body`, its reason starting with the field's path. */
function invalidDealEvent(field: string, problem: string): Refusal {
  return new Refusal('invalid_body', `${field}: ${problem}`);
}

export function parseDealEvent(body: unknown): DealEvent {
  if (!isJsonObject(body)) throw invalidDealEvent('body', 'must be object');
  for (const name of Object.keys(body)) {
    if (!EVENT_MEMBERS.has(name)) throw invalidDealEvent(name, 'is not a member of a deal event');
  }
  const externalId = requiredText(body.external_id, 'external_id');
  if (body.state === undefined) throw invalidDealEvent('state', 'is required');
  if (!isJsonObject(body.state)) throw invalidDealEvent('state', 'must be object');
  return {
    externalId,
    patch: parseState(body.state),
    splits: body.splits === undefined ? undefined : parseSplits(body.splits),
    currency: body.currency === undefined ? undefined : parseCurrency(body.currency),
    eventType: parseEventType(body.event_type),
    dedupKey: body.dedup_key === undefined ? undefined : requiredText(body.dedup_key, 'dedup_key'),
    occurredAt: body.occurred_at === undefined ? undefined : parseDateTime(body.occurred_at, 'occurred_at'),
  };
}

function parseCurrency(value: JsonValue): string {
  const problem = currencyProblem(value);
  if (problem) throw invalidDealEvent('currency', problem);
  return value as string;
}

function parseState(state: JsonObject): StatePatch {
  const standard: StatePatch['standard'] = {};
  const custom: JsonObject = {};
  const explicit = state.custom;
  if (explicit !== undefined && !isJsonObject(explicit)) throw invalidDealEvent('state.custom', 'must be object');

  for (const name of Object.keys(state)) {
    const path = `state.${name}`;
    checkName(name, path);
    const value = state[name] as JsonValue;
    switch (name) {
      case 'custom':
        break;
      case 'amount_cents':
        standard.amount_cents = value === null ? null : amount(value, path);
        break;
      case 'stage':
        standard.stage = value === null ? null : label(value, path);
        break;
      case 'owner_external_id':
        standard.owner_external_id = value === null ? null : label(value, path);
        break;
      case 'close_date':
        standard.close_date = value === null ? null : calendarDate(value, path);
        break;
      default:
        checkCustomValue(value, path, 1);
        custom[name] = value;
    }
  }
  if (explicit) {
    for (const name of Object.keys(explicit)) {
      const path = `state.custom.${name}`;
      checkName(name, path);
      if (Object.hasOwn(custom, name)) throw invalidDealEvent(path, 'given both in state and in state.custom');
      const value = explicit[name] as JsonValue;
      checkCustomValue(value, path, 1);
      custom[name] = value;
    }
  }
  return { standard, custom };
}

/** Each rep once, shares from 1 bp, summing to the whole: a split that credits 100% of the deal, no more, no less. */
function parseSplits(value: JsonValue): DealSplit[] | null {
  if (value === null) return null;
  if (!Array.isArray(value)) throw invalidDealEvent('splits', 'must be array or null');
  if (value.length === 0) throw invalidDealEvent('splits', 'must NOT have fewer than 1 items');
  if (value.length > MAX_SPLITS) throw invalidDealEvent('splits', `must NOT have more than ${MAX_SPLITS} items`);
  const owners = new Set<string>();
  const splits = value.map((entry, index): DealSplit => {
    const path = `splits[${index}]`;
    if (!isJsonObject(entry)) throw invalidDealEvent(path, 'must be object');
    for (const name of Object.keys(entry)) {
      if (name !== 'owner_external_id' && name !== 'share_bps') {
        throw invalidDealEvent(`${path}.${name}`, 'is not a member of a split');
      }
    }
    const owner = label(entry.owner_external_id as JsonValue, `${path}.owner_external_id`);
    if (owners.has(owner)) throw invalidDealEvent(`${path}.owner_external_id`, `names ${owner} a second time`);
    owners.add(owner);
    const share = entry.share_bps;
    if (share === undefined) throw invalidDealEvent(`${path}.share_bps`, 'is required');
    if (typeof share !== 'number' || !Number.isInteger(share) || share < 1 || share > WHOLE_SHARE_BPS) {
      throw invalidDealEvent(`${path}.share_bps`, `must be an integer from 1 to ${WHOLE_SHARE_BPS}`);
    }
    return { owner_external_id: owner, share_bps: share };
  });
  const total = splits.reduce((sum, split) => sum + split.share_bps, 0);
  if (total !== WHOLE_SHARE_BPS) {
    throw invalidDealEvent('splits', `the shares must sum to ${WHOLE_SHARE_BPS} basis points, not ${total}`);
  }
  return splits;
}

function checkName(name: string, path: string): void {
  if (RESERVED_NAMES.has(name)) throw invalidDealEvent(path, 'reserved name');
  if (!isStorableText(name)) throw invalidDealEvent(path, 'the name must be well-formed Unicode without \\u0000');
}

/** Walks a custom value (bounded depth) for reserved names and strings PostgreSQL cannot store. */
function checkCustomValue(value: JsonValue, path: string, depth: number): void {
  if (typeof value === 'string') {
    if (!isStorableText(value)) throw invalidDealEvent(path, 'must be well-formed Unicode without \\u0000');
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth > MAX_CUSTOM_DEPTH) throw invalidDealEvent(path, `nests deeper than ${MAX_CUSTOM_DEPTH} levels`);
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      checkCustomValue(item, `${path}[${index}]`, depth + 1);
    });
    return;
  }
  for (const name of Object.keys(value)) {
    const child = `${path}.${name}`;
    checkName(name, child);
    checkCustomValue(value[name] as JsonValue, child, depth + 1);
  }
}

function amount(value: JsonValue, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidDealEvent(path, 'must be integer');
  if (value < 0 || value > MAX_AMOUNT_CENTS) {
    throw invalidDealEvent(path, `must be a whole number of cents from 0 to ${MAX_AMOUNT_CENTS}`);
  }
  return value;
}

/** A stage or an owner id: a non-blank string of at most 255 characters. */
function label(value: JsonValue, path: string): string {
  const text = requiredText(value, path);
  if (text.trim() === '') throw invalidDealEvent(path, 'must not be blank');
  return text;
}

function requiredText(value: JsonValue | undefined, path: string): string {
  if (value === undefined) throw invalidDealEvent(path, 'is required');
  if (typeof value !== 'string') throw invalidDealEvent(path, 'must be string');
  if (value.length === 0) throw invalidDealEvent(path, 'must NOT have fewer than 1 characters');
  if (value.length > MAX_TEXT_LENGTH) {
    throw invalidDealEvent(path, `must NOT have more than ${MAX_TEXT_LENGTH} characters`);
  }
  if (!isStorableText(value)) throw invalidDealEvent(path, 'must be well-formed Unicode without \\u0000');
  return value;
}

/** `YYYY-MM-DD` naming a day that exists (no 2026-02-30), years 1 to 9999. */
function calendarDate(value: JsonValue, path: string): string {
  const match = typeof value === 'string' ? DATE_PATTERN.exec(value) : null;
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  if (!match || year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw invalidDealEvent(path, 'must be a calendar date YYYY-MM-DD');
  }
  return value as string;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function parseDateTime(value: JsonValue, path: string): Date {
  const parsed = typeof value === 'string' && DATE_TIME_PATTERN.test(value) ? new Date(value) : undefined;
  if (!parsed || Number.isNaN(parsed.getTime())) {
    throw invalidDealEvent(path, 'must be an RFC 3339 date-time with a time zone');
  }
  return parsed;
}

function parseEventType(value: JsonValue | undefined): EventType {
  if (value === undefined) return 'upsert';
  if (typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value)) return value as EventType;
  throw invalidDealEvent('event_type', `must be one of ${EVENT_TYPES.join(', ')}`);
}

/** PostgreSQL text and jsonb refuse U+0000 and lone surrogates; refuse them here with a reason instead. */
function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}
