// The one error type of the API: a stable machine code (safe to switch on) and an advisory reason.

export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_body: 400,
  unauthenticated: 401,
  invalid_key: 401,
  invalid_credentials: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  period_open: 409,
  invalid_state: 409,
  dedup_conflict: 422,
  invalid_plan_file: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  error: ErrorCode;
  reason?: string;
  retry_after_seconds?: number;
  /** Further members of some errors (the admin API's `problems` of a refused plan file). */
  [member: string]: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly reason: string | undefined;
  readonly headers: Record<string, string>;
  readonly retryAfterSeconds: number | undefined;
  readonly extra: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    reason?: string,
    options: { headers?: Record<string, string>; retryAfterSeconds?: number; extra?: Record<string, unknown> } = {},
  ) {
    super(reason ? `${code}: ${reason}` : code);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.reason = reason;
    this.headers = options.headers ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.extra = options.extra ?? {};
  }

  toBody(): ErrorBody {
    return {
      ...this.extra,
      error: this.code,
      ...(this.reason === undefined ? {} : { reason: this.reason }),
      ...(this.retryAfterSeconds === undefined ? {} : { retry_after_seconds: this.retryAfterSeconds }),
    };
  }
}
