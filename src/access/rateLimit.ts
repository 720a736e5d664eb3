// Fixed 60-second windows aligned to the UTC minute. Pure: the counter lives in the
// database so that every instance shares it.

export const WINDOW_SECONDS = 60;

export interface RateWindow {
  start: Date;
  /** Unix epoch seconds when the window ends. */
  resetEpochSeconds: number;
  /** Whole seconds until the window ends, at least 1. */
  secondsToReset: number;
}

export function windowAt(now: Date): RateWindow {
  const nowMs = now.getTime();
  const startMs = nowMs - (nowMs % (WINDOW_SECONDS * 1000));
  const endMs = startMs + WINDOW_SECONDS * 1000;
  return {
    start: new Date(startMs),
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
    'RateLimit-Policy': `"default";q=${limit};w=${WINDOW_SECONDS}`,
    RateLimit: `"default";r=${remaining};t=${window.secondsToReset}`,
  };
  const allowed = count <= limit;
  if (!allowed) headers['Retry-After'] = String(window.secondsToReset);
  return { allowed, headers, retryAfterSeconds: window.secondsToReset };
}
