import { createPrismaClient, type Database } from '../../src/db/prisma.ts';

let shared: Database | undefined;

/** A Prisma client on the test database for factories and assertions; closed when the test file ends. */
export function testDatabase(): Database {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set: run the tests with `npm test`');
  shared ??= createPrismaClient(databaseUrl, 4);
  return shared;
}

export async function closeTestDatabase(): Promise<void> {
  await shared?.$disconnect();
  shared = undefined;
}
