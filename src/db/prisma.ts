import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../../generated/prisma/client.ts';

export type Database = PrismaClient;

export interface ClientOptions {
  /**
   * Commit without waiting for the WAL flush. Only for writes whose loss in a database crash is harmless
   * (rate-limit counters): it keeps the hot counter row's lock short, which is what limits throughput.
   */
  asynchronousCommit?: boolean;
}

export function createPrismaClient(databaseUrl: string, poolSize: number, options: ClientOptions = {}): Database {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: poolSize,
    ...(options.asynchronousCommit ? { options: '-c synchronous_commit=off' } : {}),
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  return new PrismaClient({ adapter });
}
