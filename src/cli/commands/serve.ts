import { Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { createLogger } from '../../lib/logger.ts';
import { startServer } from '../../main.ts';
import { exitGracefullyOnSignals } from '../context.ts';
import { print, printFailure } from '../output.ts';

export function serveCommand(): Command {
  return new Command('serve')
    .description('serve the API (embedded PostgreSQL unless DATABASE_URL is set)')
    .option('--port <port>', 'port to listen on (default: PORT or 3000)')
    .option('--json', 'print one JSON document with the address once serving')
    .action(async (options: { port?: string; json?: boolean }) => {
      let config: ReturnType<typeof loadConfig>;
      try {
        config = loadConfig(undefined, options.port === undefined ? {} : { port: options.port });
      } catch (error) {
        printFailure(options, error);
        return;
      }
      const logger = createLogger(config.logLevel);
      // Signals are handled from the start: one during start-up stops the server once it is up.
      const starting = startServer(config, logger);
      exitGracefullyOnSignals(logger, 'shutting down', async () => (await starting).close());
      const server = await starting;
      print(
        options,
        { url: server.url, port: server.port },
        () => `Quotient is serving on ${server.url} (API reference: ${server.url}/docs)`,
      );
    });
}
