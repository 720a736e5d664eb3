import { type JsonObject, type JsonValue, jsonEquals } from '../json.ts';
import type { DealEvent, DealSplit, StatePatch } from './event.ts';

// How one event moves a deal's projection: merge the state, derive the status, and describe the difference as a
// domain event. Pure; the ingestion service applies the result inside the event's transaction.

export type DealStatus = 'open' | 'won' | 'lost' | 'deleted';

export type DomainEventType =
  | 'deal.created'
  | 'deal.deleted'
  | 'deal.restored'
  | 'deal.closed_won'
  | 'deal.closed_lost'
  | 'deal.stage_changed'
  | 'deal.amount_changed'
  | 'deal.updated'
  /** A payment of the customer's recorded against the deal, or voided (POST and DELETE /v1/payments). */
  | 'deal.payment_recorded'
  | 'deal.payment_voided';

export interface DealState {
  amount_cents: number | null;
  stage: string | null;
  /** `YYYY-MM-DD`. */
  close_date: string | null;
  owner_external_id: string | null;
  custom: JsonObject;
}

/** What the transition needs to know about the deal as it stands. */
export interface CurrentDeal {
  state: DealState;
  status: DealStatus;
  /** The latest `occurred_at` applied; null when no applied event carried one. */
  lastOccurredAt: Date | null;
  /** Split credit; null (or absent) when the owner is credited with the whole deal. */
  splits?: readonly DealSplit[] | null;
  /** ISO 4217; absent for a caller that does not track currencies (the default then applies). */
  currency?: string;
}

/** The org's stage lists, as stored (they are normalised when compared). */
export interface StageLists {
  won: readonly string[];
  lost: readonly string[];
}

export interface FieldChange {
  /** `amount_cents`, `stage`, `close_date`, `owner_external_id`, `custom.<name>`, `splits`, `currency` or `status`. */
  field: string;
  old: JsonValue;
  new: JsonValue;
}

export type Transition =
  | {
      stale: false;
      type: DomainEventType;
      changes: FieldChange[];
      state: DealState;
      status: DealStatus;
      /** The deal's splits after this event: the event's when it named them, else the deal's. */
      splits: DealSplit[] | null;
      /** The deal's currency after this event: the event's, else the deal's, else (a new deal) the default. */
      currency: string;
      /** The status became `won` with this event (the moment `won_at` records). */
      becameWon: boolean;
      /** The latest `occurred_at` after this event. */
      lastOccurredAt: Date | null;
    }
  | {
      /** Older than an event already applied: recorded, but the projection stays as it is. */
      stale: true;
      type: 'deal.updated';
      changes: [];
    };

export const EMPTY_STATE: DealState = {
  amount_cents: null,
  stage: null,
  close_date: null,
  owner_external_id: null,
  custom: {},
};

/** The deal after `event`; `current` is null for the deal's first event. */
export function applyEvent(
  current: CurrentDeal | null,
  event: DealEvent,
  stages: StageLists,
  defaultCurrency = 'USD',
): Transition {
  const occurredAt = event.occurredAt ?? null;
  if (current?.lastOccurredAt && occurredAt && occurredAt.getTime() < current.lastOccurredAt.getTime()) {
    return { stale: true, type: 'deal.updated', changes: [] };
  }
  const before = current?.state ?? EMPTY_STATE;
  const state = mergeState(before, event.patch);
  const status = deriveStatus(state.stage, event.eventType === 'delete', stages);
  const splitsBefore = current?.splits ?? null;
  const splits = event.splits === undefined ? splitsBefore && [...splitsBefore] : event.splits;
  const currencyBefore = current?.currency ?? defaultCurrency;
  const currency = event.currency ?? currencyBefore;
  const changes = diff(before, current?.status ?? null, state, status, { before: splitsBefore, after: splits });
  if (current !== null && currency !== currencyBefore) {
    const at = changes.findIndex((change) => change.field === 'status');
    changes.splice(at === -1 ? changes.length : at, 0, { field: 'currency', old: currencyBefore, new: currency });
  }
  return {
    stale: false,
    type: classify(current?.status ?? null, status, event, changes),
    changes,
    state,
    status,
    splits,
    currency,
    becameWon: status === 'won' && current?.status !== 'won',
    lastOccurredAt: latest(current?.lastOccurredAt ?? null, occurredAt),
  };
}

/** Omitted members keep their value, `null` clears a standard member or removes a custom field. */
export function mergeState(state: DealState, patch: StatePatch): DealState {
  const custom: JsonObject = { ...state.custom };
  for (const [name, value] of Object.entries(patch.custom)) {
    if (value === null) delete custom[name];
    else custom[name] = value;
  }
  const { standard } = patch;
  return {
    amount_cents: standard.amount_cents === undefined ? state.amount_cents : standard.amount_cents,
    stage: standard.stage === undefined ? state.stage : standard.stage,
    close_date: standard.close_date === undefined ? state.close_date : standard.close_date,
    owner_external_id: standard.owner_external_id === undefined ? state.owner_external_id : standard.owner_external_id,
    custom,
  };
}

/** Won and lost stages match trimmed and case-folded; `deleted` wins over both. */
export function deriveStatus(stage: string | null, deleted: boolean, stages: StageLists): DealStatus {
  if (deleted) return 'deleted';
  if (stage === null) return 'open';
  const key = foldStage(stage);
  if (stages.won.some((won) => foldStage(won) === key)) return 'won';
  if (stages.lost.some((lost) => foldStage(lost) === key)) return 'lost';
  return 'open';
}

function foldStage(stage: string): string {
  return stage.trim().normalize('NFKC').toLowerCase();
}

/**
 * Every field whose value differs, in a stable order: standard members, custom fields by name, splits,
 * status.
 */
export function diff(
  before: DealState,
  statusBefore: DealStatus | null,
  after: DealState,
  statusAfter: DealStatus,
  splits: { before: readonly DealSplit[] | null; after: readonly DealSplit[] | null } = { before: null, after: null },
): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of ['amount_cents', 'stage', 'close_date', 'owner_external_id'] as const) {
    if (before[field] !== after[field]) changes.push({ field, old: before[field], new: after[field] });
  }
  const names = [...new Set([...Object.keys(before.custom), ...Object.keys(after.custom)])].sort();
  for (const name of names) {
    const old = before.custom[name];
    const next = after.custom[name];
    if (!jsonEquals(old, next)) changes.push({ field: `custom.${name}`, old: old ?? null, new: next ?? null });
  }
  const splitsOld = splitsAsJson(splits.before);
  const splitsNew = splitsAsJson(splits.after);
  if (!jsonEquals(splitsOld, splitsNew)) changes.push({ field: 'splits', old: splitsOld, new: splitsNew });
  if (statusBefore !== statusAfter) changes.push({ field: 'status', old: statusBefore, new: statusAfter });
  return changes;
}

/**
 * The one domain event type of a transition, by precedence: created > deleted > restored > closed_won /
 * closed_lost > stage_changed > amount_changed > updated (anything else, including no change at all).
 */
export function classify(
  statusBefore: DealStatus | null,
  statusAfter: DealStatus,
  event: DealEvent,
  changes: readonly FieldChange[],
): DomainEventType {
  if (statusBefore === null) return 'deal.created';
  if (event.eventType === 'delete') return 'deal.deleted';
  if (statusBefore === 'deleted') return 'deal.restored';
  if (statusAfter !== statusBefore && statusAfter === 'won') return 'deal.closed_won';
  if (statusAfter !== statusBefore && statusAfter === 'lost') return 'deal.closed_lost';
  if (changes.some((change) => change.field === 'stage')) return 'deal.stage_changed';
  if (changes.some((change) => change.field === 'amount_cents')) return 'deal.amount_changed';
  return 'deal.updated';
}

function splitsAsJson(splits: readonly DealSplit[] | null): JsonValue {
  return splits === null ? null : splits.map(({ owner_external_id, share_bps }) => ({ owner_external_id, share_bps }));
}

function latest(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return b.getTime() > a.getTime() ? b : a;
}
