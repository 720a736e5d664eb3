import type { webhooks } from '../../generated/openapi.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { WebhookMessageType } from '../domain/webhooks/kinds.ts';
import { newId } from '../lib/ids.ts';

// The outbox (product.md section 8): a webhook is written in the same transaction as the change it announces,
// one message and a delivery per subscribed endpoint, so a committed change is always announced and a
// rolled-back one never is. The worker (src/webhooks/worker.ts) delivers from there. What each change
// announces: src/services/webhookAnnouncements.ts.

/** The payload `{ type, timestamp, data }` of each kind, as the contract's `webhooks:` section has it. */
export type WebhookPayload<Type extends WebhookMessageType> =
  webhooks[Type]['post']['requestBody']['content']['application/json'];

/** A plain-SQL transaction (the deal-event pipeline's `Transaction`, src/repositories/transaction.ts). */
interface StatementTransaction {
  query<Row>(statement: { name?: string; text: string; values: unknown[] }): Promise<Row[]>;
}

/** The caller's open transaction: Prisma's interactive transaction client or the pipeline's plain-SQL one. */
export type OutboxTransaction = Prisma.TransactionClient | StatementTransaction;

export interface EnqueuedMessage {
  message_id: string;
  endpoint_ids: string[];
}

const SUBSCRIBED_ENDPOINTS = `
  SELECT id FROM webhook_endpoints
  WHERE org_id = $1 AND enabled AND removed_at IS NULL
    AND CASE WHEN $3::text IS NULL THEN cardinality(events) = 0 OR $2::text = ANY(events) ELSE id = $3::text END
  ORDER BY id`;

const INSERT_MESSAGE = `
  WITH message AS (
    INSERT INTO webhook_messages (id, org_id, type, payload, created_at)
    VALUES ($1, $2, $3, $4::json, now())
    RETURNING id
  )
  INSERT INTO webhook_deliveries (id, org_id, message_id, endpoint_id, status, attempt_count, next_attempt_at, created_at)
  SELECT t.delivery_id, $2, message.id, t.endpoint_id, 'pending', 0, now(), now()
  FROM message, unnest($5::text[], $6::text[]) AS t(delivery_id, endpoint_id)`;

/**
 * Writes a webhook to the outbox inside the caller's transaction: one message, and one delivery, due at once,
 * per enabled endpoint of the org subscribed to `type` (an endpoint with no `events` takes every kind). Nothing
 * is written when no endpoint takes it. `timestamp` is when the change happened. `onlyEndpointId` addresses
 * one endpoint whatever it subscribes to (the `ping` of `quotient webhooks test`).
 */
export async function enqueueWebhookEvent<Type extends WebhookMessageType>(
  tx: OutboxTransaction,
  orgId: string,
  type: Type,
  data: WebhookPayload<Type>['data'],
  options: { timestamp: Date; onlyEndpointId?: string },
): Promise<EnqueuedMessage | null> {
  const endpoints = await run<{ id: string }>(tx, 'webhooks_subscribed_endpoints', SUBSCRIBED_ENDPOINTS, [
    orgId,
    type,
    options.onlyEndpointId ?? null,
  ]);
  if (endpoints.length === 0) return null;
  const messageId = newId('msg');
  const endpointIds = endpoints.map((endpoint) => endpoint.id);
  const body = JSON.stringify({ type, timestamp: options.timestamp.toISOString(), data });
  await run(tx, 'webhooks_insert_message', INSERT_MESSAGE, [
    messageId,
    orgId,
    type,
    body,
    endpointIds.map(() => newId('dlv')),
    endpointIds,
  ]);
  return { message_id: messageId, endpoint_ids: endpointIds };
}

function run<Row>(tx: OutboxTransaction, name: string, text: string, values: unknown[]): Promise<Row[]> {
  if ('$queryRawUnsafe' in tx) return tx.$queryRawUnsafe<Row[]>(text, ...values);
  return tx.query<Row>({ name, text, values });
}
