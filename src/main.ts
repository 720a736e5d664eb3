import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openKeyGate } from './access/leasedKeyGate.ts';
import type { KeyGate } from './access/rateLimitStore.ts';
import { AuditLog } from './audit/requestLog.ts';
import { composeServices } from './composition.ts';
import type { Config } from './config.ts';
import { openDatabase } from './db/database.ts';
import { createApp } from './http/app.ts';
import { loadAdminContract, loadContract } from './http/contract.ts';
import { Metrics } from './http/metrics.ts';
import type { Logger } from './lib/logger.ts';
import * as rateLimitCounters from './repositories/rateLimitCounters.ts';
import * as repTokens from './repositories/repTokens.ts';
import { createSqlPool, databaseStatements, poolStatements } from './repositories/transaction.ts';
import * as webhookDeliveries from './repositories/webhookDeliveries.ts';
import { WebhookWorker } from './webhooks/worker.ts';

export interface RunningServer {
  url: string;
  port: number;
  databaseUrl: string;
  /**
   * Graceful: stop accepting, finish in-flight requests and webhook attempts, write the audit buffer, close the
   * database.
   */
  close(): Promise<void>;
}

/** Counters are kept ten minutes, and at least two windows (a window longer than the sweep keeps its counts). */
function counterRetentionMs(windowSeconds: number): number {
  return Math.max(10 * 60 * 1000, 2 * windowSeconds * 1000);
}

export interface ServerOptions {
  /** The admin sessions' clock (tests move it to expire sessions and throttle windows). */
  now?: () => Date;
}

/** Wires configuration, database and the app, and listens. Knows nothing about signals or the CLI. */
export async function startServer(config: Config, logger: Logger, options: ServerOptions = {}): Promise<RunningServer> {
  const database = await openDatabase(config, logger, {
    timeouts: config.databaseTimeouts,
    onNewCluster: (clusterDir) =>
      logger.warn(
        { cluster_dir: clusterDir },
        'no database here yet: creating a new, empty embedded PostgreSQL cluster',
      ),
  });
  logger.info({ database: database.description }, 'database open');
  // The access layer's hot path: its own small pool, commits not waiting for the disk (see apiKeys.findActiveKey).
  const countersPool = createSqlPool(
    database.url,
    Math.max(2, Math.ceil(config.databasePoolSize / 2)),
    (error) => logger.warn({ err: error }, 'an idle database connection of the counters pool failed'),
    { asynchronousCommit: true, timeouts: config.databaseTimeouts },
  );
  const authentication = poolStatements(countersPool);
  let keyGate: KeyGate;
  try {
    keyGate = await openKeyGate(config.rateLimits, database.sessionUrl, authentication, logger);
  } catch (error) {
    await countersPool.end();
    await database.close();
    throw error;
  }
  // The deal pipeline's own pool: plain `pg` with prepared statements (see src/repositories/transaction.ts).
  const dealsPool = createSqlPool(
    database.url,
    config.databasePoolSize,
    (error) => logger.warn({ err: error }, 'an idle database connection of the deals pool failed'),
    { timeouts: config.databaseTimeouts },
  );
  const auditLog = new AuditLog(poolStatements(dealsPool), logger);
  auditLog.start();
  const metrics = new Metrics(
    () => auditLog.depth(),
    keyGate.store,
    () => webhookDeliveries.pendingBacklog(databaseStatements(database.db)),
  );
  // A recompute after an admin change runs on the deals pool, two reps at a time, beside the requests.
  const services = composeServices({
    db: database.db,
    pool: dealsPool,
    config,
    recompute: { concurrency: 2 },
    ...(options.now ? { now: options.now } : {}),
  });
  const adminSessions = services.admin.sessions;
  const app = createApp({
    contract: loadContract(),
    logger,
    metrics,
    auditLog,
    keys: keyGate,
    rateWindowSeconds: config.rateLimits.windowSeconds,
    accessStatements: authentication,
    ...(options.now ? { now: options.now } : {}),
    ...services.api,
    isReady: database.isReady,
    validateResponses: config.validateResponses,
    admin: { contract: loadAdminContract(), services: services.admin },
    portal: services.portal,
  });

  const retentionMs = counterRetentionMs(config.rateLimits.windowSeconds);
  // Plan scenarios (docs/scenarios.md): runs a stopped or killed process left are resumed, and ended scenarios not
  // kept are deleted after their retention; at the start and then with the sweeper.
  const scenarioUpkeep = () => {
    services.admin.scenarios
      .resumeInterrupted()
      .then((resumed) => {
        if (resumed.length > 0) logger.info({ scenarios: resumed }, 'resumed interrupted plan scenarios');
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'could not resume interrupted plan scenarios'));
    services.admin.scenarios
      .sweep()
      .catch((error: unknown) => logger.warn({ err: error }, 'could not delete old plan scenarios'));
  };
  const sweeper = setInterval(() => {
    rateLimitCounters
      .deleteCountersBefore(authentication, new Date(Date.now() - retentionMs))
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'could not delete old rate-limit counters');
      });
    repTokens.deleteCountersBefore(authentication, new Date(Date.now() - retentionMs)).catch((error: unknown) => {
      logger.warn({ err: error }, "could not delete old reps' rate-limit counters");
    });
    adminSessions.forgetOldFailures().catch((error: unknown) => {
      logger.warn({ err: error }, 'could not delete old sign-in failures');
    });
    services.portal.signIn.forgetExpired().catch((error: unknown) => {
      logger.warn({ err: error }, 'could not delete expired portal sign-ins');
    });
    scenarioUpkeep();
  }, 60_000);
  sweeper.unref();

  // Delivers webhooks from the outbox, unless separate `quotient worker` processes do.
  const webhookWorker = config.webhooks.workerInServe
    ? new WebhookWorker(
        database.transactor,
        config.webhooks,
        logger,
        config.webhooks.workerOrgIds ? { orgIds: config.webhooks.workerOrgIds } : {},
      )
    : undefined;
  webhookWorker?.start();

  const server = await listen(app, config.host, config.port);
  // Salesforce's Change Data Capture subscribers, one per connection across the processes (docs/connectors.md).
  services.admin.connections.startSubscribers(logger).catch((error: unknown) => {
    logger.warn({ err: error }, 'could not start the Salesforce change subscribers');
  });
  scenarioUpkeep();
  const { port } = server.address() as AddressInfo;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${shownHost}:${port}`;
  logger.info({ url, embedded_database: database.embedded, rate_limit_store: keyGate.store }, 'quotient is serving');

  let closing: Promise<void> | undefined;
  const close = async () => {
    clearInterval(sweeper);
    // Open event streams would hold the server until the grace period; their clients reconnect elsewhere.
    services.api.earningsStream.endAll();
    await Promise.all([stopListening(server, config.shutdownGraceSeconds * 1000), webhookWorker?.stop()]);
    await services.admin.connections.close();
    await services.admin.scenarios.close();
    await auditLog.close();
    await keyGate.close();
    await Promise.all([dealsPool.end(), countersPool.end()]);
    await database.close();
    logger.info('quotient stopped');
  };
  return {
    url,
    port,
    databaseUrl: database.url,
    close: () => {
      closing ??= close();
      return closing;
    },
  };
}

function listen(app: ReturnType<typeof createApp>, host: string, port: number): Promise<Server> {
  return new Promise((done, fail) => {
    const server = app.listen(port, host, (error?: Error) => (error ? fail(error) : done(server)));
    server.keepAliveTimeout = 65_000;
  });
}

/** Waits for in-flight requests; idle keep-alive sockets close at once, busy ones after the grace period. */
function stopListening(server: Server, graceMs: number): Promise<void> {
  // Keep-alive clients would otherwise keep sending on their open sockets until the grace period ends.
  server.on('request', (_req, res) => res.setHeader('Connection', 'close'));
  return new Promise((done) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    // Sockets that finish their last request during the grace period become idle: close them as they do.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearTimeout(force);
      clearInterval(sweep);
      done();
    });
    server.closeIdleConnections();
  });
}
