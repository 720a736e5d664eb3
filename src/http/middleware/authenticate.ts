import type { NextFunction, Request, Response } from 'express';
import { digestOf, parseBearer } from '../../access/apiKeys.ts';
import { decide, windowAt } from '../../access/rateLimit.ts';
import type { KeyGate } from '../../access/rateLimitStore.ts';
import type { AuditLog } from '../../audit/requestLog.ts';
import { Refusal } from '../../domain/refusal.ts';
import { newId } from '../../lib/ids.ts';
import type { ApiKeyRecord } from '../../repositories/apiKeys.ts';
import type { AuditEntryInput } from '../../repositories/audit.ts';
import { KeyConfirmation, keyConfirmationOf, type UnconfirmedKey } from '../keyConfirmation.ts';
import type { Metrics } from '../metrics.ts';
import type { ContractOperation } from '../operations.ts';

export interface RequestAuth {
  keyId: string;
  orgId: string;
  orgName: string;
  key: ApiKeyRecord;
}

/** For a request that fails before its write confirmed the key: the key still to confirm (KeyConfirmation). */
export function takeUnconfirmedKey(res: Response): UnconfirmedKey | undefined {
  return keyConfirmationOf(res)?.takeUnconfirmed();
}

export function invalidKey(): Refusal {
  return new Refusal('invalid_key', 'the API key is unknown or revoked');
}

export interface AuthenticateDeps {
  keys: KeyGate;
  auditLog: AuditLog;
  metrics: Metrics;
}

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
    const window = windowAt(now);
    const digest = digestOf(token);
    const known = operation.writeConfirmsKey ? await deps.keys.countKnownKey(digest, window.start) : null;
    const found = known ?? (await deps.keys.authenticateAndCount(digest, window.start));
    if (!found) throw invalidKey();

    const { key } = found;
    const auth: RequestAuth = { keyId: key.id, orgId: key.org_id, orgName: found.org_name, key };
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
      res.locals.keyConfirmation = new KeyConfirmation(unconfirmed, audit.entryForWrite);
    }
    if (!decision.allowed) {
      deps.metrics.rateLimited(operation.pathTemplate);
      throw new Refusal(
        'rate_limited',
        `over ${key.rate_limit_per_minute} requests per minute; retry after the window ends`,
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
 * The audit of one authenticated request. Reads and refusals are queued when the response finishes (off the
 * response path); a write records its entry in its own transaction instead (`entryForWrite`, through the
 * request's KeyConfirmation), and then nothing is queued for it.
 */
export interface RequestAudit {
  /** The entry as it will read when the response is `status`, with the duration so far. */
  entryForWrite(status: number): AuditEntryInput;
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
      actor_type: 'api_key',
      key_id: auth.keyId,
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
    entryForWrite: (status) => {
      writtenWithRequest = true;
      return entry(status);
    },
    discard: () => {
      discarded = true;
    },
  };
  let finished = false;
  res.once('finish', () => {
    finished = true;
    if (discarded) return;
    auditLog.keyUsed(auth.keyId, new Date());
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
