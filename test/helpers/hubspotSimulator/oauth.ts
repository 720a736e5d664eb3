import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hubspotError, json, type Portal, type Token } from './portal.ts';

// The simulated portal's OAuth 2.0 server: the authorization-code flow with refresh tokens (`/oauth/authorize`,
// `POST /oauth/v1/token`) and the access-token metadata (`GET /oauth/v1/access-tokens/{token}`).

function issue(portal: Portal): Token {
  const token = {
    access: `at-${randomBytes(12).toString('hex')}`,
    refresh: `rt-${randomBytes(12).toString('hex')}`,
    expiresAt: Date.now() + portal.tokenLifetimeSeconds * 1000,
  };
  portal.tokens.push(token);
  return token;
}

/** A code for `redirectUri`, as the portal's admin consenting issues it. */
export function consentCode(portal: Portal, redirectUri: string): string {
  const code = randomBytes(12).toString('hex');
  portal.codes.set(code, { redirectUri });
  return code;
}

/** Answers an OAuth request and returns true, or returns false for a request that is not one. */
export function answerOAuth(
  portal: Portal,
  req: IncomingMessage,
  url: URL,
  body: string,
  res: ServerResponse,
): boolean {
  if (req.method === 'GET' && url.pathname === '/oauth/authorize') {
    // The portal's admin consents at once: HubSpot's redirect back to the app with a code and the state.
    if (url.searchParams.get('client_id') !== portal.clientId) {
      json(res, 400, { message: 'unknown app' });
      return true;
    }
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    const back = new URL(redirectUri);
    back.searchParams.set('code', consentCode(portal, redirectUri));
    back.searchParams.set('state', url.searchParams.get('state') ?? '');
    res.writeHead(302, { location: back.toString() });
    res.end();
    return true;
  }
  if (req.method === 'POST' && url.pathname === '/oauth/v1/token') {
    answerToken(portal, new URLSearchParams(body), res);
    return true;
  }
  const tokenInfo = /^\/oauth\/v1\/access-tokens\/(.+)$/.exec(url.pathname);
  if (req.method === 'GET' && tokenInfo) {
    const token = portal.tokens.find((candidate) => candidate.access === decodeURIComponent(tokenInfo[1] as string));
    if (!token) hubspotError(res, 404, 'Token not found', 'OBJECT_NOT_FOUND');
    else
      json(res, 200, {
        token: token.access,
        user: 'admin@portal.example',
        hub_domain: 'portal.example',
        scopes: ['oauth', 'crm.objects.deals.read', 'crm.objects.owners.read'],
        hub_id: portal.portalId,
        app_id: 1234567,
        expires_in: Math.max(0, Math.round((token.expiresAt - Date.now()) / 1000)),
        user_id: 9001,
        token_type: 'access',
      });
    return true;
  }
  return false;
}

function answerToken(portal: Portal, form: URLSearchParams, res: ServerResponse) {
  portal.grants.push(form.get('grant_type') ?? '');
  if (form.get('client_id') !== portal.clientId || form.get('client_secret') !== portal.clientSecret) {
    return json(res, 400, { status: 'BAD_CLIENT_ID', message: 'missing or unknown client id' });
  }
  if (form.get('grant_type') === 'authorization_code') {
    const code = portal.codes.get(form.get('code') ?? '');
    if (!code) return json(res, 400, { status: 'BAD_AUTH_CODE', message: 'missing or unknown auth code' });
    if (code.redirectUri !== form.get('redirect_uri')) {
      return json(res, 400, { status: 'BAD_REDIRECT_URI', message: 'redirect_uri does not match' });
    }
    portal.codes.delete(form.get('code') ?? '');
  } else if (form.get('grant_type') === 'refresh_token') {
    const old = portal.tokens.find((token) => token.refresh === form.get('refresh_token'));
    if (!old) return json(res, 400, { status: 'BAD_REFRESH_TOKEN', message: 'missing or unknown refresh token' });
  } else return json(res, 400, { status: 'BAD_GRANT_TYPE', message: 'unknown grant type' });
  const token = issue(portal);
  json(res, 200, {
    token_type: 'bearer',
    refresh_token: token.refresh,
    access_token: token.access,
    expires_in: portal.tokenLifetimeSeconds,
  });
}
