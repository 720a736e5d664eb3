import { resolve } from 'node:path';

// Every setting Quotient reads from the environment, parsed once. The README's configuration table lists them.
export interface Config {
  /** PostgreSQL to use; when absent, an embedded PostgreSQL runs under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  host: string;
  port: number;
  logLevel: string;
  /** Validate every response against the contract (tests turn it on; a mismatch becomes a 500). */
  validateResponses: boolean;
  /** Size of the database connection pool of one process. */
  databasePoolSize: number;
  /** Seconds a graceful shutdown waits for in-flight requests before closing connections. */
  shutdownGraceSeconds: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    databaseUrl: nonEmpty(env.DATABASE_URL),
    dataDir: resolve(nonEmpty(env.QUOTIENT_DATA_DIR) ?? '.quotient'),
    host: nonEmpty(env.HOST) ?? '0.0.0.0',
    port: integer('PORT', env.PORT, 3000, 0, 65535),
    logLevel: nonEmpty(env.LOG_LEVEL) ?? 'info',
    validateResponses: env.QUOTIENT_VALIDATE_RESPONSES === 'true',
    databasePoolSize: integer('QUOTIENT_DB_POOL_SIZE', env.QUOTIENT_DB_POOL_SIZE, 20, 1, 500),
    shutdownGraceSeconds: integer('QUOTIENT_SHUTDOWN_GRACE_SECONDS', env.QUOTIENT_SHUTDOWN_GRACE_SECONDS, 10, 0, 600),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (nonEmpty(raw) === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}
