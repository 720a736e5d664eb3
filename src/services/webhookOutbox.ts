import type { webhooks } from '../../generated/openapi.ts';
import type { WebhookMessageType } from '../domain/webhooks/kinds.ts';
import { newId } from '../lib/ids.ts';
import type { Transaction } from '../repositories/transaction.ts';
import * as webhookDeliveries from '../repositories/webhookDeliveries.ts';
import * as webhookEndpoints from '../repositories/webhookEndpoints.ts';

// The outbox: a webhook is written in the same transaction as the change it announces,
// one message and a delivery per subscribed endpoint, so a committed change is always announced and a
// rolled-back one never is. The worker (src/webhooks/worker.ts) delivers from there. What each change
// announces: src/services/webhookAnnouncements.ts.

/** The payload `{ type, timestamp, data }` of each kind, as the contract's `webhooks:` section has it. */
export type WebhookPayload<Type extends WebhookMessageType> =
  webhooks[Type]['post']['requestBody']['content']['application/json'];

export interface EnqueuedMessage {
  message_id: string;
  endpoint_ids: string[];
}

/**
 * Writes a webhook to the outbox inside the caller's transaction: one message, and one delivery, due at once,
 * per enabled endpoint of the org subscribed to `type` (an endpoint with no `events` takes every kind). Nothing
 * is written when no endpoint takes it. `timestamp` is when the change happened. `onlyEndpointId` addresses
 * one endpoint whatever it subscribes to (the `ping` of `quotient webhooks test`).
 */
export async function enqueueWebhookEvent<Type extends WebhookMessageType>(
  tx: Transaction,
  orgId: string,
  type: Type,
  data: WebhookPayload<Type>['data'],
  options: { timestamp: Date; onlyEndpointId?: string; endpointIds?: readonly string[] },
): Promise<EnqueuedMessage | null> {
  // The caller may already know the subscribed endpoints (a deal event, from OrgConfigCache).
  const endpointIds = options.endpointIds
    ? [...options.endpointIds]
    : await webhookEndpoints.subscribedEndpoints(tx, orgId, type, options.onlyEndpointId ?? null);
  if (endpointIds.length === 0) return null;
  const messageId = newId('msg');
  const body = JSON.stringify({ type, timestamp: options.timestamp.toISOString(), data });
  await webhookDeliveries.insertMessage(tx, { messageId, orgId, type, body, endpointIds });
  return { message_id: messageId, endpoint_ids: endpointIds };
}
