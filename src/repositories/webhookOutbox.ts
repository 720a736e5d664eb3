import { newId } from '../lib/ids.ts';
import { named, type Transaction } from './transaction.ts';

// The outbox's statements (src/services/webhookOutbox.ts), run inside the transaction of the change they
// announce, whichever runner opened it.

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

/** The org's enabled endpoints subscribed to `type`, or only `onlyEndpointId` when given; in id order. */
export async function subscribedEndpoints(
  tx: Transaction,
  orgId: string,
  type: string,
  onlyEndpointId: string | null,
): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    named('webhooks_subscribed_endpoints', { text: SUBSCRIBED_ENDPOINTS, values: [orgId, type, onlyEndpointId] }),
  );
  return rows.map((row) => row.id);
}

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
