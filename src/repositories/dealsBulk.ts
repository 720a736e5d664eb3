import { type AppliedEvent, DEAL_COLUMNS, type DealRecord, type DealRow, toDealRecord } from './deals.ts';
import type { DomainEventRecord } from './domainEvents.ts';
import { sql, type Transaction } from './transaction.ts';

// The deals of an import, many at a time (src/services/ingestion/bulkImport.ts, src/services/dealImport.ts): which of a
// chunk's deals the org has, the org's live deals, and a run of events applied in one statement. The single event's
// statements are in deals.ts.

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

// The clock is statement_timestamp(), not clock_timestamp(): Citus refuses a volatile function in a write to a
// distributed table, and evaluates a stable one once, on the coordinator, before it sends the write to the shard.
const APPLY_EVENTS = `
  WITH clock AS (
    -- The statement's start, truncated, not rounded, to the column's milliseconds: updated_at is never later than
    -- the clock reading. The statement starts after the transaction's earlier ones have ended (its feed writer
    -- slot, the deal's lock), as the wall-clock reading it replaces did (see the comment above).
    SELECT date_trunc('milliseconds', statement_timestamp()) AS at
  ), input AS (
    SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::timestamptz[],
                         $9::boolean[], $10::bigint[], $11::text[], $12::date[], $13::text[], $14::jsonb[], $15::text[],
                         $16::text[], $17::timestamptz[], $18::boolean[], $19::jsonb[], $20::text[], $21::text[])
      WITH ORDINALITY AS i(id, source_event_id, deal_id, type, event_type_hint, changes, occurred_at, stale,
                           amount_cents, stage, close_date, owner_external_id, custom, status, user_id,
                           last_occurred_at, became_won, splits, currency, new_external_id, n)
  ), created AS (
    -- A deal the org did not have, written once in its final state (version 1). One that another transaction
    -- created meanwhile is skipped, and so is its domain event: the caller applies the event to that deal.
    INSERT INTO deals (id, org_id, external_id, amount_cents, stage, close_date, owner_external_id, custom, splits,
                       currency, status, user_id, version, last_domain_event_id, last_occurred_at, won_at, created_at,
                       updated_at)
    SELECT i.deal_id, $1, i.new_external_id, i.amount_cents, i.stage, i.close_date, i.owner_external_id, i.custom,
           i.splits, i.currency, i.status, i.user_id, 1, i.id, i.last_occurred_at,
           CASE WHEN i.status = 'won' AND i.became_won THEN COALESCE(i.occurred_at, clock.at) END, clock.at, clock.at
    FROM input i, clock WHERE i.new_external_id IS NOT NULL ORDER BY i.new_external_id
    ON CONFLICT (org_id, external_id) DO NOTHING
    RETURNING ${DEAL_COLUMNS}, last_domain_event_id AS domain_event_id
  ), recorded AS (
    INSERT INTO domain_events
      (id, org_id, source_event_id, deal_id, type, event_type_hint, changes, stale, occurred_at, created_at)
    SELECT i.id, $1, i.source_event_id, i.deal_id, i.type, i.event_type_hint, i.changes, i.stale, i.occurred_at, clock.at
    FROM input i, clock
    WHERE i.new_external_id IS NULL OR i.deal_id IN (SELECT id FROM created)
    ORDER BY i.n
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
  WHERE d.org_id = $1 AND d.id = i.deal_id AND NOT i.stale AND i.new_external_id IS NULL
  RETURNING d.id, d.org_id, d.external_id, d.amount_cents, d.stage, d.close_date, d.owner_external_id, d.custom,
            d.splits, d.payments, d.currency, d.status, d.user_id, d.version, d.last_domain_event_id, d.last_occurred_at,
            d.won_at, d.created_at, d.updated_at, i.id AS domain_event_id
  ), applied AS (
    SELECT * FROM created UNION ALL SELECT * FROM updated
  )
  -- At least one row, with the clock: stale events' domain events were recorded at it too.
  SELECT applied.*, clock.at AS event_created_at FROM clock LEFT JOIN applied ON true`;

/**
 * A domain event of `applyEvents`: applied to its deal, or stale (recorded, the deal untouched). `newExternalId`: the
 * deal is new, created by this statement with `dealId` and this external id in its final state.
 */
export type BulkAppliedEvent =
  | ({ stale: false; dealId: string; newExternalId: string | null } & AppliedEvent)
  | {
      stale: true;
      dealId: string;
      domainEventId: string;
      sourceEventId: string;
      eventTypeHint: string;
      occurredAt: Date;
    };

/**
 * What applyEvents did with an event: applied (the deal as it is now, null for a stale event) with its domain event,
 * or not: its new deal was created by another transaction meanwhile (`taken`), nothing written for it.
 */
export type BulkApplied = { deal: DealRecord | null; domainEvent: DomainEventRecord } | { taken: true };

/**
 * `applyEvent` (and `domainEvents.recordStale`) for many events of different deals, each deal locked by this
 * transaction or new, in one statement: a new deal is inserted once, as the event leaves it. Every domain event is
 * recorded with the same time, which is each applied deal's `updated_at` (and a new one's `created_at`). No audit
 * entries (an import's are its own). The events' outcomes, in order.
 */
export async function applyEvents(
  tx: Transaction,
  orgId: string,
  events: readonly BulkAppliedEvent[],
): Promise<BulkApplied[]> {
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
      events.map((event) => applied(event)?.newExternalId ?? null),
    ],
  });
  const byEvent = new Map(rows.map((row) => [row.domain_event_id, row]));
  const staleAt = (rows[0] as { event_created_at: Date }).event_created_at;
  return events.map((event): BulkApplied => {
    const row = event.stale ? undefined : byEvent.get(event.domainEventId);
    if (!event.stale && !row) {
      if (event.newExternalId !== null) return { taken: true };
      throw new Error(`deal ${event.dealId} of org ${orgId} is not locked by this transaction`);
    }
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
