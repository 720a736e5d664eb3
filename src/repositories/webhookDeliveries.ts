import { randomUUID } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client.ts';
import { newId } from '../lib/ids.ts';
import { bumpConfigVersion } from './orgs.ts';
import { named, prismaOf, type Transaction } from './transaction.ts';

export interface WebhookAttemptRecord {
  attempted_at: Date;
  response_status: number | null;
  latency_ms: number | null;
  error: string | null;
  manual: boolean;
}

/** One message to one endpoint, with every attempt, oldest attempt first. */
export interface WebhookDeliveryRecord {
  message_id: string;
  type: string;
  message_created_at: Date;
  endpoint_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  /** While an attempt is in flight, when its lease ends. */
  next_attempt_at: Date | null;
  in_flight: boolean;
  delivered_at: Date | null;
  attempts: WebhookAttemptRecord[];
}

/** A delivery a worker has leased: everything it needs to make the attempt. */
export interface ClaimedDelivery {
  id: string;
  org_id: string;
  message_id: string;
  endpoint_id: string;
  /** This attempt's number, 1 for the first. */
  attempt: number;
  lease_id: string;
  /** A manual redelivery of an ended delivery: one attempt, outside the schedule. */
  redelivery: boolean;
  delivered_before: boolean;
  /** The payload exactly as stored, sent as the body. */
  body: string;
  url: string;
  /** The current secret first, then the previous one while the rotation lasts. */
  secrets: string[];
}

/** What became of a delivery after an attempt (see decideAfterAttempt). */
export interface AttemptResult {
  attemptedAt: Date;
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
  delivery: { status: 'pending' | 'delivered' | 'failed'; nextAttemptAt: Date | null };
  /** The attempt succeeded: the endpoint's run of failures, if any, is over. */
  endpointSucceeded: boolean;
  /** Disable the endpoint at once, for this reason (a `410 Gone`). */
  disableReason: string | null;
}

interface ClaimRow {
  id: string;
  org_id: string;
  message_id: string;
  endpoint_id: string;
  attempt_count: number;
  lease_id: string;
  redelivery: boolean;
  delivered_at: Date | null;
  body: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

// A delivery whose endpoint is gone ends as it stood: delivered if it ever was, else failed.
const ENDED_STATUS_SQL = Prisma.raw(`CASE WHEN delivered_at IS NOT NULL THEN 'delivered' ELSE 'failed' END`);

/**
 * Deliveries still to be made, of every org (for the operator's metrics, not for an org), and when the oldest
 * of them was created.
 */
export async function pendingBacklog(tx: Transaction): Promise<{ pending: number; oldestCreatedAt: Date | null }> {
  const rows = await prismaOf(tx).$queryRaw<Array<{ pending: bigint; oldest: Date | null }>>`
    SELECT count(*) AS pending, min(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'`;
  return { pending: Number(rows[0]?.pending ?? 0), oldestCreatedAt: rows[0]?.oldest ?? null };
}

/** Newest message first, each with its attempts. */
export async function listDeliveries(
  tx: Transaction,
  orgId: string,
  endpointId: string,
  limit: number,
): Promise<WebhookDeliveryRecord[]> {
  const rows = await prismaOf(tx).webhookDelivery.findMany({
    where: { org_id: orgId, endpoint_id: endpointId },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    take: limit,
    include: {
      message: { select: { type: true, created_at: true } },
      attempts: { orderBy: [{ attempted_at: 'asc' }, { id: 'asc' }] },
    },
  });
  return rows.map((row) => ({
    message_id: row.message_id,
    type: row.message.type,
    message_created_at: row.message.created_at,
    endpoint_id: row.endpoint_id,
    status: row.status as WebhookDeliveryRecord['status'],
    attempt_count: row.attempt_count,
    next_attempt_at: row.next_attempt_at,
    in_flight: row.lease_id !== null,
    delivered_at: row.delivered_at,
    attempts: row.attempts.map((attempt) => ({
      attempted_at: attempt.attempted_at,
      response_status: attempt.response_status,
      latency_ms: attempt.latency_ms,
      error: attempt.error,
      manual: attempt.manual,
    })),
  }));
}

export async function messageExists(tx: Transaction, orgId: string, messageId: string): Promise<boolean> {
  return (await prismaOf(tx).webhookMessage.count({ where: { id: messageId, org_id: orgId } })) > 0;
}

/**
 * Makes the deliveries of a message due now, to the live endpoints among `endpointIds` (all when null): a
 * waiting one keeps its place in the schedule, an ended one (delivered or failed) gets one manual attempt. An
 * attempt in flight is left alone. Returns the endpoints whose delivery was made due.
 */
export async function requestRedelivery(
  tx: Transaction,
  orgId: string,
  messageId: string,
  endpointIds: string[] | null,
): Promise<{ endpoint_id: string; previous_status: string }[]> {
  return prismaOf(tx).$queryRaw<{ endpoint_id: string; previous_status: string }[]>`
    WITH target AS (
      SELECT d.id, d.status
      FROM webhook_deliveries d
      JOIN webhook_endpoints e ON e.org_id = d.org_id AND e.id = d.endpoint_id
      WHERE d.org_id = ${orgId} AND d.message_id = ${messageId}
        AND e.enabled AND e.removed_at IS NULL AND d.lease_id IS NULL
        ${endpointIds === null ? Prisma.empty : Prisma.sql`AND d.endpoint_id = ANY(${endpointIds}::text[])`}
      FOR UPDATE OF d
    )
    UPDATE webhook_deliveries d
    SET next_attempt_at = now(),
        redelivery = (target.status <> 'pending'),
        status = 'pending'
    FROM target
    WHERE d.org_id = ${orgId} AND d.id = target.id
    RETURNING d.endpoint_id, target.status AS previous_status`;
}

/**
 * Leases up to `limit` due deliveries for `leaseMs`, of `orgIds` (or of every org with deliveries due), one org at a
 * time: on Citus a row lock runs only in a statement routed to one org's node (FOR UPDATE across shards is refused),
 * so each org's lease is a statement of its own (claimDueOfOrg). The orgs are taken from a rotating start, so that one
 * org with more due deliveries than `limit` does not keep the others waiting.
 */
export async function claimDue(
  tx: Transaction,
  limit: number,
  leaseMs: number,
  orgIds: readonly string[] | null = null,
): Promise<ClaimedDelivery[]> {
  const orgs = orgIds ?? (await orgsWithDueDeliveries(tx));
  const claimed: ClaimedDelivery[] = [];
  const start = orgs.length === 0 ? 0 : rotation++ % orgs.length;
  for (let index = 0; index < orgs.length && claimed.length < limit; index++) {
    const orgId = orgs[(start + index) % orgs.length] as string;
    claimed.push(...(await claimDueOfOrg(tx, orgId, limit - claimed.length, leaseMs)));
  }
  return claimed;
}

let rotation = 0;

/** The orgs with deliveries due now: a read across orgs (a multi-shard read on Citus, no lock). */
async function orgsWithDueDeliveries(tx: Transaction): Promise<string[]> {
  const rows = await prismaOf(tx).$queryRaw<Array<{ org_id: string }>>`
    SELECT DISTINCT org_id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()`;
  return rows.map((row) => row.org_id).sort();
}

/**
 * Leases up to `limit` due deliveries of one org for `leaseMs`: one statement, so rows are locked only for its length
 * (SKIP LOCKED: concurrent workers take different rows), and the lease, not a lock, keeps them from being
 * taken again while the attempt runs. A delivery found with an expired lease was abandoned by a worker that
 * died mid-attempt: that attempt is recorded without a result. Deliveries whose endpoint was disabled or
 * removed meanwhile end here instead of being sent. Every table names the org as a parameter, and the lease ids
 * are made here (a volatile function in an UPDATE of a distributed table is refused by Citus). The lease's times are
 * read in `numbered`, not in the UPDATE: Citus refuses a stable function such as now() in a CASE of an UPDATE.
 */
async function claimDueOfOrg(
  tx: Transaction,
  orgId: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  const abandonedAttemptIds = Array.from({ length: limit }, () => newId('att'));
  const leaseIds = Array.from({ length: limit }, () => randomUUID());
  const rows = await prismaOf(tx).$queryRaw<ClaimRow[]>`
    WITH due AS (
      SELECT d.org_id, d.id, d.lease_id AS abandoned_lease, d.leased_at AS abandoned_at, d.redelivery AS abandoned_manual,
             (e.enabled AND e.removed_at IS NULL) AS live
      FROM webhook_deliveries d
      JOIN webhook_endpoints e ON e.org_id = ${orgId} AND e.id = d.endpoint_id
      WHERE d.org_id = ${orgId} AND d.status = 'pending' AND d.next_attempt_at <= now()
      ORDER BY d.next_attempt_at
      LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED
    ),
    numbered AS (
      SELECT due.*, (${leaseIds}::text[])[row_number() OVER (ORDER BY id)] AS new_lease,
             CASE WHEN due.live THEN now() END AS new_leased_at,
             CASE WHEN due.live THEN now() + ${leaseMs} * interval '1 millisecond' END AS new_next_attempt_at
      FROM due
    ),
    abandoned AS (
      INSERT INTO webhook_attempts (id, org_id, delivery_id, attempted_at, response_status, latency_ms, error, manual)
      SELECT (${abandonedAttemptIds}::text[])[row_number() OVER (ORDER BY id)], org_id, id, abandoned_at, NULL, NULL,
             'no result: the worker stopped during the attempt; retried when its lease ran out', abandoned_manual
      FROM due
      WHERE abandoned_lease IS NOT NULL
    ),
    claimed AS (
      UPDATE webhook_deliveries d
      SET lease_id = CASE WHEN numbered.live THEN numbered.new_lease END,
          leased_at = numbered.new_leased_at,
          next_attempt_at = numbered.new_next_attempt_at,
          attempt_count = d.attempt_count + CASE WHEN numbered.live THEN 1 ELSE 0 END,
          status = CASE WHEN numbered.live THEN 'pending' ELSE ${ENDED_STATUS_SQL} END,
          redelivery = numbered.live AND d.redelivery
      FROM numbered
      WHERE d.org_id = ${orgId} AND d.id = numbered.id
      RETURNING d.id, d.org_id, d.message_id, d.endpoint_id, d.attempt_count, d.lease_id, d.redelivery,
                d.delivered_at
    )
    SELECT c.*, m.payload::text AS body, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at
    FROM claimed c
    JOIN webhook_messages m ON m.org_id = ${orgId} AND m.id = c.message_id
    JOIN webhook_endpoints e ON e.org_id = ${orgId} AND e.id = c.endpoint_id
    WHERE c.lease_id IS NOT NULL`;
  const now = Date.now();
  return rows.map((row) => ({
    id: row.id,
    org_id: row.org_id,
    message_id: row.message_id,
    endpoint_id: row.endpoint_id,
    attempt: Number(row.attempt_count),
    lease_id: row.lease_id,
    redelivery: row.redelivery,
    delivered_before: row.delivered_at !== null,
    body: row.body,
    url: row.url,
    secrets:
      row.previous_secret !== null && (row.previous_secret_expires_at?.getTime() ?? 0) > now
        ? [row.secret, row.previous_secret]
        : [row.secret],
  }));
}

/**
 * Records an attempt and its consequences in one transaction: the attempt row (always: it happened), the
 * delivery's new state (only while this worker still holds the lease), and the endpoint's health. An endpoint
 * is disabled on `disableReason`, or when it has failed without a success for `disableAfterMs`.
 */
export async function recordAttempt(
  tx: Transaction,
  claim: ClaimedDelivery,
  result: AttemptResult,
  disableAfterMs: number,
): Promise<{ disabledReason: string | null }> {
  const client = prismaOf(tx);
  await client.webhookAttempt.create({
    data: {
      id: newId('att'),
      org_id: claim.org_id,
      delivery_id: claim.id,
      attempted_at: result.attemptedAt,
      response_status: result.responseStatus,
      latency_ms: result.latencyMs,
      error: result.error,
      manual: claim.redelivery,
    },
  });
  const delivered = result.delivery.status === 'delivered';
  await client.webhookDelivery.updateMany({
    where: { org_id: claim.org_id, id: claim.id, lease_id: claim.lease_id },
    data: {
      status: result.delivery.status,
      next_attempt_at: result.delivery.nextAttemptAt,
      ...(delivered ? { delivered_at: result.attemptedAt } : {}),
      lease_id: null,
      leased_at: null,
      redelivery: false,
    },
  });
  if (result.endpointSucceeded) {
    await client.webhookEndpoint.updateMany({
      where: { org_id: claim.org_id, id: claim.endpoint_id, failing_since: { not: null } },
      data: { failing_since: null },
    });
    return { disabledReason: null };
  }
  const [health] = await client.$queryRaw<{ failing_since: Date; enabled: boolean }[]>`
    UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ${result.attemptedAt})
    WHERE org_id = ${claim.org_id} AND id = ${claim.endpoint_id}
    RETURNING failing_since, enabled`;
  if (!health?.enabled) return { disabledReason: null };
  const failingForMs = result.attemptedAt.getTime() - health.failing_since.getTime();
  const reason =
    result.disableReason ??
    (failingForMs >= disableAfterMs
      ? `every attempt failed for ${Math.floor(failingForMs / 86_400_000)} days, since ${health.failing_since.toISOString()}`
      : null);
  if (reason === null) return { disabledReason: null };
  await client.webhookEndpoint.update({
    where: { org_id_id: { org_id: claim.org_id, id: claim.endpoint_id } },
    data: { enabled: false, disabled_at: result.attemptedAt, disabled_reason: reason },
  });
  await bumpConfigVersion(tx, claim.org_id);
  await endWaitingDeliveries(client, claim.org_id, claim.endpoint_id);
  return { disabledReason: reason };
}

/** Ends the endpoint's deliveries that wait for an attempt; those in flight end when their lease runs out. */
export async function endWaitingDeliveries(
  client: Prisma.TransactionClient,
  orgId: string,
  endpointId: string,
): Promise<void> {
  await client.$executeRaw`
    UPDATE webhook_deliveries
    SET status = ${ENDED_STATUS_SQL}, next_attempt_at = NULL, redelivery = false
    WHERE org_id = ${orgId} AND endpoint_id = ${endpointId} AND status = 'pending' AND lease_id IS NULL`;
}

// The outbox's statements (src/services/webhookOutbox.ts), run inside the transaction of the change they
// announce, whichever runner opened it.

// The deliveries name their message by its id, the parameter, not by the CTE's row: an INSERT … SELECT from the CTE
// would reach Citus as rows of an intermediate result, pulled through the coordinator (the message's insert still
// runs first: a data-modifying CTE runs whether or not it is read, and the foreign key is checked at the statement's
// end).
const INSERT_MESSAGE = `
  WITH message AS (
    INSERT INTO webhook_messages (id, org_id, type, payload, created_at)
    VALUES ($1, $2, $3, $4::json, now())
    RETURNING id
  )
  INSERT INTO webhook_deliveries (id, org_id, message_id, endpoint_id, status, attempt_count, next_attempt_at, created_at)
  SELECT t.delivery_id, $2, $1, t.endpoint_id, 'pending', 0, now(), now()
  FROM unnest($5::text[], $6::text[]) AS t(delivery_id, endpoint_id)`;

/** One message and a delivery, due at once, per endpoint. */
export async function insertMessage(
  tx: Transaction,
  message: { messageId: string; orgId: string; type: string; body: string; endpointIds: readonly string[] },
): Promise<void> {
  await tx.query(
    named('webhooks_insert_message', {
      text: INSERT_MESSAGE,
      values: [
        message.messageId,
        message.orgId,
        message.type,
        message.body,
        message.endpointIds.map(() => newId('dlv')),
        [...message.endpointIds],
      ],
    }),
  );
}
