import { Command } from 'commander';
import { startConnectorWork } from '../../commandServices.ts';
import { loadConfig } from '../../config.ts';
import { openDatabase } from '../../db/database.ts';
import { createLogger } from '../../lib/logger.ts';
import { WebhookWorker } from '../../webhooks/worker.ts';
import { announceNewCluster, exitGracefullyOnSignals } from '../context.ts';
import { print, printFailure } from '../output.ts';

export function workerCommand(): Command {
  return new Command('worker')
    .description(
      "deliver webhooks and run HubSpot connections' syncs and reconciliation polls, apart from the API servers (run any number; set QUOTIENT_WEBHOOK_WORKER=false on `serve` to leave delivery to them)",
    )
    .option('--json', 'print one JSON document once the worker runs')
    .action(async (options: { json?: boolean }) => {
      let config: ReturnType<typeof loadConfig>;
      try {
        config = loadConfig();
      } catch (error) {
        printFailure(options, error);
        return;
      }
      const logger = createLogger(config.logLevel);
      // Signals are handled from the start: one during start-up stops the worker once it is up.
      const starting = (async () => {
        const database = await openDatabase(config, logger, {
          poolSize: config.webhooks.concurrency + 2,
          onNewCluster: announceNewCluster,
        });
        logger.info({ database: database.description }, 'database open');
        const worker = new WebhookWorker(
          database.transactor,
          config.webhooks,
          logger,
          config.webhooks.workerOrgIds ? { orgIds: config.webhooks.workerOrgIds } : {},
        );
        worker.start();
        // HubSpot's syncs and reconciliation polls, under each connection's lease (docs/connectors.md).
        const connectors = startConnectorWork(database, config, logger);
        return { database, worker, connectors };
      })();
      exitGracefullyOnSignals(logger, 'stopping the webhook worker after the attempts in flight', async () => {
        const { database, worker, connectors } = await starting;
        await Promise.all([worker.stop(), connectors.stop()]);
        await database.close();
      });
      await starting;
      logger.info({ concurrency: config.webhooks.concurrency }, 'webhook worker started');
      print(
        options,
        { status: 'running', pid: process.pid, concurrency: config.webhooks.concurrency },
        () => `Delivering webhooks (pid ${process.pid}, ${config.webhooks.concurrency} at a time); Ctrl-C stops.`,
      );
    });
}
