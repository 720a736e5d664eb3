import pg from 'pg';
import type { Config } from '../config.ts';
import type { Logger } from '../lib/logger.ts';
import { prismaTransactor, type Transactor } from '../repositories/transaction.ts';
import type { DatabaseTimeouts } from './availability.ts';
import { openEmbeddedDatabase } from './embedded.ts';
import { applyMigrations } from './migrate.ts';
import { sessionUrl } from './pooler.ts';
import { createPrismaClient, type Database } from './prisma.ts';

export interface OpenDatabase {
  db: Database;
  /** The transaction port over `db`, for what runs outside the composition (the webhook worker). */
  transactor: Transactor;
  url: string;
  /** For work that needs a session of its own: `url` itself unless that goes through a transaction pooler. */
  sessionUrl: string;
  embedded: boolean;
  /** Which database this is, for people: never a password. */
  description: string;
  /** Migrations this call applied (none when the schema was current). */
  appliedMigrations: string[];
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The database of this process: DATABASE_URL when set, else the embedded PostgreSQL under the data
 * directory (started, or joined when another Quotient process already runs it). Migrations are applied
 * before anything else touches it, on a session of their own (QUOTIENT_DIRECT_DATABASE_URL when DATABASE_URL goes
 * through a transaction pooler).
 */
export async function openDatabase(
  config: Config,
  logger: Logger,
  options: { poolSize?: number; timeouts?: DatabaseTimeouts; onNewCluster?: (clusterDir: string) => void } = {},
): Promise<OpenDatabase> {
  const embedded = config.databaseUrl
    ? undefined
    : await openEmbeddedDatabase(config.dataDir, {
        log: (message) => logger.debug({ postgres: message }, 'embedded postgres'),
        ...(options.onNewCluster ? { onCreate: options.onNewCluster } : {}),
      });
  const url = config.databaseUrl ?? (embedded as { url: string }).url;
  let appliedMigrations: string[];
  let direct: string;
  try {
    direct = config.databaseUrl ? sessionUrl(url, config.databaseDirectUrl) : url;
    ({ applied: appliedMigrations } = await applyMigrations(direct, { log: (message) => logger.info(message) }));
    if (appliedMigrations.length > 0) logger.info({ applied: appliedMigrations }, 'applied database migrations');
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const poolSize = options.poolSize ?? config.databasePoolSize;
  const db = createPrismaClient(url, poolSize, options.timeouts);
  return {
    db,
    transactor: prismaTransactor(db),
    url,
    sessionUrl: direct,
    embedded: embedded !== undefined,
    description: embedded
      ? `the embedded PostgreSQL in ${embedded.dataDir} (${EMBEDDED_START[embedded.start]})`
      : `DATABASE_URL (${describeUrl(url)})`,
    appliedMigrations,
    isReady: readinessCheck(() => db.$queryRaw`SELECT 1`),
    close: async () => {
      await db.$disconnect();
      await embedded?.stop();
    },
  };
}

/**
 * How long `/readyz` waits for the database's `SELECT 1` before it answers 503 (not ready): a slow database is
 * reported as not ready, within the probe's own time, rather than left to time the probe out (docs/operations.md
 * "Readiness"). Probes that arrive while a check is still waiting share it, so a stalled database is not sent one
 * more `SELECT 1` (and one more pooled connection's wait) per probe.
 */
export const READINESS_TIMEOUT_MS = 2_000;

/** `isReady` over `select`: true when it answers within READINESS_TIMEOUT_MS; concurrent callers share one check. */
export function readinessCheck(
  select: () => Promise<unknown>,
  timeoutMs = READINESS_TIMEOUT_MS,
): () => Promise<boolean> {
  let inFlight: Promise<boolean> | undefined;
  return () => {
    inFlight ??= new Promise<boolean>((answer) => {
      const timer = setTimeout(() => answer(false), timeoutMs);
      timer.unref();
      const settle = (ready: boolean) => {
        clearTimeout(timer);
        answer(ready);
      };
      select().then(
        () => settle(true),
        () => settle(false),
      );
    }).finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}

const EMBEDDED_START = {
  created: 'a new, empty cluster, started by this process',
  started: 'started by this process',
  joined: 'joined: another Quotient process had started it',
} as const;

/** host:port/database of a connection string, without user or password. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return 'an unparsable connection string';
  }
}

/** Whether the database at `url` answers a select within a few seconds (`quotient db status`). */
export async function probeDatabase(url: string): Promise<{ reachable: true } | { reachable: false; reason: string }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { reachable: true };
  } catch (error) {
    return { reachable: false, reason: (error as Error).message };
  } finally {
    await client.end().catch(() => {});
  }
}
