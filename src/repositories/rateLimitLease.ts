import pg from 'pg';

// Which rate-limit store may count for a database, enforced by PostgreSQL itself: each serving process holds an
// advisory lock on a connection of its own for as long as it serves. A process counting in memory holds it
// exclusively, every other store holds it shared, so a second process on the database cannot start while one
// counts in memory (its counts would not be seen), and a process cannot start counting in memory while any other
// process serves. The lock goes with the connection: a process that dies frees it.

const RATE_LIMIT_LOCK_CLASS = 0x72617465; // "rate"
const RATE_LIMIT_LOCK_ID = 0;

export interface RateLimitLease {
  release(): Promise<void>;
}

export class RateLimitLeaseRefused extends Error {}

export async function takeRateLimitLease(
  databaseUrl: string,
  exclusive: boolean,
  onLost: (error: Error) => void,
): Promise<RateLimitLease> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'quotient:rate-limit-lease' });
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
  let released = false;
  client.on('error', (error) => {
    if (!released) onLost(error);
  });
  return {
    release: async () => {
      released = true;
      await client.end();
    },
  };
}
