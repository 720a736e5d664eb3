import { type Config, loadConfig } from '../config.ts';
import { type OpenDatabase, openDatabase } from '../db/database.ts';
import { createLogger, type Logger } from '../lib/logger.ts';

/**
 * Admin commands talk to the database directly, so they work whether or not a server runs: with the
 * embedded database they join the server's running cluster or start it for the length of the command.
 */
export async function withDatabase<T>(run: (database: OpenDatabase, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = adminLogger();
  const database = await openDatabase(config, logger, { poolSize: 4 });
  try {
    return await run(database, config);
  } finally {
    await database.close();
  }
}

export function adminLogger(): Logger {
  return createLogger(process.env.LOG_LEVEL ?? 'warn');
}

/** On SIGINT or SIGTERM: log, run the graceful stop, and exit 0 (or 1 when the stop fails). */
export function exitGracefullyOnSignals(logger: Logger, message: string, stop: () => Promise<void>): void {
  const shutdown = (signal: string) => {
    logger.info({ signal }, message);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}
