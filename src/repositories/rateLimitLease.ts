import pg from 'pg';

// Which rate-limit store may count for a database, enforced by PostgreSQL itself: each serving process holds an
// advisory lock on a connection of its own for as long as it serves. A process counting in memory holds it
// exclusively, every other store holds it shared, so a second process on the database cannot start while one
// counts in memory (its counts would not be seen), and a process cannot start counting in memory while any other
// process serves. The lock goes with the connection: a process that dies frees it.
//
// A process that loses the connection (the database restarted, the connection was cut) no longer holds the lock,
// so another process could start meanwhile: the lease says so (`held` false) until it is taken again, on a new
// connection, retried every `retryMs`; the stores refuse to count until then (src/access/leasedKeyGate.ts).

const RATE_LIMIT_LOCK_CLASS = 0x72617465; // "rate"
const RATE_LIMIT_LOCK_ID = 0;
const APPLICATION_NAME = 'quotient:rate-limit-lease';

export interface RateLimitLease {
  /** False from the moment the lease's connection is lost until the lease is taken again. */
  readonly held: boolean;
  release(): Promise<void>;
}

export interface LeaseEvents {
  /** The connection is gone, and the lock with it. */
  onLost(error: Error): void;
  /** The lease is taken again; it counts as held once this is done. */
  onRegained(): Promise<void>;
  /** An attempt to take it again failed; another follows after `retryMs`. */
  onRetryFailed(error: Error): void;
}

export class RateLimitLeaseRefused extends Error {}

export async function takeRateLimitLease(
  databaseUrl: string,
  exclusive: boolean,
  events: LeaseEvents,
  retryMs = 1_000,
): Promise<RateLimitLease> {
  let released = false;
  let held = true;
  let client = await lockOn(databaseUrl, exclusive);
  let retry: NodeJS.Timeout | undefined;
  const lostClients = new WeakSet<pg.Client>();

  const watch = (watched: pg.Client) => {
    const lose = (error: Error) => {
      if (released || lostClients.has(watched)) return;
      lostClients.add(watched);
      held = false;
      watched.end().catch(() => {});
      events.onLost(error);
      retry = setTimeout(retake, retryMs);
    };
    watched.on('error', lose);
    watched.on('end', () => lose(new Error('the rate-limit lease connection ended')));
  };
  const retake = async () => {
    if (released) return;
    let taken: pg.Client | undefined;
    try {
      taken = await lockOn(databaseUrl, exclusive);
      if (released) {
        await taken.end();
        return;
      }
      client = taken;
      watch(taken);
      await events.onRegained();
      // Lost again meanwhile: that loss has already scheduled the next attempt.
      if (!lostClients.has(taken)) held = true;
    } catch (error) {
      events.onRetryFailed(error as Error);
      // Lost again meanwhile: that loss has already scheduled the next attempt.
      if (taken && lostClients.has(taken)) return;
      // Taken, but what had to follow failed: let it go, and take it again from the start.
      if (taken) {
        lostClients.add(taken);
        await taken.end().catch(() => {});
      }
      if (!released) retry = setTimeout(retake, retryMs);
    }
  };
  watch(client);

  return {
    get held() {
      return held;
    },
    release: async () => {
      released = true;
      clearTimeout(retry);
      await client.end().catch(() => {});
    },
  };
}

/** A new connection holding the lock; refused when another process holds it the other way. */
async function lockOn(databaseUrl: string, exclusive: boolean): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: APPLICATION_NAME });
  client.on('error', () => {});
  await client.connect();
  const take = exclusive ? 'pg_try_advisory_lock' : 'pg_try_advisory_lock_shared';
  let taken: boolean;
  try {
    const { rows } = await client.query<{ taken: boolean }>(`SELECT ${take}($1::int, $2::int) AS taken`, [
      RATE_LIMIT_LOCK_CLASS,
      RATE_LIMIT_LOCK_ID,
    ]);
    taken = rows[0]?.taken === true;
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  if (!taken) {
    await client.end();
    throw new RateLimitLeaseRefused(
      exclusive
        ? 'another Quotient process serves this database, so rate limits cannot be counted in this process alone: ' +
            'set QUOTIENT_RATE_LIMIT_STORE=redis (with QUOTIENT_REDIS_URL) or postgres on every instance'
        : 'a Quotient process that counts rate limits in memory serves this database: stop it, or set ' +
            'QUOTIENT_RATE_LIMIT_STORE=redis (with QUOTIENT_REDIS_URL) or postgres on every instance',
    );
  }
  return client;
}
