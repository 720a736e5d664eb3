import { Client } from '@hubspot/api-client';
import type { HubSpotDeal, PipelineStage } from '../../domain/connectors/hubspot.ts';
import { retryWaitMs, stagesOf } from '../../domain/connectors/hubspot.ts';
import { CrmRefusal } from './crmRefusal.ts';

export { CrmRefusal };

// HubSpot's APIs as the connector calls them, through HubSpot's own client library (`@hubspot/api-client`) pointed at
// the configured base URL: the OAuth token endpoint, the access-token info, the CRM v3 deals (paged, batch read),
// pipelines and owners. A refusal of HubSpot's becomes a `CrmRefusal` carrying HubSpot's own status and message.

/** Where HubSpot is: its API and its authorization page (docs/connectors.md; tests point them at a simulator). */
export interface HubSpotEndpoints {
  apiUrl: string;
  authorizeUrl: string;
  /** How 429s are waited out (none: answered at once, as a webhook must be) and where the daily limit is told. */
  rate?: RateControl | undefined;
}

/**
 * HubSpot's rate limits as a sync honours them: a 429 is waited out by its `Retry-After` (else 1, 2, 4… s), each
 * wait at most `maxWaitMs`, at most `retries` times in a row, then refused as any other answer; every response's
 * `X-HubSpot-RateLimit-Daily-Remaining` is handed to `onDailyRemaining`.
 */
export interface RateControl {
  retries: number;
  maxWaitMs: number;
  onDailyRemaining?: (remaining: number) => void;
  /** Waits; tests may count the waits (the default sleeps). */
  sleep?: (ms: number) => Promise<void>;
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

const DAILY_REMAINING = 'x-hubspot-ratelimit-daily-remaining';

function client(endpoints: HubSpotEndpoints, accessToken?: string): Client {
  // No retries inside the library: a 429 is waited out by `call` (a sync's), anything else recorded on the
  // connection and its records read again later.
  const told = endpoints.rate?.onDailyRemaining;
  return new Client({
    basePath: endpoints.apiUrl,
    numberOfApiCallRetries: 0,
    ...(accessToken ? { accessToken } : {}),
    ...(told
      ? {
          middleware: [
            {
              pre: (context: unknown) => context,
              post: (context: unknown) => {
                const headers = (context as { headers?: Record<string, string> }).headers ?? {};
                const remaining = Number(headers[DAILY_REMAINING]);
                if (headers[DAILY_REMAINING] !== undefined && Number.isInteger(remaining)) told(remaining);
                return context;
              },
            },
          ],
        }
      : {}),
  });
}

const sleeping = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function call<T>(endpoints: HubSpotEndpoints, work: () => Promise<T>): Promise<T> {
  const rate = endpoints.rate;
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const failed = error as { code?: unknown; headers?: Record<string, string> };
      if (rate === undefined || failed.code !== 429 || attempt >= rate.retries) throw refusalOf(error);
      await (rate.sleep ?? sleeping)(retryWaitMs(failed.headers?.['retry-after'], attempt, rate.maxWaitMs));
    }
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
  return call(endpoints, async () =>
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
  return call(endpoints, async () =>
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
  return call(endpoints, async () => String((await client(endpoints).oauth.accessTokensApi.get(accessToken)).hubId));
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
  return call(endpoints, async () => {
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
  return call(endpoints, async () => {
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
  return call(endpoints, async () =>
    stagesOf((await client(endpoints, accessToken).crm.pipelines.pipelinesApi.getAll('deals')).results),
  );
}

export interface HubSpotOwner {
  id: string;
  email: string | null;
}

export function owners(endpoints: HubSpotEndpoints, accessToken: string): Promise<HubSpotOwner[]> {
  return call(endpoints, async () => {
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

/** HubSpot's search returns at most this many results for one query (its `after` stops at 10,000). */
export const SEARCH_RESULTS_CAP = 10_000;

/** A page of the search (`POST /crm/v3/objects/deals/search`): the most this API pages at once. */
export const SEARCH_PAGE = 200;

/**
 * The live deals modified at or after `since` (`hs_lastmodifieddate` GTE), oldest first, a page at a time through
 * HubSpot's search; `onPage` applies each before the next is asked for. Past the search's 10,000 results the
 * search starts again from the last modification time read (the deals read twice change nothing twice).
 */
export async function searchModifiedSince(
  endpoints: HubSpotEndpoints,
  accessToken: () => Promise<string>,
  input: { since: Date; properties: string[] },
  onPage: (deals: HubSpotDeal[]) => Promise<boolean | undefined>,
): Promise<void> {
  let since = input.since.getTime();
  let after: string | undefined;
  let read = 0;
  for (;;) {
    const token = await accessToken();
    const page = await call(endpoints, () =>
      client(endpoints, token).crm.deals.searchApi.doSearch({
        // HubSpot's request as its reference writes it: the library types `operator` as its enum and `sorts` as
        // strings, and sends both as given.
        filterGroups: [
          { filters: [{ propertyName: 'hs_lastmodifieddate', operator: 'GTE' as never, value: String(since) }] },
        ],
        sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' } as never],
        properties: input.properties,
        limit: SEARCH_PAGE,
        ...(after === undefined ? {} : { after }),
      }),
    );
    const deals = page.results.map(dealOf);
    if ((await onPage(deals)) === false) return;
    read += deals.length;
    after = page.paging?.next?.after;
    if (after === undefined) return;
    if (read + SEARCH_PAGE > SEARCH_RESULTS_CAP) {
      const last = Date.parse(deals.at(-1)?.properties.hs_lastmodifieddate ?? '');
      // Every result of this query has one modification time: nothing newer to start from, the rest is unreachable.
      if (Number.isNaN(last) || last <= since) return;
      since = last;
      after = undefined;
      read = 0;
    }
  }
}
