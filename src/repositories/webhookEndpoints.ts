import { newId } from '../lib/ids.ts';
import { bumpConfigVersion } from './orgs.ts';
import { named, prismaOf, type Transaction } from './transaction.ts';
import { endWaitingDeliveries } from './webhookDeliveries.ts';

/** An endpoint as admins see it; the secrets never leave the repository except to sign. */
export interface WebhookEndpointRecord {
  id: string;
  org_id: string;
  url: string;
  /** Empty means every kind. */
  events: string[];
  enabled: boolean;
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
  /** Until then the secret replaced by the last rotation signs too. */
  previous_secret_expires_at: Date | null;
  created_at: Date;
}

const ENDPOINT_FIELDS = {
  id: true,
  org_id: true,
  url: true,
  events: true,
  enabled: true,
  disabled_at: true,
  disabled_reason: true,
  failing_since: true,
  previous_secret_expires_at: true,
  created_at: true,
} as const;

export async function createEndpoint(
  tx: Transaction,
  orgId: string,
  input: { url: string; events: string[]; secret: string },
): Promise<WebhookEndpointRecord> {
  const created = await prismaOf(tx).webhookEndpoint.create({
    data: { id: newId('wh'), org_id: orgId, url: input.url, events: input.events, secret: input.secret },
    select: ENDPOINT_FIELDS,
  });
  await bumpConfigVersion(tx, orgId);
  return created;
}

/** Oldest first; removed endpoints are left out. */
export async function listEndpoints(tx: Transaction, orgId: string): Promise<WebhookEndpointRecord[]> {
  return prismaOf(tx).webhookEndpoint.findMany({
    where: { org_id: orgId, removed_at: null },
    orderBy: { id: 'asc' },
    select: ENDPOINT_FIELDS,
  });
}

export async function findEndpoint(
  tx: Transaction,
  orgId: string,
  endpointId: string,
): Promise<WebhookEndpointRecord | null> {
  return prismaOf(tx).webhookEndpoint.findFirst({
    where: { id: endpointId, org_id: orgId, removed_at: null },
    select: ENDPOINT_FIELDS,
  });
}

/** An endpoint of the org that was removed already; null when there is none such. */
export async function findRemovedEndpoint(
  tx: Transaction,
  orgId: string,
  endpointId: string,
): Promise<WebhookEndpointRecord | null> {
  return prismaOf(tx).webhookEndpoint.findFirst({
    where: { id: endpointId, org_id: orgId, removed_at: { not: null } },
    select: ENDPOINT_FIELDS,
  });
}

/**
 * Removes an endpoint (kept, marked removed, for its delivery history) and ends its deliveries that wait
 * for a retry. Null when the org has no such endpoint.
 */
export async function removeEndpoint(
  tx: Transaction,
  orgId: string,
  endpointId: string,
  at: Date,
): Promise<WebhookEndpointRecord | null> {
  const { count } = await prismaOf(tx).webhookEndpoint.updateMany({
    where: { id: endpointId, org_id: orgId, removed_at: null },
    data: { removed_at: at, enabled: false },
  });
  if (count === 0) return null;
  await bumpConfigVersion(tx, orgId);
  await endWaitingDeliveries(prismaOf(tx), orgId, endpointId);
  return prismaOf(tx).webhookEndpoint.findUniqueOrThrow({
    where: { org_id_id: { org_id: orgId, id: endpointId } },
    select: ENDPOINT_FIELDS,
  });
}

/**
 * A new secret; the current one becomes the previous one and keeps signing until `previousExpiresAt` (a
 * secret replaced earlier stops at once). Null when the org has no such endpoint.
 */
export async function rotateSecret(
  tx: Transaction,
  orgId: string,
  endpointId: string,
  newSecret: string,
  previousExpiresAt: Date,
): Promise<WebhookEndpointRecord | null> {
  const rows = await prismaOf(tx).$queryRaw<{ id: string }[]>`
    UPDATE webhook_endpoints
    SET previous_secret = secret, secret = ${newSecret}, previous_secret_expires_at = ${previousExpiresAt}
    WHERE id = ${endpointId} AND org_id = ${orgId} AND removed_at IS NULL
    RETURNING id`;
  if (rows.length === 0) return null;
  return prismaOf(tx).webhookEndpoint.findUniqueOrThrow({
    where: { org_id_id: { org_id: orgId, id: endpointId } },
    select: ENDPOINT_FIELDS,
  });
}

/** Enables a disabled endpoint again; its run of failures starts afresh. */
export async function enableEndpoint(tx: Transaction, orgId: string, endpointId: string): Promise<boolean> {
  const { count } = await prismaOf(tx).webhookEndpoint.updateMany({
    where: { id: endpointId, org_id: orgId, removed_at: null, enabled: false },
    data: { enabled: true, disabled_at: null, disabled_reason: null, failing_since: null },
  });
  if (count > 0) await bumpConfigVersion(tx, orgId);
  return count > 0;
}

/** Whether the org has any webhook endpoint (enabled or not): without one, nothing needs announcing. */
export async function hasWebhookEndpoints(tx: Transaction, orgId: string): Promise<boolean> {
  const rows = await tx.query<{ found: boolean }>(
    named('earnings_has_webhook_endpoints', {
      text: 'SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE org_id = $1) AS found',
      values: [orgId],
    }),
  );
  return rows[0]?.found ?? false;
}

const SUBSCRIBED_ENDPOINTS = `
  SELECT id FROM webhook_endpoints
  WHERE org_id = $1 AND enabled AND removed_at IS NULL
    AND CASE WHEN $3::text IS NULL THEN cardinality(events) = 0 OR $2::text = ANY(events) ELSE id = $3::text END
  ORDER BY id`;

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
