import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'vitest';
import { VERSION } from '../../sdk/src/index.ts';
import {
  backoffDelayMs,
  parseRetryAfterSeconds,
  type RetryPolicy,
  retryDelayForResponse,
} from '../../sdk/src/retry.ts';

const policy: RetryPolicy = { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterSeconds: 60 };

describe('SDK retry policy', () => {
  test('backoff is full jitter: uniform from 0 up to a bound that doubles per retry and stops at maxDelayMs', () => {
    assert.equal(
      backoffDelayMs(0, policy, () => 0),
      0,
    );
    assert.equal(
      backoffDelayMs(0, policy, () => 0.999_999),
      499,
    );
    assert.equal(
      backoffDelayMs(1, policy, () => 0.999_999),
      999,
    );
    assert.equal(
      backoffDelayMs(3, policy, () => 0.5),
      2_000,
    );
    assert.equal(
      backoffDelayMs(10, policy, () => 0.999_999),
      7_999,
    );
  });

  test.each([400, 401, 403, 404, 405, 408, 409, 413, 415, 422])(
    '4xx responses are never retried, except 429: %i',
    (status) => {
      assert.equal(retryDelayForResponse(status, null, 0, policy), undefined, String(status));
      assert.equal(retryDelayForResponse(status, '1', 0, policy), undefined, `${status} with Retry-After`);
    },
  );

  test('429 waits exactly Retry-After, and does not wait at all when it is longer than maxRetryAfterSeconds', () => {
    assert.equal(retryDelayForResponse(429, '7', 0, policy), 7_000);
    assert.equal(retryDelayForResponse(429, '60', 2, policy), 60_000);
    assert.equal(retryDelayForResponse(429, '61', 0, policy), undefined);
    assert.equal(
      retryDelayForResponse(429, null, 1, policy, () => 0.5),
      500,
      'no header: backoff',
    );
  });

  test.each([500, 501, 502, 503, 504, 505, 599])('every 5xx is retried with backoff: %i', (status) => {
    assert.equal(
      retryDelayForResponse(status, null, 2, policy, () => 0.5),
      1_000,
      String(status),
    );
  });

  test('a 5xx with Retry-After is retried after it', () => {
    assert.equal(retryDelayForResponse(503, '3', 0, policy), 3_000);
  });

  test('Retry-After is read in both of its forms', () => {
    const now = Date.parse('2026-04-22T10:00:00Z');
    assert.equal(parseRetryAfterSeconds('12', now), 12);
    assert.equal(parseRetryAfterSeconds(' 0 ', now), 0);
    assert.equal(parseRetryAfterSeconds('Wed, 22 Apr 2026 10:00:30 GMT', now), 30);
    assert.equal(parseRetryAfterSeconds('Wed, 22 Apr 2026 09:00:00 GMT', now), 0);
    assert.equal(parseRetryAfterSeconds('soon', now), undefined);
    assert.equal(parseRetryAfterSeconds('-5', now), undefined);
    assert.equal(parseRetryAfterSeconds(null, now), undefined);
  });
});

test('the SDK reports the version of its package.json', async () => {
  const manifest = JSON.parse(await readFile(new URL('../../sdk/package.json', import.meta.url), 'utf8'));
  assert.equal(VERSION, manifest.version);
});
