import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../generated/prisma/client.ts';
import { type DatabaseTimeouts, readTimeoutMs, serverTimeoutOptions } from './availability.ts';

export type Database = PrismaClient;

/**
 * Prisma on its own `pg` pool. The adapter listens for 'error' on idle and checked-out connections, so a
 * broken session fails its query and never the process. With `timeouts` (the server's request paths), every
 * connect, pool wait, statement and lock wait is bounded.
 */
export function createPrismaClient(databaseUrl: string, poolSize: number, timeouts?: DatabaseTimeouts): Database {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: poolSize,
    connectionTimeoutMillis: timeouts?.connectMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    ...(timeouts ? { query_timeout: readTimeoutMs(timeouts), options: serverTimeoutOptions(timeouts) } : {}),
  });
  return new PrismaClient({ adapter });
}
