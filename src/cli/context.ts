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
