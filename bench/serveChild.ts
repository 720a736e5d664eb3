import type { Express } from 'express';

/**
 * A bench server child (bench/run.ts, startChild): listens on a free port of 127.0.0.1, prints `{"url": …}` on
 * stdout once it does, and on SIGTERM stops listening and runs `stop`.
 */
export function serveChild(app: Express, stop: () => Promise<unknown>): void {
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(
      `${JSON.stringify({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` })}\n`,
    );
  });
  process.once('SIGTERM', () => {
    server.close();
    void stop();
  });
}
