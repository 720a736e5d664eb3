// The error document every Quotient API answers with (`Error` in both contracts), told to people.

export interface ErrorDocument {
  error: string;
  reason?: string;
  retry_after_seconds?: number;
}

/** The error of a failed call as one sentence for people. */
export function describeError(error: ErrorDocument | undefined, fallback = 'Something went wrong.'): string {
  if (!error) return fallback;
  if (error.error === 'rate_limited' && error.retry_after_seconds) {
    const minutes = Math.ceil(error.retry_after_seconds / 60);
    return `Too many attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
  }
  return error.reason ?? error.error;
}
