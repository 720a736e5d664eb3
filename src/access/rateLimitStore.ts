import type { ActiveKey, AuthenticatedKey, KeyAuthentication } from '../repositories/keyAuthentication.ts';
import { WINDOW_SECONDS } from './rateLimit.ts';

// Where the fixed-window counts live. Every store is exact; they differ in who can share
// it. `memory`: counted in this process, no I/O at all, exact only while this process is the one instance that
// serves the database (a lease on the database, see RateLimitLease, makes sure of it). `redis`: one atomic
// script per request on a Redis that every instance uses. `postgres`: one upsert per request on the key's
// counter row, in the statement that finds the key; exact across instances, but every request of a key queues
// on that row.

export const RATE_LIMIT_STORES = ['memory', 'redis', 'postgres'] as const;
export type RateLimitStoreKind = (typeof RATE_LIMIT_STORES)[number];

/** Finds an active key by its digest and counts the request in the key's current window. */
export interface KeyGate {
  readonly store: RateLimitStoreKind;
  /** Null when the key is unknown or revoked (then nothing is counted). */
  authenticateAndCount(digest: string, windowStart: Date): Promise<AuthenticatedKey | null>;
  /** Stops counting; a store held in memory hands its counts to the database first. */
  close(): Promise<void>;
}

/** A counter of requests per key and window that lives outside the key's database row. */
export interface WindowCounter {
  /** The window's count of the key after counting this request. */
  increment(keyId: string, windowStart: Date): Promise<number> | number;
}

/** The `postgres` store: the key's lookup and its counter's upsert are one statement. */
export function postgresGate(keys: KeyAuthentication): KeyGate {
  return {
    store: 'postgres',
    authenticateAndCount: (digest, windowStart) => keys.authenticateAndCount(digest, windowStart),
    close: async () => {},
  };
}

/** The `memory` and `redis` stores: the key is read from the database (never cached), then counted here. */
export function countingGate(
  store: Exclude<RateLimitStoreKind, 'postgres'>,
  keys: { findActiveKey(digest: string): Promise<ActiveKey | null> },
  counter: WindowCounter,
  onClose: () => Promise<void> = async () => {},
): KeyGate {
  return {
    store,
    authenticateAndCount: async (digest, windowStart) => {
      const found = await keys.findActiveKey(digest);
      if (!found) return null;
      return { ...found, window_count: await counter.increment(found.key.id, windowStart) };
    },
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

  /** The counts of every window still held, by window start. */
  windows(): Map<Date, ReadonlyMap<string, number>> {
    return new Map([...this.#windows].map(([start, counts]) => [new Date(start), counts]));
  }

  #window(startMs: number): Map<string, number> {
    let counts = this.#windows.get(startMs);
    if (!counts) {
      counts = new Map();
      this.#windows.set(startMs, counts);
      const oldest = startMs - WINDOW_SECONDS * 1000;
      for (const held of this.#windows.keys()) if (held < oldest) this.#windows.delete(held);
    }
    return counts;
  }
}
