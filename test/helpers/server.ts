import { loadConfig } from '../../src/config.ts';
import { createLogger, type Logger } from '../../src/lib/logger.ts';
import { type RunningServer, type ServerOptions, startServer } from '../../src/main.ts';

/** The real app on port 0 against the test database, validating its own responses against the contract. */
export async function startTestServer(
  overrides: Record<string, string> = {},
  options: ServerOptions = {},
  logger: Logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
): Promise<RunningServer> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set: run the tests with `npm test`');
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    ...(process.env.QUOTIENT_DIRECT_DATABASE_URL
      ? { QUOTIENT_DIRECT_DATABASE_URL: process.env.QUOTIENT_DIRECT_DATABASE_URL }
      : {}),
    HOST: '127.0.0.1',
    PORT: '0',
    QUOTIENT_VALIDATE_RESPONSES: 'true',
    QUOTIENT_DB_POOL_SIZE: '8',
    QUOTIENT_SHUTDOWN_GRACE_SECONDS: '5',
    QUOTIENT_WEBHOOK_WORKER: 'false',
    ...overrides,
  });
  return startServer(config, logger, options);
}
