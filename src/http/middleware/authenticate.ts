import type { NextFunction, Request, Response } from 'express';
import { parseBearer } from '../../access/apiKeys.ts';
import { decide, perWindow, WINDOW_SECONDS, windowAt } from '../../access/rateLimit.ts';
import type { KeyGate } from '../../access/rateLimitStore.ts';
import { checkRepToken, type LiveRepToken, type RepTokenCheck } from '../../access/repTokenGate.ts';
import { isRepToken, REP_TOKEN_SCOPES } from '../../access/repTokens.ts';
import { tokenDigest } from '../../access/tokenDigest.ts';
import type { AuditLog } from '../../audit/requestLog.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { Viewer } from '../../domain/viewer.ts';
import { newId } from '../../lib/ids.ts';
import type { ApiKeyRecord } from '../../repositories/apiKeys.ts';
import type { AuditEntryInput } from '../../repositories/audit.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import { KeyConfirmation, keyConfirmationOf, type UnconfirmedKey } from '../keyConfirmation.ts';
import type { Metrics } from '../metrics.ts';
import type { ContractOperation } from '../operations.ts';

/** A request authenticated by an API key: it sees the whole org. */
export interface KeyAuth {
  kind: 'api_key';
  keyId: string;
  orgId: string;
  orgName: string;
  key: ApiKeyRecord;
  viewer: Viewer;
}

/** A request authenticated by a rep token: it sees what its rep may see (src/domain/viewer.ts). */
export interface RepAuth {
  kind: 'rep';
  keyId: null;
  orgId: string;
  orgName: string;
  rep: LiveRepToken['rep'];
  expiresAt: Date;
  viewer: Extract<Viewer, { kind: 'rep' }>;
}

export type RequestAuth = KeyAuth | RepAuth;

/** Who the request reads as: what every /v1 reader takes. */
export function viewerOf(res: Response): Viewer {
  return (res.locals.auth as RequestAuth).viewer;
}

/**
 * The API key of a request to an operation only keys may call (their scopes are none of a rep token's, so the
 * scope check has refused a rep token before any handler runs).
 */
export function keyAuthOf(res: Response): KeyAuth {
  const auth = res.locals.auth as RequestAuth;
  if (auth.kind !== 'api_key') throw new Error('an operation reserved to API keys was reached with a rep token');
  return auth;
}

/** For a request that fails before its write confirmed the key: the key still to confirm (KeyConfirmation). */
export function takeUnconfirmedKey(res: Response): UnconfirmedKey | undefined {
  return keyConfirmationOf(res)?.takeUnconfirmed();
}

export function invalidKey(): Refusal {
  return new Refusal('invalid_key', 'the API key is unknown or revoked');
}

function repTokenRefused(check: Exclude<RepTokenCheck, LiveRepToken>): Refusal {
  if (check.kind === 'unknown') return new Refusal('invalid_key', 'the rep token is unknown');
  return new Refusal('invalid_key', `the rep token has ${check.kind === 'revoked' ? 'been revoked' : 'expired'}`);
}

export interface AuthenticateDeps {
  keys: KeyGate;
  /**
   * The access layer's statements (its own pool), where rep tokens are found and their reps' requests counted;
   * absent (a harness that serves keys only), every rep token is unknown.
   */
  repTokens?: Transaction;
  auditLog: AuditLog;
  metrics: Metrics;
  /** The time of rep tokens' expiry (tests move it). */
  now?: () => Date;
  /** The rate windows' length (QUOTIENT_RATE_LIMIT_WINDOW_SECONDS); the spec's 60 s when absent. */
  rateWindowSeconds?: number;
}

/** The CORS headers of an answer to a browser at `origin`, when the org allows it (docs/rep-tokens.md). */
export function corsHeaders(origin: string | undefined, allowed: readonly string[]): Record<string, string> {
  if (origin === undefined || !allowed.includes(origin)) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
  };
}

const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'Retry-After',
].join(', ');

/**
 * Authentication (401), then the rate limit (429), then the scope (403), in that order, for every
 * operation whose contract requires a key. Every authenticated request counts against the limit and is
 * audited, whatever its outcome. An operation the contract marks `x-quotient-write-confirms-key` gets the
 * request's KeyConfirmation, and a key this process knows is not read again before its write.
 */
export function authenticate(deps: AuthenticateDeps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const operation = res.locals.operation as ContractOperation;
    if (operation.requiredScopes === null) return next();

    const token = parseBearer(req.get('authorization'));
    if (!token) {
      throw new Refusal('unauthenticated', 'send the header "Authorization: Bearer <API key>"');
    }
    const now = new Date();
    const window = windowAt(now, deps.rateWindowSeconds ?? WINDOW_SECONDS);
    if (isRepToken(token)) return authenticateRep(deps, req, res, next, operation, token, now);
    const digest = tokenDigest(token);
    const known = operation.writeConfirmsKey ? await deps.keys.countKnownKey(digest, window.start) : null;
    const found = known ?? (await deps.keys.authenticateAndCount(digest, window.start));
    if (!found) throw invalidKey();

    const { key } = found;
    const auth: KeyAuth = {
      kind: 'api_key',
      keyId: key.id,
      orgId: key.org_id,
      orgName: found.org_name,
      key,
      viewer: { kind: 'org', orgId: key.org_id },
    };
    res.locals.auth = auth;
    const audit = auditOnFinish(req, res, deps.auditLog, auth, operation, now);

    const decision = decide(key.rate_limit_per_minute, found.window_count, window);
    res.set(decision.headers);
    if (operation.writeConfirmsKey) {
      const unconfirmed: UnconfirmedKey | undefined = known
        ? {
            confirm: () => deps.keys.isActive(digest),
            refute: () => {
              deps.keys.forget(digest);
              for (const name of Object.keys(decision.headers)) res.removeHeader(name);
              res.locals.auth = undefined;
              audit.discard();
            },
          }
        : undefined;
      res.locals.keyConfirmation = new KeyConfirmation(unconfirmed, audit);
    }
    if (!decision.allowed) {
      deps.metrics.rateLimited(operation.pathTemplate);
      throw new Refusal(
        'rate_limited',
        `over ${key.rate_limit_per_minute} requests ${perWindow(window.seconds)}; retry after the window ends`,
        {
          retryAfterSeconds: decision.retryAfterSeconds,
        },
      );
    }
    const missing = operation.requiredScopes.find((scope) => !key.scopes.includes(scope));
    if (missing) throw new Refusal('forbidden', `missing scope: ${missing}`);
    next();
  };
}

/**
 * A rep token: found (with its rep's reports and org settings) and counted in its rep's window in one round trip,
 * then the same order as a key: 401 (unknown, revoked, expired) → 429 (the rep's limit) → 403 (a rep token's
 * scopes). The answer carries CORS headers when the token's org allows the request's origin.
 */
async function authenticateRep(
  deps: AuthenticateDeps,
  req: Request,
  res: Response,
  next: NextFunction,
  operation: ContractOperation,
  token: string,
  receivedAt: Date,
): Promise<void> {
  const now = deps.now?.() ?? receivedAt;
  const window = windowAt(receivedAt, deps.rateWindowSeconds ?? WINDOW_SECONDS);
  const check: RepTokenCheck = deps.repTokens
    ? await checkRepToken(deps.repTokens, token, window.start, now)
    : { kind: 'unknown' };
  const origin = req.get('origin');
  if (check.kind !== 'live') {
    if (check.kind !== 'unknown') res.set(corsHeaders(origin, check.corsAllowedOrigins));
    throw repTokenRefused(check);
  }
  res.set(corsHeaders(origin, check.corsAllowedOrigins));
  if (origin !== undefined) res.vary('Origin');
  const auth: RepAuth = {
    kind: 'rep',
    keyId: null,
    orgId: check.viewer.orgId,
    orgName: check.orgName,
    rep: check.rep,
    expiresAt: check.expiresAt,
    viewer: check.viewer,
  };
  res.locals.auth = auth;
  auditOnFinish(req, res, deps.auditLog, auth, operation, receivedAt);
  const decision = decide(check.rateLimitPerMinute, check.windowCount, window);
  res.set(decision.headers);
  if (!decision.allowed) {
    deps.metrics.rateLimited(operation.pathTemplate);
    throw new Refusal(
      'rate_limited',
      `over ${check.rateLimitPerMinute} requests ${perWindow(window.seconds)} for this rep; retry after the window ends`,
      { retryAfterSeconds: decision.retryAfterSeconds },
    );
  }
  // An operation the contract marks x-quotient-rep-action is the rep's to call; its service decides on which objects.
  const missing = operation.repAction
    ? undefined
    : (operation.requiredScopes ?? []).find((scope) => !REP_TOKEN_SCOPES.includes(scope));
  if (missing) throw new Refusal('forbidden', `missing scope: ${missing}`);
  next();
}

/**
 * The audit of one authenticated request. Reads and refusals are queued when the response finishes (off the
 * response path); a write records its entry in its own transaction instead (`entryForWrite`, handed to it through
 * the request's KeyConfirmation or by its handler), and once it says it did (`recordedWithWrite`), nothing is
 * queued for a success.
 */
export interface RequestAudit {
  /** The entry as it will read when the response is `status`, with the duration so far. */
  entryForWrite(status: number): AuditEntryInput;
  /** The request's write recorded the entry in its transaction, which has committed. */
  recordedWithWrite(): void;
  /** Nothing is audited for the request after all (its key was found revoked). */
  discard(): void;
}

function auditOnFinish(
  req: Request,
  res: Response,
  auditLog: AuditLog,
  auth: RequestAuth,
  operation: ContractOperation,
  receivedAt: Date,
): RequestAudit {
  const id = newId('aud');
  let writtenWithRequest = false;
  let discarded = false;
  const entry = (status: number | null): AuditEntryInput => {
    const now = new Date();
    return {
      id,
      org_id: auth.orgId,
      occurred_at: receivedAt,
      ...(auth.kind === 'api_key'
        ? { actor_type: 'api_key' as const, key_id: auth.keyId }
        : {
            actor_type: 'rep' as const,
            actor: auth.viewer.userId,
            key_id: null,
            details: { rep_token_id: auth.viewer.tokenId },
          }),
      action: 'request',
      method: req.method,
      route: operation.pathTemplate,
      status,
      request_id: res.locals.requestId as string,
      client_ip: req.ip ?? null,
      user_agent: req.get('user-agent') ?? null,
      duration_ms: now.getTime() - receivedAt.getTime(),
    };
  };
  const audit: RequestAudit = {
    entryForWrite: (status) => entry(status),
    recordedWithWrite: () => {
      writtenWithRequest = true;
    },
    discard: () => {
      discarded = true;
    },
  };
  let finished = false;
  res.once('finish', () => {
    finished = true;
    if (discarded) return;
    if (auth.kind === 'api_key') auditLog.keyUsed(auth.orgId, auth.keyId, new Date());
    // A write whose transaction failed wrote no entry: it is queued like any other request.
    if (!writtenWithRequest || res.statusCode >= 400) auditLog.record(entry(res.statusCode));
  });
  // The connection closed before the response was sent: the client went away, or a shutdown's grace period
  // ended. The request is audited without a status; a write that still commits has its own entry (same id).
  // A key not confirmed yet is not audited: it may be revoked.
  res.once('close', () => {
    if (!finished && !discarded && !keyConfirmationOf(res)?.awaitsConfirmation) auditLog.record(entry(null));
  });
  res.locals.audit = audit;
  return audit;
}

/**
 * The request's audit, for a write that records its entry in one of its own transactions without a key
 * confirmation (the batch of deal events: the entry rides on its first accepted event).
 */
export function requestAuditOf(res: Response): RequestAudit {
  return res.locals.audit as RequestAudit;
}
