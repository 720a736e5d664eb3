import type { NextFunction, Request, Response } from 'express';
import { isDatabaseUnavailable } from '../../db/availability.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { Logger } from '../../lib/logger.ts';
import { ERROR_STATUS, sendRefusal } from '../errors.ts';
import { invalidKey, takeUnconfirmedKey } from './authenticate.ts';

interface ValidatorError {
  status?: number;
  errors?: Array<{ path?: string; message?: string }>;
  headers?: Record<string, string>;
}

interface BodyParserError {
  type?: string;
  status?: number;
  code?: string;
}

/** Seconds a client is asked to wait after a 503: long enough for a failover or a saturated pool to clear. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** A contract and the paths it answers: what those paths may send as `error` is its `Error.error` enum. */
export interface ErrorSurface {
  /** The paths the contract answers ('' for every path no other surface claims). */
  pathPrefix: string;
  contract: Record<string, unknown>;
}

export interface ErrorHandlerOptions {
  /**
   * In tests (QUOTIENT_VALIDATE_RESPONSES), the contract of each surface: an error whose code the contract of its
   * path does not list is answered as a 500 naming the code, the way the contract validator answers a response
   * that breaks the contract. The first surface whose prefix the path starts with is the path's.
   */
  checkedAgainst?: readonly ErrorSurface[];
}

/**
 * Maps every failure to the contract's `Error` format: a Refusal (thrown by the domain, a service or the HTTP layer),
 * body-parser errors, the contract validator's errors and database outages. Anything else is a 500 that reveals
 * nothing but the request id.
 */
export function errorHandler(logger: Logger, options: ErrorHandlerOptions = {}) {
  const surfaces = options.checkedAgainst?.map((surface) => ({
    pathPrefix: surface.pathPrefix,
    codes: listedErrorCodes(surface.contract),
  }));
  return async (failure: unknown, req: Request, res: Response, _next: NextFunction) => {
    const error = await withConfirmedKey(failure, res);
    let refusal = toRefusal(error, res.locals.requestId as string);
    const listed = surfaces?.find((surface) => servesPath(surface.pathPrefix, req.path))?.codes;
    if (listed && !listed.has(refusal.code)) {
      refusal = new Refusal(
        'internal_error',
        `contract violation: the error code ${refusal.code} is not in the contract`,
      );
    }
    if (refusal.code === 'unavailable') {
      logger.warn({ err: error, request_id: res.locals.requestId, path: req.path }, 'database unavailable');
    } else if (ERROR_STATUS[refusal.code] >= 500) {
      logger.error({ err: error, request_id: res.locals.requestId, path: req.path }, 'request failed');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    sendRefusal(res, refusal);
  };
}

/** The codes a contract's `Error.error` enum lists. */
export function listedErrorCodes(contract: Record<string, unknown>): ReadonlySet<string> {
  const schemas = (contract.components as { schemas?: Record<string, unknown> } | undefined)?.schemas;
  const error = schemas?.Error as { properties?: { error?: { enum?: unknown } } } | undefined;
  const codes = error?.properties?.error?.enum;
  if (!Array.isArray(codes)) throw new Error('the contract has no enum of error codes (components.schemas.Error)');
  return new Set(codes.map(String));
}

function servesPath(prefix: string, path: string): boolean {
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * A request whose key was taken from what this process knows fails before its write confirmed the key: the key is
 * read now, and a revoked one answers 401 whatever else failed, as it would have first. When the database cannot
 * say, the request gets what that failure gets (503).
 */
async function withConfirmedKey(failure: unknown, res: Response): Promise<unknown> {
  const unconfirmed = takeUnconfirmedKey(res);
  if (!unconfirmed) return failure;
  try {
    if (await unconfirmed.confirm()) return failure;
  } catch (error) {
    return error;
  }
  unconfirmed.refute();
  return invalidKey();
}

export function toRefusal(error: unknown, requestId: string): Refusal {
  if (error instanceof Refusal) return error;
  const parserError = error as BodyParserError;
  if (parserError?.type === 'entity.parse.failed')
    return new Refusal('invalid_json', 'the request body is not valid JSON');
  if (parserError?.type === 'entity.too.large') {
    return new Refusal('payload_too_large', 'the request body is larger than 1 MiB');
  }
  if (parserError?.type === 'encoding.unsupported' || parserError?.type === 'charset.unsupported') {
    return new Refusal('unsupported_media_type', 'the request body must be UTF-8 encoded application/json');
  }
  if (isUnreadableBody(error)) {
    return new Refusal('invalid_json', 'the request body could not be decoded as its Content-Encoding says');
  }
  const validatorError = error as ValidatorError;
  if (Array.isArray(validatorError?.errors) && typeof validatorError.status === 'number') {
    return fromValidator(validatorError);
  }
  if (isDatabaseUnavailable(error)) return unavailable();
  return new Refusal('internal_error', `an internal error occurred; request id ${requestId}`);
}

function fromValidator(error: ValidatorError): Refusal {
  const first = error.errors?.[0];
  switch (error.status) {
    case 400:
      return new Refusal('invalid_body', describeField(first?.path, first?.message));
    case 404:
      return new Refusal('not_found', 'no such route');
    case 405:
      return new Refusal('method_not_allowed', 'the method is not allowed on this route', {
        headers: error.headers ?? {},
      });
    case 413:
      return new Refusal('payload_too_large', 'the request body is larger than 1 MiB');
    case 415:
      return new Refusal('unsupported_media_type', 'the request body must be application/json');
    default:
      // Response validation failures (tests) and anything unexpected are our fault, not the caller's.
      return new Refusal('internal_error', first?.message ?? 'contract violation');
  }
}

/** "/body/state/amount_cents" + "must be integer" → "state.amount_cents: must be integer". */
export function describeField(path: string | undefined, message: string | undefined): string {
  const segments = (path ?? '').split('/').filter(Boolean);
  const location = segments[0];
  let field = segments.slice(1).join('.');
  const missing = /must have required property '([^']+)'/.exec(message ?? '');
  const name = missing?.[1];
  if (name && !field.split('.').includes(name)) field = field ? `${field}.${name}` : name;
  const text = (message ?? 'is invalid').replace(/^must have required property '[^']+'$/, 'is required');
  if (!field) return location === 'body' ? `body: ${text}` : text;
  return `${field}: ${text}`;
}

/**
 * A compressed body that does not inflate (zlib's Z_* codes, brotli's ERR__* codes): body-parser passes the
 * decompressor's error on as a 400 without a type of its own.
 */
function isUnreadableBody(error: unknown): boolean {
  const { status, code } = (error ?? {}) as BodyParserError;
  return status === 400 && typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__'));
}

/** The database is unreachable, saturated or too slow right now: nothing of the request was committed. */
export function unavailable(): Refusal {
  return new Refusal('unavailable', 'the database cannot serve this request now; retry shortly', {
    headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  });
}
