import type { DealSplit } from '../domain/deals/event.ts';
import type { DealListFilters } from '../domain/deals/feed.ts';
import type { DealState, DealStatus, DomainEventType, FieldChange } from '../domain/deals/projection.ts';
import type { JsonObject } from '../domain/json.ts';
import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import type { AuditEntryInput } from './audit.ts';
import { auditEntryCte, auditEntryValues } from './audit.ts';
import type { DomainEventRecord } from './domainEvents.ts';
import { named, statementParameters, type Transaction } from './transaction.ts';

/** A payment of the customer's as the deal keeps it for the earnings engine (`deals.payments`, POST /v1/payments). */
export interface StoredPayment {
  id: string;
  external_id: string;
  amount_cents: number;
  received_on: string;
  /** Voided (DELETE /v1/payments/{id}): it counts as nothing, and keeps its period's release line. */
  voided?: true;
}

/** A credited rep of a split deal, with the rep's internal user id (stored for finding a rep's split deals). */
export interface StoredSplit extends DealSplit {
  user_id: string;
}

/** The deal projection as stored, in domain terms (amounts as numbers, dates as `YYYY-MM-DD`). */
export interface DealRecord {
  id: string;
  org_id: string;
  external_id: string;
  state: DealState;
  /** Split credit in the caller's order; null when the owner is credited with the whole deal. */
  splits: StoredSplit[] | null;
  /** ISO 4217: the currency of the deal's amounts. */
  currency: string;
  /** The payments recorded against the deal, oldest first (voided ones marked); null when it has none. */
  payments: StoredPayment[] | null;
  status: DealStatus;
  user_id: string | null;
  /** 0 only inside the transaction that creates the deal, before its first event is applied. */
  version: number;
  last_domain_event_id: string | null;
  last_occurred_at: Date | null;
  won_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AppliedEvent {
  domainEventId: string;
  sourceEventId: string;
  type: DomainEventType;
  eventTypeHint: string;
  changes: FieldChange[];
  occurredAt: Date | null;
  state: DealState;
  splits: StoredSplit[] | null;
  currency: string;
  status: DealStatus;
  userId: string | null;
  lastOccurredAt: Date | null;
  becameWon: boolean;
}

/** A `deals` row as the pool's type parsers return it (bigint as number, date as `YYYY-MM-DD`). */
export interface DealRow {
  id: string;
  org_id: string;
  external_id: string;
  amount_cents: number | null;
  stage: string | null;
  close_date: string | null;
  owner_external_id: string | null;
  custom: JsonObject;
  splits: StoredSplit[] | null;
  payments: StoredPayment[] | null;
  currency: string;
  status: string;
  user_id: string | null;
  version: number;
  last_domain_event_id: string | null;
  last_occurred_at: Date | null;
  won_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const DEAL_COLUMNS =
  'id, org_id, external_id, amount_cents, stage, close_date, owner_external_id, custom, splits, payments, currency, status, user_id, ' +
  'version, last_domain_event_id, last_occurred_at, won_at, created_at, updated_at';

export function toDealRecord(row: DealRow): DealRecord {
  return {
    id: row.id,
    org_id: row.org_id,
    external_id: row.external_id,
    state: {
      amount_cents: row.amount_cents,
      stage: row.stage,
      close_date: row.close_date,
      owner_external_id: row.owner_external_id,
      custom: row.custom,
    },
    splits: row.splits,
    payments: row.payments ?? null,
    currency: row.currency,
    status: row.status as DealStatus,
    user_id: row.user_id,
    version: row.version,
    last_domain_event_id: row.last_domain_event_id,
    last_occurred_at: row.last_occurred_at,
    won_at: row.won_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

// FOR NO KEY UPDATE, like the UPDATE that follows: events of one deal still queue here, while the earnings rows
// that other transactions write for the deal (their foreign key takes FOR KEY SHARE) do not wait for it, which
// would deadlock with the rep's evaluation lock this transaction takes next.
const LOCK_DEAL = `SELECT ${DEAL_COLUMNS} FROM deals WHERE org_id = $1 AND external_id = $2 FOR NO KEY UPDATE`;

// The clock is statement_timestamp(), not clock_timestamp(): Citus refuses a volatile function in a write to a
// distributed table, and evaluates a stable one once, on the coordinator, before it sends the write to the shard.
const APPLY_EVENT = `
  WITH clock AS (
    -- The statement's start, truncated, not rounded, to the column's milliseconds: updated_at is never later than
    -- the clock reading. The statement starts after the transaction's earlier ones have ended (its feed writer
    -- slot, the deal's lock), as the wall-clock reading it replaces did (see the comment above).
    SELECT date_trunc('milliseconds', statement_timestamp()) AS at
  ), recorded AS (
    INSERT INTO domain_events
      (id, org_id, source_event_id, deal_id, type, event_type_hint, changes, stale, occurred_at, created_at)
    SELECT $1, $2, $3, $4, $5, $6, $7::jsonb, false, $8::timestamptz, clock.at FROM clock
    RETURNING created_at
  ), ${auditEntryCte(20)}
  UPDATE deals d SET
    amount_cents = $9::bigint,
    stage = $10::text,
    close_date = $11::date,
    owner_external_id = $12::text,
    custom = $13::jsonb,
    splits = $18::jsonb,
    currency = $19::text,
    status = $14::text,
    user_id = $15::text,
    version = d.version + 1,
    last_domain_event_id = $1,
    last_occurred_at = $16::timestamptz,
    won_at = CASE WHEN $14::text <> 'won' THEN NULL WHEN $17::boolean THEN COALESCE($8::timestamptz, clock.at) ELSE d.won_at END,
    created_at = CASE WHEN d.version = 0 THEN clock.at ELSE d.created_at END,
    updated_at = clock.at
  FROM clock
  WHERE d.org_id = $2 AND d.id = $4
  RETURNING ${DEAL_COLUMNS}, (SELECT created_at FROM recorded) AS event_created_at`;

/**
 * Locks an existing deal for the rest of the transaction and returns its latest committed state. Used when
 * the deal was created by a transaction that committed after this one's statement snapshot was taken.
 */
export async function lockByExternalId(tx: Transaction, orgId: string, externalId: string): Promise<DealRecord | null> {
  const rows = await tx.query<DealRow>(named('deals_lock', { text: LOCK_DEAL, values: [orgId, externalId] }));
  return rows[0] ? toDealRecord(rows[0]) : null;
}

/**
 * Records the domain event and applies it to the locked deal in one round trip: version + 1, `updated_at`
 * from statement_timestamp() (after the transaction took its feed writer slot, see feedWriters.joinFeedWriters), `won_at` set
 * when the deal becomes won (to the event's `occurred_at` when it carries one: a CRM
 * backfilling last quarter's deals means last quarter) and cleared when it is no longer won, `created_at`
 * set by the first event. The domain event gets the same time, taken under the deal's lock, so a deal's
 * domain events ordered by `created_at` are in the order they were applied. The request's audit entry, when
 * given, is written by the same statement (auditEntryCte).
 */
export async function applyEvent(
  tx: Transaction,
  orgId: string,
  dealId: string,
  event: AppliedEvent,
  audit: AuditEntryInput | null = null,
): Promise<{ deal: DealRecord; domainEvent: DomainEventRecord }> {
  const { state } = event;
  const rows = await tx.query<DealRow & { event_created_at: Date }>(
    named('deals_apply_event', {
      text: APPLY_EVENT,
      values: [
        event.domainEventId,
        orgId,
        event.sourceEventId,
        dealId,
        event.type,
        event.eventTypeHint,
        JSON.stringify(event.changes),
        event.occurredAt,
        state.amount_cents,
        state.stage,
        state.close_date,
        state.owner_external_id,
        JSON.stringify(state.custom),
        event.status,
        event.userId,
        event.lastOccurredAt,
        event.becameWon,
        event.splits === null ? null : JSON.stringify(event.splits),
        event.currency,
        ...auditEntryValues(orgId, audit),
      ],
    }),
  );
  const row = rows[0];
  if (!row) throw new Error(`deal ${dealId} of org ${orgId} is not locked by this transaction`);
  return {
    deal: toDealRecord(row),
    domainEvent: {
      id: event.domainEventId,
      org_id: orgId,
      source_event_id: event.sourceEventId,
      deal_id: dealId,
      type: event.type,
      event_type_hint: event.eventTypeHint,
      changes: event.changes,
      stale: false,
      occurred_at: event.occurredAt,
      created_at: row.event_created_at,
    },
  };
}

/**
 * Up to `limit` deals after `position` in (updated_at, id) order, with every filter applied. The text names
 * only the filters given, so that even a generic plan picks the index that fits: (org_id, external_id),
 * (org_id, status, updated_at, id) or (org_id, updated_at, id).
 */
export async function listAfter(
  tx: Transaction,
  orgId: string,
  filters: DealListFilters,
  position: KeysetPosition,
  limit: number,
  visibleUserIds: readonly string[] | null = null,
): Promise<DealRecord[]> {
  const { values, param } = statementParameters();
  const where = [`org_id = ${param(orgId)}`];
  if (visibleUserIds !== null) where.push(visibleTo(param(visibleUserIds)));
  if (filters.status) where.push(`status = ${param(filters.status)}`);
  else if (!filters.includeDeleted) where.push(`status <> 'deleted'`);
  if (filters.stage !== undefined) where.push(`stage = ${param(filters.stage)}`);
  if (filters.ownerExternalId !== undefined) where.push(`owner_external_id = ${param(filters.ownerExternalId)}`);
  if (filters.externalId !== undefined) where.push(`external_id = ${param(filters.externalId)}`);
  if (filters.updatedSince) where.push(`updated_at >= ${param(filters.updatedSince)}::timestamptz`);
  if (position) where.push(`(updated_at, id) > (${param(position.at)}::timestamptz, ${param(position.id)})`);
  const rows = await tx.query<DealRow>({
    text: `SELECT ${DEAL_COLUMNS} FROM deals WHERE ${where.join(' AND ')} ORDER BY updated_at, id LIMIT ${param(limit)}`,
    values,
  });
  return rows.map(toDealRecord);
}

/**
 * A deal a rep principal may see: owned by one of the visible users, or crediting one of them in its splits
 * (`parameter` names a text[] of user ids).
 */
function visibleTo(parameter: string): string {
  return `(user_id = ANY(${parameter}::text[]) OR EXISTS (
    SELECT 1 FROM unnest(${parameter}::text[]) AS visible(id)
    WHERE splits @> jsonb_build_array(jsonb_build_object('user_id', visible.id))))`;
}

/** The deal with this id, or null (an estimate's read, not locked); `visibleUserIds` as in listAfter. */
export async function findById(
  tx: Transaction,
  orgId: string,
  dealId: string,
  visibleUserIds: readonly string[] | null = null,
): Promise<DealRecord | null> {
  const rows = await tx.query<DealRow>({
    text: `SELECT ${DEAL_COLUMNS} FROM deals WHERE org_id = $1 AND id = $2${visibleUserIds === null ? '' : ` AND ${visibleTo('$3')}`}`,
    values: visibleUserIds === null ? [orgId, dealId] : [orgId, dealId, visibleUserIds],
  });
  return rows[0] ? toDealRecord(rows[0]) : null;
}

/** The deal with this external id, or null (an estimate's read, not locked). */
export async function findByExternalId(tx: Transaction, orgId: string, externalId: string): Promise<DealRecord | null> {
  const rows = await tx.query<DealRow>({
    text: `SELECT ${DEAL_COLUMNS} FROM deals WHERE org_id = $1 AND external_id = $2`,
    values: [orgId, externalId],
  });
  return rows[0] ? toDealRecord(rows[0]) : null;
}
