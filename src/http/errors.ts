import type { Response } from 'express';
import type { Refusal, RefusalCode } from '../domain/refusal.ts';

// The one place a refusal becomes HTTP: its status, and the contract's `Error` body.

/** The status of every code the contracts list, and of no other. */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_body: 400,
  unauthenticated: 401,
  invalid_key: 401,
  invalid_credentials: 401,
  forbidden: 403,
  rep_token_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  period_open: 409,
  invalid_state: 409,
  dedup_conflict: 422,
  unknown_deal: 422,
  invalid_plan_file: 422,
  typed_name_mismatch: 422,
  rate_limited: 429,
  reminded_recently: 429,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<RefusalCode, number>;

export interface ErrorBody {
  error: RefusalCode;
  reason: string;
  retry_after_seconds?: number;
  /** Further members of some errors (the admin API's `problems` of a refused plan file). */
  [member: string]: unknown;
}

/** Answers with the refusal: its code's status, its headers and its body. */
export function sendRefusal(res: Response, refusal: Refusal): void {
  res.status(ERROR_STATUS[refusal.code]).set(refusal.headers).json(errorBody(refusal));
}

export function errorBody(refusal: Refusal): ErrorBody {
  return {
    ...refusal.details,
    error: refusal.code,
    reason: refusal.reason,
    ...(refusal.retryAfterSeconds === undefined ? {} : { retry_after_seconds: refusal.retryAfterSeconds }),
  };
}
