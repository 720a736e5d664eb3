import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { Refusal } from '../domain/refusal.ts';
import { checkEndpointUrl } from '../domain/webhooks/addresses.ts';
import { parseEventKinds } from '../domain/webhooks/kinds.ts';
import { generateWebhookSecret } from '../domain/webhooks/signature.ts';
import { hasPrefix } from '../lib/ids.ts';
import * as audit from '../repositories/audit.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import type { WebhookDeliveryRecord } from '../repositories/webhookDeliveries.ts';
import * as webhookDeliveries from '../repositories/webhookDeliveries.ts';
import type { WebhookEndpointRecord } from '../repositories/webhookEndpoints.ts';
import * as webhookEndpoints from '../repositories/webhookEndpoints.ts';
import { type EnqueuedMessage, enqueueWebhookEvent } from './webhookOutbox.ts';

/** How long the secret replaced by a rotation keeps signing: time to deploy the new one to the receivers. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export const DELIVERIES_LIMIT_DEFAULT = 20;
const DELIVERIES_LIMIT_MAX = 200;

export interface EndpointWithSecret {
  endpoint: WebhookEndpointRecord;
  /** Shown once. */
  secret: string;
}

export interface RedeliveryResult {
  message_id: string;
  /** The deliveries made due now, with their status before. */
  redelivered: { endpoint_id: string; previous_status: string }[];
}

/** Admin operations on webhook endpoints; each change is one transaction with its audit entry. */
export class WebhookAdmin {
  private readonly db: Transactor;
  private readonly allowPrivateAddresses: boolean;

  readonly #statements: Transaction;

  constructor(db: Transactor, options: { allowPrivateAddresses: boolean }) {
    this.db = db;
    this.#statements = db.statements;
    this.allowPrivateAddresses = options.allowPrivateAddresses;
  }

  async add(
    input: { orgId: string; url: string; events?: string },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<EndpointWithSecret> {
    const checked = checkEndpointUrl(input.url, { allowPrivate: this.allowPrivateAddresses });
    if ('error' in checked) throw new Refusal('invalid_body', checked.error);
    const parsed = parseEventKinds(input.events);
    if ('error' in parsed) throw new Refusal('invalid_body', parsed.error);
    await this.requireOrg(input.orgId);
    const secret = generateWebhookSecret();
    const endpoint = await this.db.run(async (tx) => {
      const created = await webhookEndpoints.createEndpoint(tx, input.orgId, {
        url: checked.url,
        events: parsed.kinds,
        secret,
      });
      await this.record(
        tx,
        input.orgId,
        'webhook.added',
        {
          endpoint_id: created.id,
          url: created.url,
          events: created.events,
        },
        actor,
      );
      return created;
    });
    return { endpoint, secret };
  }

  async list(orgId: string): Promise<WebhookEndpointRecord[]> {
    await this.requireOrg(orgId);
    return webhookEndpoints.listEndpoints(this.#statements, orgId);
  }

  /** Stops all sending to the endpoint; its delivery history is kept. Idempotent: `changed` is false when it was removed already. */
  async remove(
    orgId: string,
    endpointId: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ endpoint: WebhookEndpointRecord; changed: boolean }> {
    await this.requireOrg(orgId);
    return this.db.run(async (tx) => {
      const removed = await webhookEndpoints.removeEndpoint(tx, orgId, endpointId, new Date());
      if (!removed) {
        const already = await webhookEndpoints.findRemovedEndpoint(tx, orgId, endpointId);
        if (!already) throw this.noEndpoint(orgId, endpointId);
        return { endpoint: already, changed: false };
      }
      await this.record(tx, orgId, 'webhook.removed', { endpoint_id: endpointId, url: removed.url }, actor);
      return { endpoint: removed, changed: true };
    });
  }

  /** A new secret, shown once; the old one keeps signing too for ROTATION_OVERLAP_MS. */
  async rotateSecret(orgId: string, endpointId: string, actor: AdminActor = CLI_ACTOR): Promise<EndpointWithSecret> {
    await this.requireOrg(orgId);
    const secret = generateWebhookSecret();
    const endpoint = await this.db.run(async (tx) => {
      const expiresAt = new Date(Date.now() + ROTATION_OVERLAP_MS);
      const rotated = await webhookEndpoints.rotateSecret(tx, orgId, endpointId, secret, expiresAt);
      if (!rotated) throw this.noEndpoint(orgId, endpointId);
      await this.record(
        tx,
        orgId,
        'webhook.secret_rotated',
        {
          endpoint_id: endpointId,
          previous_secret_expires_at: expiresAt.toISOString(),
        },
        actor,
      );
      return rotated;
    });
    return { endpoint, secret };
  }

  /** Enables an endpoint that was disabled (after a `410` or 5 days of failures); idempotent. */
  async enable(
    orgId: string,
    endpointId: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ endpoint: WebhookEndpointRecord; changed: boolean }> {
    await this.requireOrg(orgId);
    return this.db.run(async (tx) => {
      const changed = await webhookEndpoints.enableEndpoint(tx, orgId, endpointId);
      if (changed) await this.record(tx, orgId, 'webhook.enabled', { endpoint_id: endpointId }, actor);
      const endpoint = await this.requireEndpoint(orgId, endpointId, tx);
      return { endpoint, changed };
    });
  }

  /** Sends a `ping` to the endpoint (whatever kinds it subscribes to). */
  async test(orgId: string, endpointId: string, actor: AdminActor = CLI_ACTOR): Promise<EnqueuedMessage> {
    await this.requireOrg(orgId);
    const endpoint = await this.requireEndpoint(orgId, endpointId);
    if (!endpoint.enabled) throw this.disabled(orgId, endpoint);
    return this.db.run(async (tx) => {
      const enqueued = await enqueueWebhookEvent(
        tx,
        orgId,
        'ping',
        { endpoint_id: endpointId },
        { timestamp: new Date(), onlyEndpointId: endpointId },
      );
      if (!enqueued) throw this.disabled(orgId, endpoint);
      await this.record(
        tx,
        orgId,
        'webhook.test_sent',
        { endpoint_id: endpointId, message_id: enqueued.message_id },
        actor,
      );
      return enqueued;
    });
  }

  async deliveries(orgId: string, endpointId: string, limit?: string): Promise<WebhookDeliveryRecord[]> {
    const count = limit === undefined ? DELIVERIES_LIMIT_DEFAULT : Number(limit);
    if (!Number.isInteger(count) || count < 1 || count > DELIVERIES_LIMIT_MAX) {
      throw new Refusal('invalid_body', `--limit must be an integer from 1 to ${DELIVERIES_LIMIT_MAX}`);
    }
    await this.requireOrg(orgId);
    await this.requireEndpoint(orgId, endpointId);
    return webhookDeliveries.listDeliveries(this.#statements, orgId, endpointId, count);
  }

  /**
   * A new attempt now for a message, to each enabled endpoint it went to (or only `endpointId`): a delivery
   * waiting for a retry is brought forward; a delivered or failed one gets one more attempt, outside the
   * retry schedule. Receivers deduplicate on `webhook-id`, which stays the message id.
   */
  async redeliver(
    orgId: string,
    messageId: string,
    endpointId?: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<RedeliveryResult> {
    if (!hasPrefix(messageId, 'msg')) {
      throw new Refusal('invalid_body', `${JSON.stringify(messageId)} is not a message id (msg_…)`);
    }
    await this.requireOrg(orgId);
    if (!(await webhookDeliveries.messageExists(this.#statements, orgId, messageId))) {
      throw new Refusal('not_found', `org ${orgId} has no webhook message ${messageId}`);
    }
    if (endpointId !== undefined) {
      const endpoint = await this.requireEndpoint(orgId, endpointId);
      if (!endpoint.enabled) throw this.disabled(orgId, endpoint);
    }
    return this.db.run(async (tx) => {
      const redelivered = await webhookDeliveries.requestRedelivery(
        tx,
        orgId,
        messageId,
        endpointId === undefined ? null : [endpointId],
      );
      if (redelivered.length === 0) {
        throw new Refusal(
          'invalid_state',
          `message ${messageId} has no delivery that can be attempted now: its endpoints are disabled or removed, or an attempt is in flight`,
        );
      }
      await this.record(
        tx,
        orgId,
        'webhook.redelivery_requested',
        {
          message_id: messageId,
          endpoint_ids: redelivered.map((delivery) => delivery.endpoint_id),
        },
        actor,
      );
      return { message_id: messageId, redelivered };
    });
  }

  private async requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }

  private async requireEndpoint(
    orgId: string,
    endpointId: string,
    tx: Transaction = this.#statements,
  ): Promise<WebhookEndpointRecord> {
    const endpoint = await webhookEndpoints.findEndpoint(tx, orgId, endpointId);
    if (!endpoint) throw this.noEndpoint(orgId, endpointId);
    return endpoint;
  }

  private noEndpoint(orgId: string, endpointId: string): Refusal {
    return new Refusal('not_found', `org ${orgId} has no webhook endpoint ${endpointId}`);
  }

  private disabled(orgId: string, endpoint: WebhookEndpointRecord): Refusal {
    return new Refusal(
      'invalid_state',
      `endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason ?? 'no reason recorded'}); enable it first: quotient webhooks enable ${endpoint.id} --org ${orgId}`,
    );
  }

  private async record(
    tx: Transaction,
    orgId: string,
    action: string,
    details: Record<string, unknown>,
    actor: AdminActor,
  ): Promise<void> {
    await audit.insertMany(tx, [adminAuditEntry(orgId, action, details, actor)]);
  }
}
