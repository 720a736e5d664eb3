import { retryDelayAfter } from './schedule.ts';

export interface AttemptFacts {
  /** The attempt's number, 1 for the first. */
  attempt: number;
  /** A manual redelivery of an ended delivery: one attempt outside the schedule. */
  redelivery: boolean;
  deliveredBefore: boolean;
  /** Null when no response came (connection refused, timeout, refused address). */
  responseStatus: number | null;
  attemptedAt: Date;
  scheduleMs: readonly number[];
}

export interface AttemptDecision {
  delivery: { status: 'pending' | 'delivered' | 'failed'; nextAttemptAt: Date | null };
  endpointSucceeded: boolean;
  /** Disable the endpoint now, for this reason. */
  disableReason: string | null;
}

/**
 * What an attempt's result means: any 2xx delivers; `410 Gone` says the endpoint is gone for good, so it is
 * disabled and nothing more is sent; anything else (other statuses, redirects, no response) is retried per the
 * schedule until it runs out. A manual redelivery that fails leaves the delivery as it was before.
 */
export function decideAfterAttempt(facts: AttemptFacts): AttemptDecision {
  const status = facts.responseStatus;
  if (status !== null && status >= 200 && status < 300) {
    return { delivery: { status: 'delivered', nextAttemptAt: null }, endpointSucceeded: true, disableReason: null };
  }
  const ended = { status: facts.deliveredBefore ? ('delivered' as const) : ('failed' as const), nextAttemptAt: null };
  if (status === 410) {
    return { delivery: ended, endpointSucceeded: false, disableReason: 'the endpoint answered 410 Gone' };
  }
  const delay = facts.redelivery ? null : retryDelayAfter(facts.attempt, facts.scheduleMs);
  return {
    delivery:
      delay === null ? ended : { status: 'pending', nextAttemptAt: new Date(facts.attemptedAt.getTime() + delay) },
    endpointSucceeded: false,
    disableReason: null,
  };
}
