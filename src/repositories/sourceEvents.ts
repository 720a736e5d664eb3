import type { StageLists } from '../domain/deals/projection.ts';
import { newId } from '../lib/ids.ts';
import { DEAL_COLUMNS, type DealRecord, type DealRow, toDealRecord } from './deals.ts';
import { joinFeedWriters } from './feedWriters.ts';
import { named, sql, type Transaction } from './transaction.ts';

export interface NewSourceEvent {
  id: string;
  keyId: string | null;
  dedupKey: string;
  externalId: string;
  /** The body exactly as received; stored in a `json` column, which keeps the text as it is. */
  rawBody: string;
  /** SHA-256 of the body's canonical JSON. */
  bodyDigest: string;
  receivedAt: Date;
}

export type OpenedDeal =
  /** Nothing written: the dedup key is taken, or the sending key is revoked (`keyRevoked`). */
  | { recorded: false; keyRevoked: boolean }
  | {
      recorded: true;
      /** Locked until the transaction ends; version 0 when this event creates it. Null: lock it separately. */
      deal: DealRecord | null;
      /** The user (rep) of the event's owner_external_id; null when none was named or it must be looked up. */
      ownerUserId: string | null;
      stages: StageLists;
      /** orgs.config_version, read in this first statement (see OrgConfigCache). */
      configVersion: number;
      /** The users (reps) this statement created: the event named them first. */
      createdUserIds: string[];
    };

/** The ids an accepted event answered with, and the digest of its body. */
export interface RecordedEvent {
  source_event_id: string;
  domain_event_id: string;
  deal_id: string;
  body_digest: string;
}

/** Whether the event's key may still send: no key (an import), or one of the org's that is not revoked. */
const SENDER_ACTIVE = `$2::text IS NULL
  OR EXISTS (SELECT 1 FROM api_keys k WHERE k.org_id = $1 AND k.id = $2::text AND k.revoked_at IS NULL)`;

const CREATE_NAMED_REPS = `
  INSERT INTO users (id, org_id, external_id)
  SELECT named.id, $1, named.external_id
  FROM unnest($4::text[], $5::text[]) AS named(id, external_id)
  WHERE (${SENDER_ACTIVE})
    AND NOT EXISTS (SELECT 1 FROM source_events s WHERE s.org_id = $1 AND s.dedup_key = $3)
  ORDER BY named.external_id
  ON CONFLICT (org_id, external_id) DO NOTHING
  RETURNING id`;

const RECORD_AND_OPEN_DEAL = `
  WITH sender AS (
    SELECT $3::text IS NULL
           OR EXISTS (SELECT 1 FROM api_keys k WHERE k.org_id = $2 AND k.id = $3::text AND k.revoked_at IS NULL)
           AS key_active
  ), source AS (
    INSERT INTO source_events (id, org_id, key_id, dedup_key, external_id, body, body_digest, received_at)
    SELECT $1, $2, $3::text, $4, $5, $6::json, $7, $8::timestamptz FROM sender
    WHERE sender.key_active
    ON CONFLICT (org_id, dedup_key) DO NOTHING
    RETURNING id
  ), created AS (
    INSERT INTO deals (id, org_id, external_id, version, status, custom, created_at, updated_at)
    SELECT $9, $2, $5, 0, 'open', '{}'::jsonb, now(), date_trunc('milliseconds', statement_timestamp()) FROM source
    ON CONFLICT (org_id, external_id) DO NOTHING
    RETURNING ${DEAL_COLUMNS}
  ), existing AS (
    SELECT ${DEAL_COLUMNS} FROM deals
    WHERE org_id = $2 AND external_id = $5 AND EXISTS (SELECT 1 FROM source)
    FOR NO KEY UPDATE
  ), opened AS (
    SELECT * FROM created UNION ALL SELECT * FROM existing
  )
  SELECT (SELECT key_active FROM sender) AS key_active,
         EXISTS (SELECT 1 FROM source) AS recorded,
         o.won_stages, o.lost_stages, o.config_version,
         (SELECT u.id FROM users u WHERE u.org_id = $2 AND u.external_id = $10::text) AS owner_user_id,
         opened.*
  FROM orgs o LEFT JOIN opened ON true
  WHERE o.id = $2`;

const FIND_BY_DEDUP_KEY = `
  SELECT s.id AS source_event_id, e.id AS domain_event_id, e.deal_id, s.body_digest
  FROM source_events s JOIN domain_events e ON e.org_id = s.org_id AND e.source_event_id = s.id
  WHERE s.org_id = $1 AND s.dedup_key = $2`;

type OpenRow = Partial<DealRow> & {
  key_active: boolean;
  recorded: boolean;
  won_stages: string[];
  lost_stages: string[];
  config_version: number;
  owner_user_id: string | null;
};

/** Source events are written and read only inside ingestion transactions, so every method takes the transaction. */
/**
 * The first step of ingestion, in one round trip: creates the users of the owner and the split reps the event
 * names on first sight (in external-id order), unless the sending key is revoked or the dedup key is taken by a
 * committed event; records the source event unless its dedup key is taken (then nothing else happens and
 * `recorded` is false), and otherwise creates the deal if it is new (version 0) or locks it FOR NO KEY UPDATE (see LOCK_DEAL) and reads the org's stage lists.
 *
 * The statements take locks in the order user → dedup key → deal, as every ingestion does (a batch creates all
 * its events' reps first, users.ensureRepsOfEvents, then records its events one by one through this statement), so
 * concurrent events cannot deadlock. The reps come first because a batch holds its new reps while it waits for
 * its deals: an event that took a deal before its new rep would wait for a batch waiting for it, a deadlock (the
 * contract fuzzer's rare 500 on POST /v1/deals/events; test/integration/ingestion-races.test.ts). By the same token as in
 * ensureRepsOfEvents, two concurrent events with one dedup key may both create the reps their bodies name, though
 * only one is recorded.
 *
 * When another transaction created the deal or the user after this statement's snapshot was taken, they are
 * not visible here: `deal` or `ownerUserId` come back null and the caller looks them up in a new statement.
 */
export async function recordAndOpenDeal(
  tx: Transaction,
  orgId: string,
  event: NewSourceEvent,
  deal: { newId: string; ownerExternalId: string | null; splitExternalIds: readonly string[] },
): Promise<OpenedDeal> {
  // Every rep the event names, created in external-id order: two events naming each other's new reps (one's
  // owner, the other's split rep) then wait for each other in one order, never in a circle.
  const reps = [
    ...new Set([...(deal.ownerExternalId === null ? [] : [deal.ownerExternalId]), ...deal.splitExternalIds]),
  ].sort();
  // Sent together: the transaction takes its feed writer slot first (see feedWriters.joinFeedWriters), then the
  // reps are written (and their locks taken) before the dedup key and the deal, and the last statement sees them.
  const [, created, rows] = await Promise.all([
    joinFeedWriters(tx, orgId),
    reps.length === 0
      ? Promise.resolve([])
      : tx.query<{ id: string }>(
          named('source_events_create_named_reps', {
            text: CREATE_NAMED_REPS,
            values: [orgId, event.keyId, event.dedupKey, reps.map(() => newId('user')), reps],
          }),
        ),
    tx.query<OpenRow>(
      named('source_events_record_and_open_deal', {
        text: RECORD_AND_OPEN_DEAL,
        values: [
          event.id,
          orgId,
          event.keyId,
          event.dedupKey,
          event.externalId,
          event.rawBody,
          event.bodyDigest,
          event.receivedAt,
          deal.newId,
          deal.ownerExternalId,
        ],
      }),
    ),
  ]);
  const row = rows[0];
  if (!row) throw new Error(`org ${orgId} does not exist`);
  if (!row.recorded) return { recorded: false, keyRevoked: !row.key_active };
  return {
    recorded: true,
    deal: row.id ? toDealRecord(row as DealRow) : null,
    ownerUserId: row.id ? row.owner_user_id : null,
    stages: { won: row.won_stages, lost: row.lost_stages },
    configVersion: row.config_version,
    createdUserIds: created.map((user) => user.id),
  };
}

/** The body digests of the org's source events under these dedup keys, by key (an import's rows already sent). */
export async function digestsByDedupKeys(
  tx: Transaction,
  orgId: string,
  dedupKeys: readonly string[],
): Promise<Map<string, string>> {
  const rows = await tx.query<{ dedup_key: string; body_digest: string }>(
    sql`SELECT dedup_key, body_digest FROM source_events WHERE org_id = ${orgId} AND dedup_key = ANY(${dedupKeys}::text[])`,
  );
  return new Map(rows.map((row) => [row.dedup_key, row.body_digest]));
}

/** The event that first used a dedup key, with the ids it was answered with; null when the key is unused. */
export async function findByDedupKey(tx: Transaction, orgId: string, dedupKey: string): Promise<RecordedEvent | null> {
  const rows = await tx.query<RecordedEvent>(
    named('source_events_find_by_dedup_key', { text: FIND_BY_DEDUP_KEY, values: [orgId, dedupKey] }),
  );
  return rows[0] ?? null;
}

/** Whether the org has a source event with this id. */
export async function exists(tx: Transaction, orgId: string, id: string): Promise<boolean> {
  const rows = await tx.query<{ id: string }>(sql`SELECT id FROM source_events WHERE org_id = ${orgId} AND id = ${id}`);
  return rows.length > 0;
}

// The deals are locked in a subquery of `existing`, not by `existing` itself: Citus 13 runs this statement through
// intermediate results (its INSERT … SELECT of the batch's rows is planned on the coordinator), and a CTE that locks
// rows while it reads another CTE's result comes back unreadable ("missing data for column org_id", measured on a
// Citus 13.2 cluster); PostgreSQL locks the same rows either way.
const RECORD_AND_LOCK_DEALS = `
  WITH input AS (
    SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
      WITH ORDINALITY AS i(id, dedup_key, external_id, body, body_digest, received_at, n)
  ), source AS (
    INSERT INTO source_events (id, org_id, key_id, dedup_key, external_id, body, body_digest, received_at)
    SELECT i.id, $1, NULL, i.dedup_key, i.external_id, i.body::json, i.body_digest, i.received_at FROM input i ORDER BY i.n
    ON CONFLICT (org_id, dedup_key) DO NOTHING
    RETURNING id, external_id
  ), existing AS (
    SELECT * FROM (
      SELECT ${DEAL_COLUMNS} FROM deals
      WHERE org_id = $1 AND external_id IN (SELECT external_id FROM source)
      ORDER BY external_id
      FOR NO KEY UPDATE
    ) locked
  )
  SELECT s.id IS NOT NULL AS recorded,
         o.won_stages, o.lost_stages, o.config_version, existing.*
  FROM input i
  JOIN orgs o ON o.id = $1
  LEFT JOIN source s ON s.id = i.id
  LEFT JOIN existing ON s.id IS NOT NULL AND existing.external_id = i.external_id
  ORDER BY i.n`;

/** An event of recordAndLockDeals: not recorded (its dedup key is taken), or recorded with its deal if it has one. */
export type RecordedInBulk =
  | { recorded: false }
  | {
      recorded: true;
      /** Locked until the transaction ends; null when the org had no such deal as the statement began. */
      deal: DealRecord | null;
      stages: StageLists;
      /** orgs.config_version, read in this statement (see OrgConfigCache). */
      configVersion: number;
    };

/**
 * The first step of ingestion for many events at once, of different deals and dedup keys, sent without an API key
 * (an import), in one statement: each source event claims its dedup key, and the deals the recorded ones name are
 * locked. A deal the org does not have is not created here: the apply statement (dealsBulk.applyEvents) inserts it
 * once, in its final state, rather than at version 0 to be updated in the same transaction. The reps the events name
 * must exist already (users.ensureRepsOfEvents). One result per event, in order.
 */
export async function recordAndLockDeals(
  tx: Transaction,
  orgId: string,
  events: ReadonlyArray<Omit<NewSourceEvent, 'keyId'>>,
): Promise<RecordedInBulk[]> {
  if (events.length === 0) return [];
  // The transaction's feed writer slot, first, in the same send (see feedWriters.joinFeedWriters).
  const [, rows] = await Promise.all([
    joinFeedWriters(tx, orgId),
    tx.query<OpenRow>({
      text: RECORD_AND_LOCK_DEALS,
      values: [
        orgId,
        events.map((event) => event.id),
        events.map((event) => event.dedupKey),
        events.map((event) => event.externalId),
        events.map((event) => event.rawBody),
        events.map((event) => event.bodyDigest),
        events.map((event) => event.receivedAt),
      ],
    }),
  ]);
  if (rows.length !== events.length) throw new Error(`org ${orgId} does not exist`);
  return rows.map((row): RecordedInBulk => {
    if (!row.recorded) return { recorded: false };
    return {
      recorded: true,
      deal: row.id ? toDealRecord(row as DealRow) : null,
      stages: { won: row.won_stages, lost: row.lost_stages },
      configVersion: row.config_version,
    };
  });
}
