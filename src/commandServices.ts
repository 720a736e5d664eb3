import { progressBar } from './cli/progress.ts';
import { type AdminServices, composeServices } from './composition.ts';
import { type Config, cliLogLevel, loadConfig } from './config.ts';
import { type OpenDatabase, openDatabase } from './db/database.ts';
import { createLogger, type Logger } from './lib/logger.ts';
import { createSqlPool } from './repositories/transaction.ts';

// The admin commands' wiring, beside src/main.ts's for the server: the database a command opens, its pool and the
// admin use cases composed over them (src/composition.ts). The commands (src/cli/) call these and never see a
// driver.

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
    let services: ReturnType<typeof composeServices> | undefined;
    try {
      services = composeServices({
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
      // A CRM sync the command started ends before its pools do.
      await services?.admin.connections.close();
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
 * A `quotient worker`'s share of the CRM connectors' background work (docs/connectors.md, "Where it runs"): HubSpot's
 * syncs and reconciliation polls, each under its connection's lease, over the composition's services on a small pool
 * of its own. `stop` ends the work in hand (its leases let go) and the pool.
 */
export function startConnectorWork(database: OpenDatabase, config: Config, logger: Logger): { stop(): Promise<void> } {
  const pool = createSqlPool(
    database.url,
    3,
    (error) => logger.warn({ err: error }, 'an idle database connection of the connectors pool failed'),
    { timeouts: config.databaseTimeouts },
  );
  const services = composeServices({ db: database.db, pool, config, recompute: { concurrency: 1 } });
  services.admin.connections.startHubSpotWork(logger);
  return {
    stop: async () => {
      await services.admin.connections.close();
      await pool.end();
    },
  };
}
