import type { DealSplit } from '../domain/deals/event.ts';
import type { DealListFilters } from '../domain/deals/feed.ts';
import type { DealState, DealStatus, DomainEventType, FieldChange } from '../domain/deals/projection.ts';
import type { JsonObject } from '../domain/json.ts';
import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import type { AuditEntryInput } from './audit.ts';
import { auditEntryCte, auditEntryValues } from './audit.ts';
import type { DomainEventRecord } from './domainEvents.ts';
import { named, sql, statementParameters, type Transaction } from './transaction.ts';

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
  'id, org_id, external_id, amount_cents, stage, close_date, owner_external_id, custom, splits, currency, status, user_id, ' +
  'version, last_domain_event_id, last_occurred_at, won_at, created_at, updated_at';

/**
 * The application_name a transaction sets (locally) before it writes deals of an org. The change feed reads
 * pg_stat_activity for transactions carrying it, so every transaction that writes `deals` must set it first
 * (sourceEvents.recordAndOpenDeal does) and must take `updated_at` from clock_timestamp() after it
 * holds a transaction id. See feedWriters.horizon.
 */
export function dealWriterTag(orgId: string): string {
  return `quotient:deals:${orgId}`;
}

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

const APPLY_EVENT = `
  WITH clock AS (
    -- Truncated, not rounded, to the column's milliseconds: updated_at is never later than the clock reading.
    SELECT date_trunc('milliseconds', clock_timestamp()) AS at
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

/** Which of these external ids name a deal of the org already (deleted ones included). */
export async function externalIdsPresent(
  tx: Transaction,
  orgId: string,
  externalIds: readonly string[],
): Promise<Set<string>> {
  const rows = await tx.query<{ external_id: string }>(
    sql`SELECT external_id FROM deals WHERE org_id = ${orgId} AND external_id = ANY(${externalIds}::text[])`,
  );
  return new Set(rows.map((row) => row.external_id));
}

/** The org's deals that are not deleted: external id → version (an import's deals missing from its file). */
export async function liveExternalIds(tx: Transaction, orgId: string): Promise<Map<string, number>> {
  const rows = await tx.query<{ external_id: string; version: number }>(
    sql`SELECT external_id, version FROM deals WHERE org_id = ${orgId} AND status <> 'deleted'`,
  );
  return new Map(rows.map((row) => [row.external_id, Number(row.version)]));
}

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
 * from clock_timestamp() (the transaction already holds a transaction id, see dealWriterTag), `won_at` set
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

const APPLY_EVENTS = `
  WITH clock AS (
    -- Truncated, not rounded, to the column's milliseconds: updated_at is never later than the clock reading.
    SELECT date_trunc('milliseconds', clock_timestamp()) AS at
  ), input AS (
    SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::timestamptz[],
                         $9::boolean[], $10::bigint[], $11::text[], $12::date[], $13::text[], $14::jsonb[], $15::text[],
                         $16::text[], $17::timestamptz[], $18::boolean[], $19::jsonb[], $20::text[])
      WITH ORDINALITY AS i(id, source_event_id, deal_id, type, event_type_hint, changes, occurred_at, stale,
                           amount_cents, stage, close_date, owner_external_id, custom, status, user_id,
                           last_occurred_at, became_won, splits, currency, n)
  ), recorded AS (
    INSERT INTO domain_events
      (id, org_id, source_event_id, deal_id, type, event_type_hint, changes, stale, occurred_at, created_at)
    SELECT i.id, $1, i.source_event_id, i.deal_id, i.type, i.event_type_hint, i.changes, i.stale, i.occurred_at, clock.at
    FROM input i, clock ORDER BY i.n
    RETURNING id
  ), updated AS (
  UPDATE deals d SET
    amount_cents = i.amount_cents,
    stage = i.stage,
    close_date = i.close_date,
    owner_external_id = i.owner_external_id,
    custom = i.custom,
    splits = i.splits,
    currency = i.currency,
    status = i.status,
    user_id = i.user_id,
    version = d.version + 1,
    last_domain_event_id = i.id,
    last_occurred_at = i.last_occurred_at,
    won_at = CASE WHEN i.status <> 'won' THEN NULL WHEN i.became_won THEN COALESCE(i.occurred_at, clock.at) ELSE d.won_at END,
    created_at = CASE WHEN d.version = 0 THEN clock.at ELSE d.created_at END,
    updated_at = clock.at
  FROM input i, clock
  WHERE d.org_id = $1 AND d.id = i.deal_id AND NOT i.stale
  RETURNING d.id, d.org_id, d.external_id, d.amount_cents, d.stage, d.close_date, d.owner_external_id, d.custom,
            d.splits, d.currency, d.status, d.user_id, d.version, d.last_domain_event_id, d.last_occurred_at,
            d.won_at, d.created_at, d.updated_at, i.id AS domain_event_id
  )
  -- At least one row, with the clock: stale events' domain events were recorded at it too.
  SELECT updated.*, clock.at AS event_created_at FROM clock LEFT JOIN updated ON true`;

/** A domain event of `applyEvents`: applied to its deal, or stale (recorded, the deal untouched). */
export type BulkAppliedEvent =
  | ({ stale: false; dealId: string } & AppliedEvent)
  | {
      stale: true;
      dealId: string;
      domainEventId: string;
      sourceEventId: string;
      eventTypeHint: string;
      occurredAt: Date;
    };

/**
 * `applyEvent` (and `domainEvents.recordStale`) for many events of different deals, each deal locked by this
 * transaction, in one statement: every domain event is recorded with the same time, which is each applied deal's
 * `updated_at`. No audit entries (an import's are its own). The applied events' deals and domain events, in order;
 * a stale event's deal is null.
 */
export async function applyEvents(
  tx: Transaction,
  orgId: string,
  events: readonly BulkAppliedEvent[],
): Promise<Array<{ deal: DealRecord | null; domainEvent: DomainEventRecord }>> {
  if (events.length === 0) return [];
  const applied = (event: BulkAppliedEvent) => (event.stale ? null : event);
  const rows = await tx.query<DealRow & { domain_event_id: string; event_created_at: Date }>({
    text: APPLY_EVENTS,
    values: [
      orgId,
      events.map((event) => event.domainEventId),
      events.map((event) => event.sourceEventId),
      events.map((event) => event.dealId),
      events.map((event) => (event.stale ? 'deal.updated' : event.type)),
      events.map((event) => event.eventTypeHint),
      events.map((event) => (event.stale ? '[]' : JSON.stringify(event.changes))),
      events.map((event) => event.occurredAt),
      events.map((event) => event.stale),
      events.map((event) => applied(event)?.state.amount_cents ?? null),
      events.map((event) => applied(event)?.state.stage ?? null),
      events.map((event) => applied(event)?.state.close_date ?? null),
      events.map((event) => applied(event)?.state.owner_external_id ?? null),
      events.map((event) => {
        const custom = applied(event)?.state.custom;
        return custom === undefined ? null : JSON.stringify(custom);
      }),
      events.map((event) => applied(event)?.status ?? null),
      events.map((event) => applied(event)?.userId ?? null),
      events.map((event) => applied(event)?.lastOccurredAt ?? null),
      events.map((event) => applied(event)?.becameWon ?? false),
      events.map((event) => {
        const splits = applied(event)?.splits;
        return splits === null || splits === undefined ? null : JSON.stringify(splits);
      }),
      events.map((event) => applied(event)?.currency ?? null),
    ],
  });
  const byEvent = new Map(rows.map((row) => [row.domain_event_id, row]));
  const staleAt = (rows[0] as { event_created_at: Date }).event_created_at;
  return events.map((event) => {
    const row = event.stale ? undefined : byEvent.get(event.domainEventId);
    if (!event.stale && !row) throw new Error(`deal ${event.dealId} of org ${orgId} is not locked by this transaction`);
    return {
      deal: row ? toDealRecord(row) : null,
      domainEvent: {
        id: event.domainEventId,
        org_id: orgId,
        source_event_id: event.sourceEventId,
        deal_id: event.dealId,
        type: event.stale ? 'deal.updated' : event.type,
        event_type_hint: event.eventTypeHint,
        changes: event.stale ? [] : event.changes,
        stale: event.stale,
        occurred_at: event.occurredAt,
        created_at: row?.event_created_at ?? staleAt,
      },
    };
  });
}
