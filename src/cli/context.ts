import { launchedByNpm } from '../config.ts';
import type { Logger } from '../lib/logger.ts';

export { adminLogger, announceNewCluster, withAdminServices, withDatabase } from '../commandServices.ts';

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
