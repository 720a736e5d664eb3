import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A HubSpot portal as HubSpot's public API reference describes it, on a real HTTP server the tests start: the OAuth
// 2.0 authorization-code flow with refresh tokens (`/oauth/authorize`, `POST /oauth/v1/token`,
// `GET /oauth/v1/access-tokens/{token}`), the CRM v3 objects API for deals (`GET /crm/v3/objects/deals` paged with
// `after`, `POST /crm/v3/objects/deals/batch/read`), the pipelines API (`/crm/v3/pipelines/deals`), the owners API
// (`/crm/v3/owners`) and webhooks (batches of events signed with `X-HubSpot-Signature-v3`). Quotient talks to it
// through `@hubspot/api-client`, given the simulator's URL as its base path; only the far end is ours.

export interface SimulatedDeal {
  id: string;
  properties: Record<string, string | null>;
  archived: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface SimulatedStage {
  id: string;
  label: string;
  isClosed: boolean;
  probability: number;
}

export interface SimulatedOwner {
  id: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

export interface WebhookEvent {
  objectId: number;
  subscriptionType: 'deal.creation' | 'deal.propertyChange' | 'deal.deletion' | 'deal.restore';
  propertyName?: string;
  propertyValue?: string;
  occurredAt: number;
}

interface Token {
  access: string;
  refresh: string;
  expiresAt: number;
}

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

const DEFAULT_PIPELINES = [
  {
    id: 'default',
    label: 'Sales Pipeline',
    stages: [
      { id: 'appointmentscheduled', label: 'Appointment Scheduled', isClosed: false, probability: 0.2 },
      { id: 'contractsent', label: 'Contract Sent', isClosed: false, probability: 0.8 },
      { id: 'closedwon', label: 'Closed Won', isClosed: true, probability: 1 },
      { id: 'closedlost', label: 'Closed Lost', isClosed: true, probability: 0 },
    ],
  },
  {
    id: '7654321',
    label: 'Renewals',
    stages: [
      { id: '1100001', label: 'Renewal Due', isClosed: false, probability: 0.5 },
      { id: '1100002', label: 'Renewed', isClosed: true, probability: 1 },
      { id: '1100003', label: 'Churned', isClosed: true, probability: 0 },
    ],
  },
];

export async function startHubSpotSimulator(): Promise<HubSpotSimulator> {
  const codes = new Map<string, { redirectUri: string }>();
  const tokens: Token[] = [];
  const failures: Array<{ status: number; message: string; category: string }> = [];
  const simulator = {
    url: '',
    portalId: 44_455_566,
    clientId: `client-${randomBytes(4).toString('hex')}`,
    clientSecret: `secret-${randomBytes(8).toString('hex')}`,
    deals: new Map<string, SimulatedDeal>(),
    owners: [] as SimulatedOwner[],
    pipelines: structuredClone(DEFAULT_PIPELINES),
    tokenLifetimeSeconds: 1800,
    grants: [] as string[],
    bearers: [] as string[],
  };

  const issue = (): Token => {
    const token = {
      access: `at-${randomBytes(12).toString('hex')}`,
      refresh: `rt-${randomBytes(12).toString('hex')}`,
      expiresAt: Date.now() + simulator.tokenLifetimeSeconds * 1000,
    };
    tokens.push(token);
    return token;
  };

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json;charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const hubspotError = (res: ServerResponse, status: number, message: string, category: string) =>
    json(res, status, { status: 'error', message, correlationId: randomBytes(8).toString('hex'), category });

  const dealView = (deal: SimulatedDeal, properties: string[]) => ({
    id: deal.id,
    properties: Object.fromEntries(
      [...new Set(['hs_object_id', 'createdate', 'hs_lastmodifieddate', ...properties])].map((name) => [
        name,
        name === 'hs_object_id' ? deal.id : (deal.properties[name] ?? null),
      ]),
    ),
    createdAt: deal.createdAt,
    updatedAt: deal.updatedAt,
    archived: deal.archived,
    ...(deal.archived ? { archivedAt: deal.updatedAt } : {}),
  });

  const readBody = async (req: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', simulator.url);
    // HubSpot serves its paths with or without a trailing slash (the client library asks for `/crm/v3/owners/`).
    if (url.pathname.length > 1) url.pathname = url.pathname.replace(/\/+$/, '');
    const body = await readBody(req);
    if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
      // The portal's admin consents at once: HubSpot's redirect back to the app with a code and the state.
      if (url.searchParams.get('client_id') !== simulator.clientId) return json(res, 400, { message: 'unknown app' });
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      const code = randomBytes(12).toString('hex');
      codes.set(code, { redirectUri });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (req.method === 'POST' && url.pathname === '/oauth/v1/token') {
      const form = new URLSearchParams(body);
      simulator.grants.push(form.get('grant_type') ?? '');
      if (form.get('client_id') !== simulator.clientId || form.get('client_secret') !== simulator.clientSecret) {
        return json(res, 400, { status: 'BAD_CLIENT_ID', message: 'missing or unknown client id' });
      }
      if (form.get('grant_type') === 'authorization_code') {
        const code = codes.get(form.get('code') ?? '');
        if (!code) return json(res, 400, { status: 'BAD_AUTH_CODE', message: 'missing or unknown auth code' });
        if (code.redirectUri !== form.get('redirect_uri')) {
          return json(res, 400, { status: 'BAD_REDIRECT_URI', message: 'redirect_uri does not match' });
        }
        codes.delete(form.get('code') ?? '');
      } else if (form.get('grant_type') === 'refresh_token') {
        const old = tokens.find((token) => token.refresh === form.get('refresh_token'));
        if (!old) return json(res, 400, { status: 'BAD_REFRESH_TOKEN', message: 'missing or unknown refresh token' });
      } else return json(res, 400, { status: 'BAD_GRANT_TYPE', message: 'unknown grant type' });
      const token = issue();
      return json(res, 200, {
        token_type: 'bearer',
        refresh_token: token.refresh,
        access_token: token.access,
        expires_in: simulator.tokenLifetimeSeconds,
      });
    }
    const tokenInfo = /^\/oauth\/v1\/access-tokens\/(.+)$/.exec(url.pathname);
    if (req.method === 'GET' && tokenInfo) {
      const token = tokens.find((candidate) => candidate.access === decodeURIComponent(tokenInfo[1] as string));
      if (!token) return hubspotError(res, 404, 'Token not found', 'OBJECT_NOT_FOUND');
      return json(res, 200, {
        token: token.access,
        user: 'admin@portal.example',
        hub_domain: 'portal.example',
        scopes: ['oauth', 'crm.objects.deals.read', 'crm.objects.owners.read'],
        hub_id: simulator.portalId,
        app_id: 1234567,
        expires_in: Math.max(0, Math.round((token.expiresAt - Date.now()) / 1000)),
        user_id: 9001,
        token_type: 'access',
      });
    }

    // The CRM API: a bearer token of the portal's, unexpired.
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    simulator.bearers.push(bearer ?? '');
    const failure = failures.shift();
    if (failure) return hubspotError(res, failure.status, failure.message, failure.category);
    const token = tokens.find((candidate) => candidate.access === bearer);
    if (!token) {
      return hubspotError(
        res,
        401,
        'Authentication credentials not found. This API supports OAuth 2.0 authentication.',
        'INVALID_AUTHENTICATION',
      );
    }
    if (token.expiresAt <= Date.now()) {
      return hubspotError(res, 401, 'The OAuth token used to make this call expired.', 'EXPIRED_AUTHENTICATION');
    }
    // Listed comma-separated or as the parameter repeated (as the client library sends an array): HubSpot takes both.
    const properties = url.searchParams
      .getAll('properties')
      .flatMap((value) => value.split(','))
      .filter(Boolean);
    if (req.method === 'GET' && url.pathname === '/crm/v3/objects/deals') {
      const archived = url.searchParams.get('archived') === 'true';
      const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 10));
      const after = url.searchParams.get('after');
      const all = [...simulator.deals.values()]
        .filter((deal) => deal.archived === archived)
        .sort((a, b) => Number(a.id) - Number(b.id));
      const start = after === null ? 0 : all.findIndex((deal) => Number(deal.id) > Number(after));
      const page = start < 0 ? [] : all.slice(start, start + limit);
      const last = page.at(-1);
      const more = last !== undefined && start + limit < all.length;
      return json(res, 200, {
        results: page.map((deal) => dealView(deal, properties)),
        ...(more
          ? {
              paging: {
                next: { after: last.id, link: `${simulator.url}/crm/v3/objects/deals?after=${last.id}` },
              },
            }
          : {}),
      });
    }
    if (req.method === 'POST' && url.pathname === '/crm/v3/objects/deals/batch/read') {
      const request = JSON.parse(body) as { inputs: Array<{ id: string }>; properties?: string[] };
      const archived = url.searchParams.get('archived') === 'true';
      const found = request.inputs
        .map((input) => simulator.deals.get(input.id))
        .filter((deal): deal is SimulatedDeal => deal !== undefined && deal.archived === archived);
      const missing = request.inputs.filter((input) => !found.some((deal) => deal.id === input.id));
      const now = new Date().toISOString();
      return json(res, missing.length > 0 ? 207 : 200, {
        status: 'COMPLETE',
        results: found.map((deal) => dealView(deal, request.properties ?? [])),
        startedAt: now,
        completedAt: now,
        ...(missing.length > 0
          ? {
              numErrors: 1,
              errors: [
                {
                  status: 'error',
                  category: 'OBJECT_NOT_FOUND',
                  message: 'Could not get some DEAL objects, they may be deleted or not exist.',
                  context: { ids: missing.map((input) => input.id) },
                },
              ],
            }
          : {}),
      });
    }
    if (req.method === 'GET' && url.pathname === '/crm/v3/pipelines/deals') {
      const now = new Date().toISOString();
      return json(res, 200, {
        results: simulator.pipelines.map((pipeline, order) => ({
          id: pipeline.id,
          label: pipeline.label,
          displayOrder: order,
          archived: false,
          createdAt: now,
          updatedAt: now,
          stages: pipeline.stages.map((stage, stageOrder) => ({
            id: stage.id,
            label: stage.label,
            displayOrder: stageOrder,
            archived: false,
            createdAt: now,
            updatedAt: now,
            writePermissions: 'CRM_PERMISSIONS_ENFORCEMENT',
            metadata: { isClosed: String(stage.isClosed), probability: stage.probability.toFixed(1) },
          })),
        })),
      });
    }
    if (req.method === 'GET' && url.pathname === '/crm/v3/owners') {
      const now = new Date().toISOString();
      return json(res, 200, {
        results: simulator.owners.map((owner, index) => ({
          id: owner.id,
          email: owner.email,
          type: 'PERSON',
          firstName: owner.firstName ?? '',
          lastName: owner.lastName ?? '',
          userId: 100 + index,
          createdAt: now,
          updatedAt: now,
          archived: false,
        })),
      });
    }
    return hubspotError(res, 404, `Unable to route ${req.method} ${url.pathname}`, 'OBJECT_NOT_FOUND');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  simulator.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  let clock = Date.now();
  const stamp = (at?: Date) => {
    // Modification times strictly increase, as HubSpot's do for one record.
    clock = Math.max(clock + 1, at?.getTime() ?? Date.now());
    return new Date(clock).toISOString();
  };

  return {
    ...simulator,
    get url() {
      return simulator.url;
    },
    get tokenLifetimeSeconds() {
      return simulator.tokenLifetimeSeconds;
    },
    set tokenLifetimeSeconds(value: number) {
      simulator.tokenLifetimeSeconds = value;
    },
    failNext(status, message, category, times = 1) {
      for (let i = 0; i < times; i++) failures.push({ status, message, category });
    },
    putDeal(id, properties, at) {
      const modified = stamp(at);
      const existing = simulator.deals.get(id);
      const deal: SimulatedDeal = {
        id,
        properties: { ...(existing?.properties ?? { createdate: modified }), ...properties },
        archived: false,
        createdAt: existing?.createdAt ?? modified,
        updatedAt: modified,
      };
      deal.properties.hs_lastmodifieddate = modified;
      simulator.deals.set(id, deal);
      return deal;
    },
    archiveDeal(id, at) {
      const deal = simulator.deals.get(id);
      if (!deal) throw new Error(`no deal ${id}`);
      deal.archived = true;
      deal.updatedAt = stamp(at);
    },
    reset() {
      simulator.deals.clear();
      simulator.owners.length = 0;
      simulator.grants.length = 0;
      simulator.bearers.length = 0;
      failures.length = 0;
      simulator.tokenLifetimeSeconds = 1800;
    },
    async sendWebhook(url, events, options = {}) {
      const body = JSON.stringify(
        events.map((event, index) => ({
          eventId: Number(`${Date.now() % 1_000_000}${index}`),
          subscriptionId: 2_400_001,
          portalId: simulator.portalId,
          appId: 1_234_567,
          attemptNumber: 0,
          changeSource: 'CRM_UI',
          ...event,
        })),
      );
      const timestamp = String(options.timestamp ?? Date.now());
      const signature = createHmac('sha256', options.secret ?? simulator.clientSecret)
        .update(`POST${url}${body}${timestamp}`)
        .digest('base64');
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hubspot-signature-v3': signature,
          'x-hubspot-request-timestamp': timestamp,
        },
        body,
      });
      return { status: response.status, body: await response.text() };
    },
    async consent(authorizeUrl) {
      const url = new URL(authorizeUrl);
      if (url.searchParams.get('client_id') !== simulator.clientId) throw new Error('unknown client id');
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      const code = randomBytes(12).toString('hex');
      codes.set(code, { redirectUri });
      return { code, state: url.searchParams.get('state') ?? '', redirectUri };
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  } satisfies HubSpotSimulator as HubSpotSimulator;
}
