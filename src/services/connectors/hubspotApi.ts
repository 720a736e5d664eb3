import { Client } from '@hubspot/api-client';
import type { HubSpotDeal, PipelineStage } from '../../domain/connectors/hubspot.ts';
import { stagesOf } from '../../domain/connectors/hubspot.ts';
import { CrmRefusal } from './crmRefusal.ts';

export { CrmRefusal };

// HubSpot's APIs as the connector calls them, through HubSpot's own client library (`@hubspot/api-client`) pointed at
// the configured base URL: the OAuth token endpoint, the access-token info, the CRM v3 deals (paged, batch read),
// pipelines and owners. A refusal of HubSpot's becomes a `CrmRefusal` carrying HubSpot's own status and message.

/** Where HubSpot is: its API and its authorization page (docs/connectors.md; tests point them at a simulator). */
export interface HubSpotEndpoints {
  apiUrl: string;
  authorizeUrl: string;
}

/** The OAuth app of a connection. */
export interface HubSpotApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

export interface Tokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
}

/** The scopes the connector asks for: reading deals and owners (pipelines come with the deals scope). */
export const HUBSPOT_SCOPES = ['oauth', 'crm.objects.deals.read', 'crm.objects.owners.read'];

/** HubSpot's batch read takes at most 100 ids; its list pages at most 100 records. */
export const HUBSPOT_PAGE = 100;

/** The URL that asks the portal's admin to grant the app access, with the state handed back to the redirect. */
export function authorizationUrl(endpoints: HubSpotEndpoints, app: HubSpotApp, state: string): string {
  const url = new URL(endpoints.authorizeUrl);
  url.searchParams.set('client_id', app.clientId);
  url.searchParams.set('redirect_uri', app.redirectUri);
  url.searchParams.set('scope', HUBSPOT_SCOPES.join(' '));
  url.searchParams.set('state', state);
  return url.toString();
}

function client(endpoints: HubSpotEndpoints, accessToken?: string): Client {
  // No retries inside the library: a refused call is recorded on the connection and its records read again later.
  return new Client({ basePath: endpoints.apiUrl, numberOfApiCallRetries: 0, ...(accessToken ? { accessToken } : {}) });
}

async function call<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw refusalOf(error);
  }
}

function refusalOf(error: unknown): CrmRefusal {
  if (error instanceof CrmRefusal) return error;
  const failed = error as { code?: unknown; body?: unknown; message?: unknown };
  if (typeof failed.code === 'number') {
    const body = (typeof failed.body === 'object' && failed.body !== null ? failed.body : {}) as Record<
      string,
      unknown
    >;
    const message = typeof body.message === 'string' ? body.message : String(failed.message ?? 'no message');
    const category = typeof body.category === 'string' ? body.category : body.status;
    return new CrmRefusal(
      `HubSpot answered ${failed.code}${typeof category === 'string' ? ` ${category}` : ''}: ${message}`,
      failed.code,
    );
  }
  return new CrmRefusal(`HubSpot could not be reached: ${String(failed.message ?? error)}`);
}

function tokensOf(response: { accessToken: string; refreshToken: string; expiresIn: number }, now: Date): Tokens {
  return {
    accessToken: response.accessToken,
    refreshToken: response.refreshToken,
    expiresAt: new Date(now.getTime() + response.expiresIn * 1000),
  };
}

export function exchangeCode(endpoints: HubSpotEndpoints, app: HubSpotApp, code: string, now: Date): Promise<Tokens> {
  return call(async () =>
    tokensOf(
      await client(endpoints).oauth.tokensApi.create(
        'authorization_code',
        code,
        app.redirectUri,
        app.clientId,
        app.clientSecret,
      ),
      now,
    ),
  );
}

export function refreshTokens(
  endpoints: HubSpotEndpoints,
  app: HubSpotApp,
  refreshToken: string,
  now: Date,
): Promise<Tokens> {
  return call(async () =>
    tokensOf(
      await client(endpoints).oauth.tokensApi.create(
        'refresh_token',
        undefined,
        undefined,
        app.clientId,
        app.clientSecret,
        refreshToken,
      ),
      now,
    ),
  );
}

/** The portal (hub id) a token was granted by. */
export function portalOf(endpoints: HubSpotEndpoints, accessToken: string): Promise<string> {
  return call(async () => String((await client(endpoints).oauth.accessTokensApi.get(accessToken)).hubId));
}

function dealOf(object: {
  id: string;
  properties: Record<string, string | null>;
  archived?: boolean | undefined;
}): HubSpotDeal {
  return { id: object.id, properties: object.properties, archived: object.archived === true };
}

/** One page of the portal's deals (or of its archived ones), and where the next starts. */
export function dealsPage(
  endpoints: HubSpotEndpoints,
  accessToken: string,
  input: { after: string | undefined; properties: string[]; archived: boolean },
): Promise<{ deals: HubSpotDeal[]; after: string | undefined }> {
  return call(async () => {
    const page = await client(endpoints, accessToken).crm.deals.basicApi.getPage(
      HUBSPOT_PAGE,
      input.after,
      input.properties,
      undefined,
      undefined,
      input.archived,
    );
    return { deals: page.results.map(dealOf), after: page.paging?.next?.after };
  });
}

/** The deals of these ids as they are now; ids HubSpot no longer has are left out. */
export function readDeals(
  endpoints: HubSpotEndpoints,
  accessToken: string,
  ids: readonly string[],
  properties: string[],
): Promise<HubSpotDeal[]> {
  return call(async () => {
    const api = client(endpoints, accessToken).crm.deals.batchApi;
    const found: HubSpotDeal[] = [];
    for (let start = 0; start < ids.length; start += HUBSPOT_PAGE) {
      const batch = await api.read(
        {
          inputs: ids.slice(start, start + HUBSPOT_PAGE).map((id) => ({ id })),
          properties,
          propertiesWithHistory: [],
        },
        false,
      );
      found.push(...batch.results.map(dealOf));
    }
    return found;
  });
}

export function pipelineStages(endpoints: HubSpotEndpoints, accessToken: string): Promise<PipelineStage[]> {
  return call(async () =>
    stagesOf((await client(endpoints, accessToken).crm.pipelines.pipelinesApi.getAll('deals')).results),
  );
}

export interface HubSpotOwner {
  id: string;
  email: string | null;
}

export function owners(endpoints: HubSpotEndpoints, accessToken: string): Promise<HubSpotOwner[]> {
  return call(async () => {
    const api = client(endpoints, accessToken).crm.owners.ownersApi;
    const found: HubSpotOwner[] = [];
    let after: string | undefined;
    do {
      const page = await api.getPage(undefined, after, HUBSPOT_PAGE, false);
      found.push(...page.results.map((owner) => ({ id: owner.id, email: owner.email ?? null })));
      after = page.paging?.next?.after;
    } while (after !== undefined);
    return found;
  });
}
