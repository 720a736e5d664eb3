import type { NextFunction, Request, Response } from 'express';
import * as orgs from '../../repositories/orgs.ts';
import type { Transaction } from '../../repositories/transaction.ts';

// CORS for rep tokens (docs/rep-tokens.md). A preflight carries no token, so it is answered for any origin some org
// allows, on /v1 only; whether the real request's answer carries Access-Control-Allow-Origin is decided by the rep
// token's own org (authenticate). API keys never get CORS headers: a key belongs on a server, not in a browser.

const PREFLIGHT_MAX_AGE_SECONDS = 600;
const ALLOWED_METHODS = 'GET, POST';
// User-Agent: the SDK sets one, which a browser may send (and then asks for).
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Request-Id, User-Agent';

/**
 * Answers `OPTIONS /v1/...` with an Origin that some org allows (204 and the CORS headers); any other request, and a
 * preflight from an origin no org allows, goes on (the contract router answers such a preflight 405, without CORS
 * headers, and the browser refuses the request).
 */
export function corsPreflight(statements: Transaction) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const origin = req.get('origin');
    if (req.method !== 'OPTIONS' || origin === undefined || !/^\/v1(?:\/|$)/.test(req.path)) return next();
    if (!req.get('access-control-request-method')) return next();
    if (!(await orgs.anyAllowsOrigin(statements, origin))) return next();
    res
      .status(204)
      .set({
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': ALLOWED_METHODS,
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE_SECONDS),
        Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      })
      .end();
  };
}
