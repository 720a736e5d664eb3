import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from '../../generated/openapi.ts';
import type { PortalToken } from '../../src/http/portal/sessionStatus.ts';

// The portal pages' way to /v1 (docs/rep-tokens.md): openapi-fetch typed from the public contract, with a rep token
// the portal mints for its signed-in rep (`POST /portal/token`, the same service integrators mint with). The token
// is kept in memory only, fetched again a minute before it expires, and once more if /v1 says it is no longer valid
// (revoked, or the server's clock ran ahead). Every page uses the one client: `api.GET('/v1/users/{id}', …)`.

/** Fetch a new token this long before the current one expires. */
const REFRESH_MARGIN_MS = 60_000;

/** Raised when no portal session is signed in any more: show the sign-in page. */
export class SignedOut extends Error {
  constructor() {
    super('the portal session has ended; sign in again');
  }
}

export interface RepTokenSource {
  /** A live token, fetched when there is none or it is about to expire. */
  token(): Promise<string>;
  /** Forgets the token (after a 401), so the next call fetches a new one. */
  forget(): void;
}

/** Rep tokens from `POST /portal/token`; concurrent callers share one request. */
export function portalTokens(
  fetchImpl: typeof fetch = (input, init) => fetch(input, init),
  now: () => number = Date.now,
): RepTokenSource {
  let current: { token: string; refreshAt: number } | null = null;
  let pending: Promise<string> | null = null;
  const mint = async (): Promise<string> => {
    const response = await fetchImpl('/portal/token', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { Accept: 'application/json' },
    });
    if (response.status === 401) throw new SignedOut();
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    const minted = (await response.json()) as PortalToken;
    current = { token: minted.token, refreshAt: Date.parse(minted.expires_at) - REFRESH_MARGIN_MS };
    return minted.token;
  };
  return {
    token: () => {
      if (current && now() < current.refreshAt) return Promise.resolve(current.token);
      pending ??= mint().finally(() => {
        pending = null;
      });
      return pending;
    },
    forget: () => {
      current = null;
    },
  };
}

/** Sends the rep token; a GET answered 401 is retried once with a new token (a body cannot be sent twice). */
function bearer(tokens: RepTokenSource, fetchImpl: typeof fetch): Middleware {
  return {
    async onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${await tokens.token()}`);
      return request;
    },
    async onResponse({ request, response }) {
      if (response.status !== 401) return response;
      tokens.forget();
      if (request.method !== 'GET') return response;
      const retry = new Request(request);
      retry.headers.set('Authorization', `Bearer ${await tokens.token()}`);
      return fetchImpl(retry);
    },
  };
}

export type PortalApi = Client<paths>;

/** The typed /v1 client of the portal's pages. */
export function createPortalApi(
  options: { baseUrl?: string; tokens?: RepTokenSource; fetch?: typeof fetch } = {},
): PortalApi {
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const client = createClient<paths>({ baseUrl: options.baseUrl ?? '', fetch: fetchImpl });
  client.use(bearer(options.tokens ?? portalTokens(fetchImpl), fetchImpl));
  return client;
}

/** The portal's one client. */
export const api: PortalApi = createPortalApi();
