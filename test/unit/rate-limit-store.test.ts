import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { decide, windowAt } from '../../src/access/rateLimit.ts';
import { MemoryWindowCounter } from '../../src/access/rateLimitStore.ts';
import { loadConfig } from '../../src/config.ts';

const DB = 'postgresql://postgres@127.0.0.1:5432/quotient';
const REDIS = 'redis://127.0.0.1:6379';

describe('which rate-limit store is in force', () => {
  test('memory on the embedded database, postgres on a DATABASE_URL, redis whenever a Redis URL is given', () => {
    assert.equal(loadConfig({}).rateLimits.store, 'memory');
    assert.equal(loadConfig({ DATABASE_URL: DB }).rateLimits.store, 'postgres');
    assert.deepEqual(loadConfig({ DATABASE_URL: DB, QUOTIENT_REDIS_URL: REDIS }).rateLimits, {
      store: 'redis',
      redisUrl: REDIS,
      windowSeconds: 60,
    });
    assert.equal(loadConfig({ QUOTIENT_REDIS_URL: REDIS }).rateLimits.store, 'redis');
  });

  test('QUOTIENT_RATE_LIMIT_STORE beats the defaults', () => {
    assert.equal(loadConfig({ QUOTIENT_RATE_LIMIT_STORE: 'postgres' }).rateLimits.store, 'postgres');
    assert.equal(loadConfig({ DATABASE_URL: DB, QUOTIENT_RATE_LIMIT_STORE: 'memory' }).rateLimits.store, 'memory');
    assert.equal(
      loadConfig({ QUOTIENT_REDIS_URL: REDIS, QUOTIENT_RATE_LIMIT_STORE: 'postgres' }).rateLimits.store,
      'postgres',
    );
  });

  test('an unknown store, or redis without a URL, is refused', () => {
    assert.throws(() => loadConfig({ QUOTIENT_RATE_LIMIT_STORE: 'disk' }), /must be one of memory, redis, postgres/);
    assert.throws(() => loadConfig({ QUOTIENT_RATE_LIMIT_STORE: 'redis' }), /needs QUOTIENT_REDIS_URL/);
  });
});

describe('counting in memory', () => {
  const minute = (n: number) => new Date(Date.UTC(2026, 10, 22, 16, n));

  test('counts per key and window, a late request in its own window, from seeded counts', () => {
    const counter = new MemoryWindowCounter();
    counter.seed(minute(0), new Map([['key_a', 5]]));
    assert.equal(counter.increment('key_a', minute(0)), 6);
    assert.equal(counter.increment('key_b', minute(0)), 1);
    assert.equal(counter.increment('key_a', minute(1)), 1);
    assert.equal(counter.increment('key_a', minute(0)), 7, 'the previous window is still counted');
  });

  test('windows older than the previous one are dropped', () => {
    const counter = new MemoryWindowCounter();
    counter.increment('key_a', minute(0));
    counter.increment('key_a', minute(1));
    counter.increment('key_a', minute(2));
    assert.deepEqual(
      [...counter.windows().keys()].map((start) => start.toISOString()),
      [minute(1).toISOString(), minute(2).toISOString()],
    );
  });
});

describe('windows of another length (QUOTIENT_RATE_LIMIT_WINDOW_SECONDS)', () => {
  test('the spec’s window is the UTC minute; another length starts at its multiples since the epoch', () => {
    const now = new Date(Date.UTC(2026, 10, 22, 16, 41, 30, 250));
    assert.deepEqual(windowAt(now), {
      start: new Date(Date.UTC(2026, 10, 22, 16, 41)),
      seconds: 60,
      resetEpochSeconds: Date.UTC(2026, 10, 22, 16, 42) / 1000,
      secondsToReset: 30,
    });
    assert.deepEqual(windowAt(now, 3600), {
      start: new Date(Date.UTC(2026, 10, 22, 16)),
      seconds: 3600,
      resetEpochSeconds: Date.UTC(2026, 10, 22, 17) / 1000,
      secondsToReset: 18 * 60 + 30,
    });
    assert.equal(windowAt(now, 7).start.getTime() % 7000, 0);
  });

  test('the policy header names the window’s length', () => {
    const now = new Date(Date.UTC(2026, 10, 22, 16, 41, 30));
    assert.equal(decide(20, 1, windowAt(now)).headers['RateLimit-Policy'], '"default";q=20;w=60');
    assert.equal(decide(20, 21, windowAt(now, 3600)).headers['RateLimit-Policy'], '"default";q=20;w=3600');
    assert.equal(decide(20, 21, windowAt(now, 3600)).headers['Retry-After'], String(18 * 60 + 30));
  });

  test('a memory counter of longer windows keeps the previous one and drops the one before', () => {
    const hour = (n: number) => new Date(Date.UTC(2026, 10, 22, n));
    const counter = new MemoryWindowCounter(3600);
    for (const n of [14, 15, 16]) counter.increment('key_a', hour(n));
    assert.deepEqual(
      [...counter.windows().keys()].map((start) => start.toISOString()),
      [hour(15).toISOString(), hour(16).toISOString()],
    );
  });
});
