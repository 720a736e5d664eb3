import type { Config } from '../config.ts';
import type { Logger } from '../lib/logger.ts';
import * as rateLimitCounters from '../repositories/rateLimitCounters.ts';
import { type RateLimitLease, takeRateLimitLease } from '../repositories/rateLimitLease.ts';
import type { Transaction } from '../repositories/transaction.ts';
import { windowAt } from './rateLimit.ts';
import {
  countingGate,
  type KeyGate,
  MemoryWindowCounter,
  postgresGate,
  RateLimitStoreUnavailable,
} from './rateLimitStore.ts';
import { RedisWindowCounter } from './redisWindowCounter.ts';

/**
 * The key lookup and rate-limit counting of the configured store (`rateLimits`), with the database lease
 * that keeps an in-memory store the only one counting for the database. While the lease is lost (its connection
 * cut), no store counts: requests get 503 with Retry-After until it is taken again, because another process could
 * have started meanwhile and counted on its own. A memory store hands its counts to the database the moment the
 * lease is lost, so a process that starts meanwhile starts from them, and takes back the higher of each when it
 * regains the lease.
 */
export async function openKeyGate(
  rateLimits: Config['rateLimits'],
  databaseUrl: string,
  keys: Transaction,
  logger: Logger,
): Promise<KeyGate> {
  const { store, redisUrl, windowSeconds } = rateLimits;
  const counter = store === 'memory' ? new MemoryWindowCounter(windowSeconds) : undefined;
  const handOver = async () => {
    if (!counter) return;
    for (const [windowStart, counts] of counter.windows())
      await rateLimitCounters.saveWindowCounts(keys, windowStart, counts);
  };
  const lease: RateLimitLease = await takeRateLimitLease(databaseUrl, store === 'memory', {
    onLost: (error) => {
      logger.error(
        { err: error },
        'lost the rate-limit lease on the database: refusing requests until it is taken again',
      );
      handOver().catch((saveError: unknown) => {
        logger.warn({ err: saveError }, 'could not hand the rate-limit counts to the database');
      });
    },
    onRegained: async () => {
      if (counter)
        for (const windowStart of counter.windows().keys())
          counter.raise(windowStart, await rateLimitCounters.windowCounts(keys, windowStart));
      logger.warn('took the rate-limit lease on the database again: serving');
    },
    onRetryFailed: (error) => logger.warn({ err: error }, 'could not take the rate-limit lease again; retrying'),
  });
  try {
    if (store === 'postgres') return withLease(postgresGate(keys), lease);
    if (store === 'redis') {
      const redis = await RedisWindowCounter.connect(
        redisUrl as string,
        (error) => {
          logger.warn({ err: error }, 'the rate-limit store (Redis) failed');
        },
        windowSeconds,
      );
      return withLease(
        countingGate('redis', keys, redis, () => redis.close()),
        lease,
      );
    }
    // Counts of the current window survive a restart: read back here, handed to the database on close.
    const memory = counter as MemoryWindowCounter;
    const current = windowAt(new Date(), windowSeconds).start;
    memory.seed(current, await rateLimitCounters.windowCounts(keys, current));
    return withLease(countingGate('memory', keys, memory, handOver), lease);
  } catch (error) {
    await lease.release();
    throw error;
  }
}

/** The gate, counting only while the lease is held; closing it releases the lease. */
function withLease(gate: KeyGate, lease: RateLimitLease): KeyGate {
  return {
    ...gate,
    authenticateAndCount: (digest, windowStart) =>
      whileHeld(lease, () => gate.authenticateAndCount(digest, windowStart)),
    countKnownKey: (digest, windowStart) => whileHeld(lease, () => gate.countKnownKey(digest, windowStart)),
    close: async () => {
      try {
        await gate.close();
      } finally {
        await lease.release();
      }
    },
  };
}

function whileHeld<T>(lease: RateLimitLease, count: () => Promise<T>): Promise<T> {
  if (lease.held) return count();
  return Promise.reject(
    new RateLimitStoreUnavailable('the rate-limit lease on the database is lost; it is being taken again'),
  );
}
