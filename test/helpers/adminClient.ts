import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../generated/openapi-admin.ts';
import type { RunningServer } from '../../src/main.ts';

export interface AdminClient {
  api: Client<paths>;
  /** The session cookie, as the browser would keep it ('' before sign-in and after sign-out). */
  cookie: () => string;
  setCookie: (value: string) => void;
  csrf: () => string | undefined;
  /** Signs in and keeps the cookie and CSRF token for later calls; returns the response. */
  signIn: (email: string, password: string) => ReturnType<Client<paths>['POST']>;
}

/**
 * The admin API through openapi-fetch typed from the admin contract, as the console calls it: a cookie jar of
 * one cookie, the X-CSRF-Token header on changes, and a client address of its own (X-Forwarded-For, honoured
 * from loopback) so that the sign-in throttle per address of one test does not reach another.
 */
export function adminClient(
  server: RunningServer,
  options: { address?: string; csrf?: boolean; origin?: string } = {},
): AdminClient {
  let cookie = '';
  let csrf: string | undefined;
  const address = options.address ?? `10.${rand()}.${rand()}.${rand()}`;
  const api = createClient<paths>({
    baseUrl: server.url,
    fetch: async (request: Request) => {
      const headers = new Headers(request.headers);
      headers.set('x-forwarded-for', address);
      if (cookie) headers.set('cookie', cookie);
      if (csrf && options.csrf !== false && request.method !== 'GET') headers.set('x-csrf-token', csrf);
      if (options.origin) headers.set('origin', options.origin);
      const response = await fetch(new Request(request, { headers }));
      const set = response.headers.get('set-cookie');
      if (set) cookie = set.split(';')[0]?.endsWith('=') ? '' : (set.split(';')[0] ?? '');
      return response;
    },
  });
  return {
    api,
    cookie: () => cookie,
    setCookie: (value) => {
      cookie = value;
    },
    csrf: () => csrf,
    signIn: async (email, password) => {
      const result = await api.POST('/admin/v1/sessions', { body: { email, password } });
      if (result.data) csrf = result.data.csrf_token;
      return result;
    },
  };
}

function rand(): number {
  return Math.floor(Math.random() * 254) + 1;
}
