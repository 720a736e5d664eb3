/** How the client retries; every field is resolved from the client options. */
export interface RetryPolicy {
  /** Retries after the first attempt: 0 to 4, so 1 to 5 attempts in all. */
  maxRetries: number;
  /** Upper bound of the first backoff delay; it doubles with every retry. */
  initialDelayMs: number;
  /** Upper bound of any backoff delay. */
  maxDelayMs: number;
  /** The longest `Retry-After` the client waits for; a longer one is returned to the caller as the error. */
  maxRetryAfterSeconds: number;
}

export const MAX_RETRIES_LIMIT = 4;

/**
 * Full jitter ("Exponential Backoff And Jitter", AWS Architecture Blog): a uniformly random delay between
 * zero and the exponential bound, so that clients that failed together do not retry together.
 */
export function backoffDelayMs(retryIndex: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const bound = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retryIndex);
  return Math.floor(random() * bound);
}

/** `Retry-After` in seconds, from either form the header allows (delta-seconds or an HTTP date). */
export function parseRetryAfterSeconds(value: string | null, nowMs: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/**
 * The wait before retrying a response, or undefined when it must not be retried. The interface spec's
 * client guidance: 4xx is never retried, except 429, which waits for `Retry-After` (rate windows are
 * fixed, so an earlier retry fails again); 5xx is retried with exponential backoff, or after its
 * `Retry-After` when it has one (503 `unavailable`). Every 5xx, as the guidance says: the server decides
 * what is worth retrying by what it answers.
 */
export function retryDelayForResponse(
  status: number,
  retryAfterHeader: string | null,
  retryIndex: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  const retryable = status === 429 || status >= 500;
  if (!retryable) return undefined;
  const retryAfter = parseRetryAfterSeconds(retryAfterHeader);
  if (retryAfter === undefined) return backoffDelayMs(retryIndex, policy, random);
  if (retryAfter > policy.maxRetryAfterSeconds) return undefined;
  return retryAfter * 1000;
}
