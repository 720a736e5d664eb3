import { parseRetryAfterSeconds } from './retry.ts';
import type { ErrorCode } from './types.ts';

/**
 * The API answered with an error status. `error` is the stable machine code to switch on, one of the
 * contract's codes (`invalid_body`, `forbidden`, `not_found`, `rate_limited`, ...: `ErrorCode`); `reason` is
 * advice for people and must not be parsed. Quote `requestId` when you report a problem.
 */
export class QuotientError extends Error {
  override readonly name: string = 'QuotientError';
  /** The HTTP status of the response. */
  readonly status: number;
  /** The error code from the body, or `http_<status>` when the body is not a Quotient error. */
  readonly error: ErrorCode | `http_${number}`;
  /** Human-readable explanation from the body, when present. */
  readonly reason: string | undefined;
  /** The `X-Request-Id` of the response. */
  readonly requestId: string | undefined;
  /** On 429 and 503: whole seconds to wait before the request can succeed. */
  readonly retryAfterSeconds: number | undefined;
  /** The response headers. */
  readonly headers: Headers;
  /** The parsed JSON body, or its text when it was not JSON. */
  readonly body: unknown;

  constructor(status: number, body: unknown, headers: Headers) {
    const fields = errorFields(body);
    const error = fields.error ?? `http_${status}`;
    const requestId = headers.get('x-request-id') ?? undefined;
    super(
      `Quotient API ${status} ${error}${fields.reason ? `: ${fields.reason}` : ''}` +
        (requestId ? ` (request id ${requestId})` : ''),
    );
    this.status = status;
    this.error = error;
    this.reason = fields.reason;
    this.requestId = requestId;
    this.retryAfterSeconds = fields.retryAfterSeconds ?? parseRetryAfterSeconds(headers.get('retry-after'));
    this.headers = headers;
    this.body = body;
  }
}

function errorFields(body: unknown): { error?: ErrorCode; reason?: string; retryAfterSeconds?: number } {
  if (typeof body !== 'object' || body === null) return {};
  const { error, reason, retry_after_seconds } = body as Record<string, unknown>;
  return {
    ...(typeof error === 'string' ? { error: error as ErrorCode } : {}),
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(typeof retry_after_seconds === 'number' ? { retryAfterSeconds: retry_after_seconds } : {}),
  };
}

/** No response arrived: the connection failed or was dropped, on every attempt the retry policy allowed. */
export class QuotientConnectionError extends Error {
  override readonly name: string = 'QuotientConnectionError';
  /** How many attempts were made. */
  readonly attempts: number;

  constructor(message: string, options: { cause: unknown; attempts: number }) {
    super(message, { cause: options.cause });
    this.attempts = options.attempts;
  }
}

/** No response arrived within `timeoutMs`, on every attempt the retry policy allowed. */
export class QuotientTimeoutError extends QuotientConnectionError {
  override readonly name: string = 'QuotientTimeoutError';
  /** The per-attempt timeout that expired. */
  readonly timeoutMs: number;

  constructor(message: string, options: { cause: unknown; attempts: number; timeoutMs: number }) {
    super(message, options);
    this.timeoutMs = options.timeoutMs;
  }
}
