import { createPrismaClient, type Database } from '../../src/db/prisma.ts';
import { createSqlPool, type SqlPool } from '../../src/repositories/transaction.ts';

let shared: Database | undefined;
let sharedPool: SqlPool | undefined;

function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the tests with `npm test`');
  return url;
}

/** A Prisma client on the test database for factories and assertions; closed when the test file ends. */
export function testDatabase(): Database {
  shared ??= createPrismaClient(databaseUrl(), 4);
  return shared;
}

/** A `pg` pool on the test database for the composed services (test/helpers/services.ts); ended with the client. */
export function testPool(): SqlPool {
  sharedPool ??= createSqlPool(databaseUrl(), 4, () => {});
  return sharedPool;
}

export async function closeTestDatabase(): Promise<void> {
  await shared?.$disconnect();
  await sharedPool?.end();
  shared = undefined;
  sharedPool = undefined;
}
