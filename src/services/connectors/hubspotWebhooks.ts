import { checkSignatureV3, dealEventsOf } from '../../domain/connectors/hubspot.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { ConnectionAdmin } from './connectionAdmin.ts';
import { CrmRefusal } from './hubspotApi.ts';

export interface HubSpotWebhookRequest {
  orgId: string;
  connectionId: string;
  method: string;
  /** The URL as HubSpot called it (scheme, host, path and query): what its v3 signature covers. */
  uri: string;
  body: string;
  signature: string | undefined;
  timestamp: string | undefined;
}

/**
 * A batch of HubSpot's webhook events for one connection: its `X-HubSpot-Signature-v3` checked with the connection's
 * client secret (older than 5 minutes refused), then the deals it names read again from HubSpot and applied through
 * the deal-event pipeline before the answer, so that their earnings are in when HubSpot hears back. While the
 * connection is paused the deals are noted, applied on resume. HubSpot refusing the read answers 503, so that
 * HubSpot delivers the batch again (and the deals stay pending on the connection meanwhile).
 */
export class HubSpotWebhooks {
  readonly #connections: ConnectionAdmin;
  readonly #now: () => Date;

  constructor(connections: ConnectionAdmin, options: { now?: () => Date } = {}) {
    this.#connections = connections;
    this.#now = options.now ?? (() => new Date());
  }

  async receive(request: HubSpotWebhookRequest): Promise<void> {
    const target = await this.#connections.webhookTarget(request.orgId, request.connectionId);
    if (target?.connection.kind !== 'hubspot') throw new Refusal('not_found', 'no such connection');
    const check = checkSignatureV3({
      method: request.method,
      uri: request.uri,
      body: request.body,
      timestamp: request.timestamp,
      signature: request.signature,
      clientSecret: target.clientSecret,
      now: this.#now(),
    });
    if (check !== 'valid') {
      const reasons = {
        missing: 'X-HubSpot-Signature-v3 and X-HubSpot-Request-Timestamp are required',
        stale: 'X-HubSpot-Request-Timestamp is more than 5 minutes away',
        invalid: "X-HubSpot-Signature-v3 does not match the request under the app's client secret",
      } as const;
      throw new Refusal('unauthenticated', reasons[check]);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.body);
    } catch {
      throw new Refusal('invalid_json', 'the body is not JSON');
    }
    const events = dealEventsOf(parsed);
    if (events === null) throw new Refusal('invalid_body', 'the body is not a batch of HubSpot webhook events');
    try {
      await this.#connections.applyAnnounced(target.connection, events);
    } catch (error) {
      if (error instanceof CrmRefusal) {
        throw new Refusal('unavailable', `HubSpot refused the read of the deals: ${error.message}`, {
          retryAfterSeconds: 60,
          headers: { 'Retry-After': '60' },
        });
      }
      throw error;
    }
  }
}
