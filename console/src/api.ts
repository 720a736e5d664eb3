import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from '../../generated/openapi-admin.ts';

export { describeError } from '../../ui/errors.ts';

// The console's only way to the server: openapi-fetch typed from the admin contract. The session cookie travels
// by itself (same origin, HttpOnly); the CSRF token from createSession/getMe goes in a header on every change.

export type Schemas = components['schemas'];
export type Me = Schemas['Me'];
export type ErrorDocument = Schemas['Error'];

let csrfToken: string | undefined;
let onSignedOut: () => void = () => {};

export function rememberSession(me: Me | undefined): void {
  csrfToken = me?.csrf_token;
}

/** Called when any call answers 401: the session has ended (expired, signed out elsewhere, disabled). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

const session: Middleware = {
  onRequest({ request }) {
    if (request.method !== 'GET' && csrfToken) request.headers.set('X-CSRF-Token', csrfToken);
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && !request.url.endsWith('/admin/v1/sessions')) onSignedOut();
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'same-origin' });
api.use(session);
