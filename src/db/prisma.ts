import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../../generated/prisma/client.ts';
import {
  type DatabaseTimeouts,
  listenForErrorsFromTheStart,
  readTimeoutMs,
  serverTimeoutOptions,
} from './availability.ts';
import { throughTransactionPooler } from './pooler.ts';

export type Database = PrismaClient;

/**
 * Prisma on its own `pg` pool. The adapter listens for 'error' on idle connections and on those of its
 * transactions; every connection also has a listener of its own from the moment it connects (see
 * listenForErrorsFromTheStart), so a broken session fails its query and never the process. With `timeouts`
 * (the server's request paths), every connect, pool wait, statement and lock wait is bounded. Through a
 * transaction pooler, which refuses session settings, the server-side bounds are the database role's (see
 * docs/operations.md, "Behind PgBouncer"); the client-side ones hold all the same.
 */
export function createPrismaClient(databaseUrl: string, poolSize: number, timeouts?: DatabaseTimeouts): Database {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    connectionTimeoutMillis: timeouts?.connectMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    ...(timeouts ? { query_timeout: readTimeoutMs(timeouts) } : {}),
    ...(timeouts && !throughTransactionPooler(databaseUrl) ? { options: serverTimeoutOptions(timeouts) } : {}),
  });
  listenForErrorsFromTheStart(pool);
  const adapter = new PrismaPg(pool, { disposeExternalPool: true });
  return new PrismaClient({ adapter });
}
