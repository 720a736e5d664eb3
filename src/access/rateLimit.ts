// Fixed windows, 60 seconds aligned to the UTC minute unless QUOTIENT_RATE_LIMIT_WINDOW_SECONDS (src/config.ts)
// names another length (windows of n seconds start at multiples of n seconds since the epoch). Pure: the counter
// lives in the configured store so that every instance shares it.

/** The spec's window: a key's limit is requests per minute. */
export const WINDOW_SECONDS = 60;

/** How the limit's window reads in a refusal: "per minute" at the spec's 60 s. */
export function perWindow(windowSeconds: number): string {
  return windowSeconds === WINDOW_SECONDS ? 'per minute' : `per ${windowSeconds} seconds`;
}

export interface RateWindow {
  start: Date;
  /** The window's length in seconds. */
  seconds: number;
  /** Unix epoch seconds when the window ends. */
  resetEpochSeconds: number;
  /** Whole seconds until the window ends, at least 1. */
  secondsToReset: number;
}

export function windowAt(now: Date, windowSeconds = WINDOW_SECONDS): RateWindow {
  const nowMs = now.getTime();
  const startMs = nowMs - (nowMs % (windowSeconds * 1000));
  const endMs = startMs + windowSeconds * 1000;
  return {
    start: new Date(startMs),
    seconds: windowSeconds,
    resetEpochSeconds: endMs / 1000,
    secondsToReset: Math.max(1, Math.ceil((endMs - nowMs) / 1000)),
  };
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

/** Decides on the request that brought the window's count to `count`, and the headers it carries. */
export function decide(limit: number, count: number, window: RateWindow): RateDecision {
  const remaining = Math.max(0, limit - count);
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(window.resetEpochSeconds),
    'RateLimit-Policy': `"default";q=${limit};w=${window.seconds}`,
    RateLimit: `"default";r=${remaining};t=${window.secondsToReset}`,
  };
  const allowed = count <= limit;
  if (!allowed) headers['Retry-After'] = String(window.secondsToReset);
  return { allowed, headers, retryAfterSeconds: window.secondsToReset };
}
