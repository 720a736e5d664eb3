import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { parseEventKinds } from '../../src/domain/webhooks/kinds.ts';
import { decideAfterAttempt } from '../../src/domain/webhooks/outcome.ts';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, retryDelayAfter } from '../../src/domain/webhooks/schedule.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('the retry schedule', () => {
  test('the default is product.md: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    assert.deepEqual(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE), [
      5 * SECOND,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      10 * HOUR,
    ]);
  });

  test('delays take ms, s, m and h; anything else is refused', () => {
    assert.deepEqual(parseRetrySchedule('50ms, 0.5s,1m'), [50, 500, MINUTE]);
    assert.deepEqual(parseRetrySchedule(''), []);
    assert.throws(() => parseRetrySchedule('5'), /"5" is not a delay/);
    assert.throws(() => parseRetrySchedule('5s,,5m'), /"" is not a delay/);
  });

  test('failed attempt n waits for the n-th delay; after the last there is none', () => {
    const schedule = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);
    assert.equal(retryDelayAfter(1, schedule), 5 * SECOND);
    assert.equal(retryDelayAfter(7, schedule), 10 * HOUR);
    assert.equal(retryDelayAfter(8, schedule), null);
  });
});

describe('decideAfterAttempt', () => {
  const at = new Date('2026-04-22T10:00:00Z');
  const facts = { attempt: 1, redelivery: false, deliveredBefore: false, attemptedAt: at, scheduleMs: [5_000, 60_000] };

  test.each([200, 201, 202, 204, 299])('any 2xx delivers and ends the endpoint’s run of failures: %i', (status) => {
    assert.deepEqual(decideAfterAttempt({ ...facts, responseStatus: status }), {
      delivery: { status: 'delivered', nextAttemptAt: null },
      endpointSucceeded: true,
      disableReason: null,
    });
  });

  test.each([500, 301, 404, 429, null])(
    'a failure is retried after the next delay; redirects and no response count as failures: %s',
    (status) => {
      const decision = decideAfterAttempt({ ...facts, attempt: 2, responseStatus: status });
      assert.deepEqual(decision.delivery, { status: 'pending', nextAttemptAt: new Date(at.getTime() + 60_000) });
      assert.equal(decision.endpointSucceeded, false);
    },
  );

  test('when the schedule is exhausted, then the delivery has failed', () => {
    assert.deepEqual(decideAfterAttempt({ ...facts, attempt: 3, responseStatus: 503 }).delivery, {
      status: 'failed',
      nextAttemptAt: null,
    });
  });

  test('410 Gone ends the delivery and disables the endpoint', () => {
    const decision = decideAfterAttempt({ ...facts, responseStatus: 410 });
    assert.deepEqual(decision.delivery, { status: 'failed', nextAttemptAt: null });
    assert.equal(decision.disableReason, 'the endpoint answered 410 Gone');
  });

  test('a failed manual redelivery is not retried and leaves a delivered message delivered', () => {
    assert.deepEqual(
      decideAfterAttempt({ ...facts, redelivery: true, deliveredBefore: true, responseStatus: 500 }).delivery,
      { status: 'delivered', nextAttemptAt: null },
    );
    assert.deepEqual(decideAfterAttempt({ ...facts, redelivery: true, responseStatus: 500 }).delivery, {
      status: 'failed',
      nextAttemptAt: null,
    });
  });
});

describe('parseEventKinds', () => {
  test('absent or empty means every kind', () => {
    assert.deepEqual(parseEventKinds(undefined), { kinds: [] });
    assert.deepEqual(parseEventKinds(' '), { kinds: [] });
  });

  test('known kinds are kept in order, once each', () => {
    assert.deepEqual(parseEventKinds('deal.updated, period.paid,deal.updated'), {
      kinds: ['deal.updated', 'period.paid'],
    });
  });

  test('when a kind is unknown, then the error lists the kinds there are', () => {
    assert.deepEqual(parseEventKinds('deal.updated,deal.won,ping'), {
      error:
        'unknown event kinds deal.won, ping; the kinds are earning.created, earning.status_changed, deal.updated, period.locked, period.paid, period.reopened, adjustment.created, inquiry.created, inquiry.updated, plan.acceptance_requested, plan.accepted, statement.approval_reminder (omit --events for all of them)',
    });
  });
});
