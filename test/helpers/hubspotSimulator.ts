import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerCrm } from './hubspotSimulator/crm.ts';
import { answerOAuth, consentCode } from './hubspotSimulator/oauth.ts';
import {
  DEFAULT_PIPELINES,
  type Portal,
  type SimulatedDeal,
  type SimulatedOwner,
  type SimulatedStage,
  type WebhookEvent,
} from './hubspotSimulator/portal.ts';
import { sendSignedWebhook } from './hubspotSimulator/webhooks.ts';

// A HubSpot portal as HubSpot's public API reference describes it, on a real HTTP server the tests start: the OAuth
// 2.0 authorization-code flow with refresh tokens (`/oauth/authorize`, `POST /oauth/v1/token`,
// `GET /oauth/v1/access-tokens/{token}`), the CRM v3 objects API for deals (`GET /crm/v3/objects/deals` paged with
// `after`, `POST /crm/v3/objects/deals/batch/read`), the pipelines API (`/crm/v3/pipelines/deals`), the owners API
// (`/crm/v3/owners`) and webhooks (batches of events signed with `X-HubSpot-Signature-v3`). Quotient talks to it
// through `@hubspot/api-client`, given the simulator's URL as its base path; only the far end is ours.

//
// One module per job under hubspotSimulator/: portal.ts the state its parts share and HubSpot's answers, oauth.ts
// the OAuth server, crm.ts the CRM API, webhooks.ts the signed webhook batches; here the server and its controls.

export type { SimulatedDeal, SimulatedOwner, SimulatedStage, WebhookEvent };

export interface HubSpotSimulator {
  url: string;
  portalId: number;
  clientId: string;
  clientSecret: string;
  deals: Map<string, SimulatedDeal>;
  owners: SimulatedOwner[];
  pipelines: Array<{ id: string; label: string; stages: SimulatedStage[] }>;
  /** Seconds an access token lives (HubSpot's are 30 minutes). */
  tokenLifetimeSeconds: number;
  /** Every token request's grant type, in order. */
  grants: string[];
  /** The bearer token of every CRM API request, in order. */
  bearers: string[];
  /** The next CRM API requests answer this status and HubSpot's error body, `times` times. */
  failNext(status: number, message: string, category: string, times?: number): void;
  /** The next CRM API requests answer HubSpot's 429 of its secondly limit, with `Retry-After` seconds. */
  rateLimitNext(times: number, retryAfterSeconds: number): void;
  /** The portal's daily limit's calls left (each CRM API request takes one). */
  dailyRemaining: number;
  /** Every search request's body, in order. */
  searches: unknown[];
  /** Restores an archived deal (HubSpot's restore): live again, modified now. */
  restoreDeal(id: string, at?: Date): SimulatedDeal;
  /** Merges `mergedId` into `primaryId` as HubSpot does: the merged deal is gone, the primary modified. */
  mergeDeals(primaryId: string, mergedId: string, at?: Date): SimulatedDeal;
  /** Adds or changes a deal as a user would in HubSpot (its `hs_lastmodifieddate` moves on). */
  putDeal(id: string, properties: Record<string, string | null>, at?: Date): SimulatedDeal;
  /** Archives a deal (HubSpot's deletion). */
  archiveDeal(id: string, at?: Date): void;
  /** Forgets the deals, owners, failures and the requests seen (the tokens issued stay valid). */
  reset(): void;
  /** POSTs a batch of events to `url`, signed with the app's client secret as HubSpot signs (v3). */
  sendWebhook(
    url: string,
    events: WebhookEvent[],
    options?: { secret?: string; timestamp?: number },
  ): Promise<{ status: number; body: string }>;
  /** The authorization URL's consent: what HubSpot's redirect to the app's redirect URL carries. */
  consent(authorizeUrl: string): Promise<{ code: string; state: string; redirectUri: string }>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startHubSpotSimulator(): Promise<HubSpotSimulator> {
  const portal: Portal = {
    url: '',
    portalId: 44_455_566,
    clientId: `client-${randomBytes(4).toString('hex')}`,
    clientSecret: `secret-${randomBytes(8).toString('hex')}`,
    deals: new Map<string, SimulatedDeal>(),
    owners: [],
    pipelines: structuredClone(DEFAULT_PIPELINES),
    tokenLifetimeSeconds: 1800,
    grants: [],
    bearers: [],
    codes: new Map(),
    tokens: [],
    failures: [],
    dailyLimit: 250_000,
    dailyRemaining: 250_000,
    searches: [],
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', portal.url);
    // HubSpot serves its paths with or without a trailing slash (the client library asks for `/crm/v3/owners/`).
    if (url.pathname.length > 1) url.pathname = url.pathname.replace(/\/+$/, '');
    const body = await readBody(req);
    if (!answerOAuth(portal, req, url, body, res)) answerCrm(portal, req, url, body, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  portal.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let clock = Date.now();
  const stamp = (at?: Date) => {
    // Modification times strictly increase, as HubSpot's do for one record.
    clock = Math.max(clock + 1, at?.getTime() ?? Date.now());
    return new Date(clock).toISOString();
  };

  // The portal's own collections, shared (a test reads and changes them); its codes, tokens and failures stay inside.
  const { portalId, clientId, clientSecret, deals, owners, pipelines, grants, bearers } = portal;
  return {
    portalId,
    clientId,
    clientSecret,
    deals,
    owners,
    pipelines,
    grants,
    bearers,
    get url() {
      return portal.url;
    },
    get tokenLifetimeSeconds() {
      return portal.tokenLifetimeSeconds;
    },
    set tokenLifetimeSeconds(value: number) {
      portal.tokenLifetimeSeconds = value;
    },
    failNext(status, message, category, times = 1) {
      for (let i = 0; i < times; i++) portal.failures.push({ status, message, category });
    },
    rateLimitNext(times, retryAfterSeconds) {
      for (let i = 0; i < times; i++) {
        portal.failures.push({
          status: 429,
          message: 'You have reached your secondly limit.',
          category: 'RATE_LIMITS',
          retryAfter: retryAfterSeconds,
        });
      }
    },
    get dailyRemaining() {
      return portal.dailyRemaining;
    },
    set dailyRemaining(value: number) {
      portal.dailyRemaining = value;
    },
    searches: portal.searches,
    restoreDeal(id, at) {
      const deal = portal.deals.get(id);
      if (!deal?.archived) throw new Error(`no archived deal ${id}`);
      deal.archived = false;
      deal.updatedAt = stamp(at);
      deal.properties.hs_lastmodifieddate = deal.updatedAt;
      return deal;
    },
    mergeDeals(primaryId, mergedId, at) {
      const primary = portal.deals.get(primaryId);
      if (!primary || !portal.deals.has(mergedId)) throw new Error(`no deals ${primaryId} and ${mergedId}`);
      // A merged deal is not archived (it cannot be restored): it is gone, its id answers for the primary.
      portal.deals.delete(mergedId);
      primary.updatedAt = stamp(at);
      primary.properties.hs_lastmodifieddate = primary.updatedAt;
      return primary;
    },
    putDeal(id, properties, at) {
      const modified = stamp(at);
      const existing = portal.deals.get(id);
      const deal: SimulatedDeal = {
        id,
        properties: { ...(existing?.properties ?? { createdate: modified }), ...properties },
        archived: false,
        createdAt: existing?.createdAt ?? modified,
        updatedAt: modified,
      };
      deal.properties.hs_lastmodifieddate = modified;
      portal.deals.set(id, deal);
      return deal;
    },
    archiveDeal(id, at) {
      const deal = portal.deals.get(id);
      if (!deal) throw new Error(`no deal ${id}`);
      deal.archived = true;
      deal.updatedAt = stamp(at);
    },
    reset() {
      portal.deals.clear();
      portal.owners.length = 0;
      portal.grants.length = 0;
      portal.bearers.length = 0;
      portal.failures.length = 0;
      portal.searches.length = 0;
      portal.dailyRemaining = portal.dailyLimit;
      portal.tokenLifetimeSeconds = 1800;
    },
    sendWebhook: (url, events, options = {}) => sendSignedWebhook(portal, url, events, options),
    async consent(authorizeUrl) {
      const url = new URL(authorizeUrl);
      if (url.searchParams.get('client_id') !== portal.clientId) throw new Error('unknown client id');
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      return { code: consentCode(portal, redirectUri), state: url.searchParams.get('state') ?? '', redirectUri };
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  } satisfies HubSpotSimulator as HubSpotSimulator;
}
