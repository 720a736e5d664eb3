import type { ActiveKey } from '../repositories/apiKeys.ts';
import * as apiKeys from '../repositories/apiKeys.ts';
import type { AuthenticatedKey } from '../repositories/rateLimitCounters.ts';
import * as rateLimitCounters from '../repositories/rateLimitCounters.ts';
import type { Transaction } from '../repositories/transaction.ts';
import { WINDOW_SECONDS } from './rateLimit.ts';

// Where the fixed-window counts live. Every store is exact; they differ in who can share
// it. `memory`: counted in this process, no I/O at all, exact only while this process is the one instance that
// serves the database (a lease on the database, see RateLimitLease, makes sure of it). `redis`: one atomic
// script per request on a Redis that every instance uses. `postgres`: one upsert per request on the key's
// counter row, in the statement that finds the key; exact across instances, but every request of a key queues
// on that row.

export const RATE_LIMIT_STORES = ['memory', 'redis', 'postgres'] as const;
export type RateLimitStoreKind = (typeof RATE_LIMIT_STORES)[number];

/** Raised when the store cannot count now: the request gets 503 unavailable with Retry-After. */
export class RateLimitStoreUnavailable extends Error {
  readonly code = 'QUOTIENT_RATE_STORE_UNAVAILABLE';
}

/** Finds an active key by its digest and counts the request in the key's current window. */
export interface KeyGate {
  readonly store: RateLimitStoreKind;
  /** Null when the key is unknown or revoked (then nothing is counted). */
  authenticateAndCount(digest: string, windowStart: Date): Promise<AuthenticatedKey | null>;
  /**
   * The key of a digest as this process last found it active, with the request counted, without reading the
   * database; null when this process does not know the key (then call authenticateAndCount). This is no proof that
   * the key is still active: the caller confirms it before answering, by the request's own write (the event's
   * first statement reads the key) or with `isActive`, and calls `forget` when it was revoked.
   */
  countKnownKey(digest: string, windowStart: Date): Promise<AuthenticatedKey | null>;
  /** Whether the key of a digest is active now: one indexed select. */
  isActive(digest: string): Promise<boolean>;
  /** Forgets a key found revoked. */
  forget(digest: string): void;
  /** Stops counting; a store held in memory hands its counts to the database first. */
  close(): Promise<void>;
}

const MAX_KNOWN_KEYS = 10_000;

/** A counter of requests per key and window that lives outside the key's database row. */
export interface WindowCounter {
  /** The window's count of the key after counting this request. */
  increment(keyId: string, windowStart: Date): Promise<number> | number;
}

/**
 * The `postgres` store: the key's lookup and its counter's upsert are one statement, so every request reads the
 * key anyway and none is counted from what this process knows.
 */
export function postgresGate(keys: Transaction): KeyGate {
  return {
    store: 'postgres',
    authenticateAndCount: (digest, windowStart) => rateLimitCounters.authenticateAndCount(keys, digest, windowStart),
    countKnownKey: async () => null,
    isActive: async (digest) => (await apiKeys.findActiveKey(keys, digest)) !== null,
    forget: () => {},
    close: async () => {},
  };
}

/**
 * The `memory` and `redis` stores: the key is read from the database, then counted here. The keys found active are
 * remembered (a key never changes but for its revocation) for `countKnownKey`, whose callers confirm them.
 */
export function countingGate(
  store: Exclude<RateLimitStoreKind, 'postgres'>,
  keys: Transaction,
  counter: WindowCounter,
  onClose: () => Promise<void> = async () => {},
): KeyGate {
  const known = new Map<string, ActiveKey>();
  const find = async (digest: string) => {
    const found = await apiKeys.findActiveKey(keys, digest);
    if (!found) known.delete(digest);
    else if (!known.has(digest)) {
      if (known.size >= MAX_KNOWN_KEYS) known.clear();
      known.set(digest, found);
    }
    return found;
  };
  const count = async (found: ActiveKey, windowStart: Date): Promise<AuthenticatedKey> => ({
    ...found,
    window_count: await counter.increment(found.key.id, windowStart),
  });
  return {
    store,
    authenticateAndCount: async (digest, windowStart) => {
      const found = await find(digest);
      return found && count(found, windowStart);
    },
    countKnownKey: async (digest, windowStart) => {
      const found = known.get(digest);
      return found ? count(found, windowStart) : null;
    },
    isActive: async (digest) => (await find(digest)) !== null,
    forget: (digest) => known.delete(digest),
    close: onClose,
  };
}

/**
 * Counts in this process. JavaScript runs one increment at a time, so the counts are exact without locks.
 * Windows older than the previous one are dropped: a request counted late (received at the end of a window,
 * counted after the next began) still lands in its own window.
 */
export class MemoryWindowCounter implements WindowCounter {
  readonly #windows = new Map<number, Map<string, number>>();
  readonly #windowSeconds: number;

  /** `windowSeconds`: the length of the rate windows, so that a window before the last is dropped. */
  constructor(windowSeconds = WINDOW_SECONDS) {
    this.#windowSeconds = windowSeconds;
  }

  increment(keyId: string, windowStart: Date): number {
    const counts = this.#window(windowStart.getTime());
    const count = (counts.get(keyId) ?? 0) + 1;
    counts.set(keyId, count);
    return count;
  }

  /** Adds counts kept elsewhere (the database's, when this process starts mid-window). */
  seed(windowStart: Date, counts: ReadonlyMap<string, number>): void {
    const window = this.#window(windowStart.getTime());
    for (const [keyId, count] of counts) window.set(keyId, (window.get(keyId) ?? 0) + count);
  }

  /**
   * Raises counts to those kept elsewhere (the database's, which include this process's own as last handed over,
   * and any other process's that counted after them).
   */
  raise(windowStart: Date, counts: ReadonlyMap<string, number>): void {
    const window = this.#window(windowStart.getTime());
    for (const [keyId, count] of counts) window.set(keyId, Math.max(window.get(keyId) ?? 0, count));
  }

  /** The counts of every window still held, by window start. */
  windows(): Map<Date, ReadonlyMap<string, number>> {
    return new Map([...this.#windows].map(([start, counts]) => [new Date(start), counts]));
  }

  #window(startMs: number): Map<string, number> {
    let counts = this.#windows.get(startMs);
    if (!counts) {
      counts = new Map();
      this.#windows.set(startMs, counts);
      const oldest = startMs - this.#windowSeconds * 1000;
      for (const held of this.#windows.keys()) if (held < oldest) this.#windows.delete(held);
    }
    return counts;
  }
}
