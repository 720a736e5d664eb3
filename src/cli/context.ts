import { type AdminServices, composeServices } from '../composition.ts';
import { type Config, cliLogLevel, launchedByNpm, loadConfig } from '../config.ts';
import { type OpenDatabase, openDatabase } from '../db/database.ts';
import { createLogger, type Logger } from '../lib/logger.ts';
import { createSqlPool } from '../repositories/transaction.ts';
import { progressBar } from './progress.ts';

// Reps recomputed at once by a command, each in its own transaction on its own connection of the command's pool.
const RECOMPUTE_CONCURRENCY = 4;

/**
 * Admin commands talk to the database directly, so they work whether or not a server runs: with the
 * embedded database they join the running cluster or start it for the length of the command (it stays up
 * while another Quotient process uses it; see docs/operations.md). They say on stderr which database they use.
 */
export async function withDatabase<T>(run: (database: OpenDatabase, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = adminLogger();
  const database = await openDatabase(config, logger, { poolSize: 4, onNewCluster: announceNewCluster });
  process.stderr.write(`quotient: using ${database.description}\n`);
  try {
    return await run(database, config);
  } finally {
    await database.close();
  }
}

/**
 * The admin use cases of the composition root (src/composition.ts) for one command, over the database of
 * `withDatabase` (a small Prisma pool) and a `pg` pool that connects only when the command ingests or
 * recomputes; a recompute draws a progress bar on a terminal's stderr.
 */
export function withAdminServices<T>(run: (services: AdminServices, config: Config) => Promise<T>): Promise<T> {
  return withDatabase(async (database, config) => {
    // A minute to connect: an import or a recompute keeps the event loop busy for seconds at a time, and a
    // connection opened meanwhile must not time out before its answer is read (a 100,000-row import did).
    const pool = createSqlPool(
      database.url,
      RECOMPUTE_CONCURRENCY + 1,
      (error) => {
        adminLogger().warn({ err: error }, 'an idle database connection of the command pool failed');
      },
      { connectTimeoutMs: 60_000 },
    );
    try {
      const services = composeServices({
        db: database.db,
        pool,
        config,
        recompute: {
          concurrency: RECOMPUTE_CONCURRENCY,
          progress: () => (process.stderr.isTTY ? progressBar(process.stderr) : undefined),
        },
      });
      return await run(services.admin, config);
    } finally {
      await pool.end();
    }
  });
}

/** Said before a brand-new, empty embedded cluster is created, so that a forgotten QUOTIENT_DATA_DIR shows. */
export function announceNewCluster(clusterDir: string): void {
  process.stderr.write(
    `quotient: no database in ${clusterDir} yet: creating a NEW, EMPTY embedded PostgreSQL cluster there.\n` +
      'quotient: if you meant an existing one, stop and set QUOTIENT_DATA_DIR (or DATABASE_URL).\n',
  );
}

export function adminLogger(): Logger {
  return createLogger(cliLogLevel());
}

/**
 * On SIGINT or SIGTERM: log, run the graceful stop, and exit 0 (or 1 when the stop fails). Further signals
 * while stopping (Ctrl-C reaches every process of the terminal's group, and `npm start` forwards it as well)
 * do not cut the stop short.
 */
export function exitGracefullyOnSignals(logger: Logger, message: string, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      logger.info({ signal }, 'already stopping; finishing what is in flight first');
      return;
    }
    stopping = true;
    logger.info({ signal }, message);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  stopWhenLauncherExits(() => shutdown('launcher exited'));
}

/**
 * Under npm the signal may reach a shell instead of this process: `npx quotient serve` runs `sh -c quotient serve`,
 * and a SIGTERM to npx ends that shell, not us. So when launched by npm (npm_command is set), a process whose
 * launcher has gone (it was re-parented) stops as on SIGTERM rather than serve on as an orphan.
 */
function stopWhenLauncherExits(stop: () => void): void {
  if (!launchedByNpm()) return;
  const launcher = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(watch);
    stop();
  }, 250);
  watch.unref();
}
