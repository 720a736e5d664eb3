// When a failed attempt is retried: the first attempt at once, then after each delay
// in turn; when the delays run out, the delivery has failed.

/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts over about 27.6 hours. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
const DELAY = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

/** Parses `5s,5m,2h` (units ms, s, m, h) into milliseconds. Throws with the reason when malformed. */
export function parseRetrySchedule(raw: string): number[] {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length === 1 && parts[0] === '') return [];
  return parts.map((part) => {
    const match = DELAY.exec(part);
    if (!match) throw new Error(`"${part}" is not a delay such as 500ms, 5s, 5m or 2h`);
    return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
  });
}

/**
 * The delay before the attempt that follows failed attempt number `attempt` (1 for the first attempt), or
 * null when there is none left.
 */
export function retryDelayAfter(attempt: number, scheduleMs: readonly number[]): number | null {
  return scheduleMs[attempt - 1] ?? null;
}

/** How long an endpoint may fail without a single success before it is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;
