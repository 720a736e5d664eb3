import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { AdminActor } from '../../audit/adminEntries.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { AdminSessions, LiveSession } from '../../services/adminIdentity.ts';
import { type CookieRule, httpOnlyCookie, readCookie } from '../cookies.ts';
import type { ContractOperation } from '../operations.ts';

export const SESSION_COOKIE = 'quotient_admin_session';
export const CSRF_HEADER = 'x-csrf-token';

/** What the admin handlers get: the live session (null only for operations that need none). */
export interface AdminRequestContext {
  session: LiveSession;
  actor: AdminActor;
}

/** The request's session and actor, set by `adminSession` for every operation that needs a session. */
export function adminContext(res: Response): AdminRequestContext {
  return res.locals.admin as AdminRequestContext;
}

const SESSION_COOKIE_RULE: CookieRule = { name: SESSION_COOKIE, path: '/admin', sameSite: 'Strict' };

export function sessionCookie(req: Request, token: string, maxAgeSeconds: number): string {
  return httpOnlyCookie(SESSION_COOKIE_RULE, req, token, maxAgeSeconds);
}

export function clearedSessionCookie(req: Request): string {
  return sessionCookie(req, '', 0);
}

/** The admin acting through this request, on the route it matched (the contract operation's, unless given). */
export function actorOf(
  req: Request,
  res: Response,
  admin: { id: string; email: string },
  route: string = (res.locals.operation as ContractOperation).pathTemplate,
): AdminActor {
  return {
    kind: 'admin',
    adminId: admin.id,
    email: admin.email,
    requestId: res.locals.requestId as string,
    method: req.method,
    route,
    clientIp: req.ip ?? null,
    userAgent: req.get('user-agent') ?? null,
  };
}

/**
 * A browser's Origin, when sent, must be this server's own: cross-site pages cannot drive the console's API or the
 * portal's own endpoints. `surface` names which one refused, as the refusal tells the caller.
 */
export function requireSameOrigin(req: Request, surface = 'the admin API'): void {
  const origin = req.get('origin');
  if (origin === undefined) return;
  if (origin !== `${req.protocol}://${req.get('host')}`) {
    throw new Refusal('forbidden', `cross-origin requests to ${surface} are refused`);
  }
}

function sameToken(sent: string | undefined, expected: string): boolean {
  if (sent === undefined) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * For every operation that needs a session: the session cookie (401), then for changes the same origin and the
 * session's CSRF token (403), then the role the contract lists (403 for a viewer).
 */
export function adminSession(sessions: AdminSessions) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const operation = res.locals.operation as ContractOperation;
    const changes = req.method !== 'GET' && req.method !== 'HEAD';
    if (changes) requireSameOrigin(req);
    if (operation.requiredScopes === null) return next();

    const token = readCookie(req.get('cookie'), SESSION_COOKIE);
    const session = token ? await sessions.authenticate(token) : null;
    if (!session) {
      if (token) res.append('Set-Cookie', clearedSessionCookie(req));
      throw new Refusal('unauthenticated', 'sign in first: no live session (it may have expired or been ended)');
    }
    if (changes && !sameToken(req.get(CSRF_HEADER), session.csrf_token)) {
      throw new Refusal('forbidden', 'missing or wrong X-CSRF-Token header; reload the console');
    }
    const missingRole = operation.requiredScopes.find((role) => role !== session.admin.role);
    if (missingRole)
      throw new Refusal('forbidden', `a ${session.admin.role} cannot do this: it needs the role ${missingRole}`);
    res.locals.admin = { session, actor: actorOf(req, res, session.admin) } satisfies AdminRequestContext;
    next();
  };
}
