import { defineConfig } from 'vitest/config';

// `npm test`: unit and integration tests against a real PostgreSQL (see test/setup/database.ts).
export default defineConfig({
  test: {
    globalSetup: ['test/setup/database.ts', 'test/setup/console.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Integration tests start real servers, processes and databases on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/setup/summaryReporter.ts'],
    projects: [
      // Pure code: the files share their workers (no fork and module load per file), halving their CPU time.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false } },
      // Servers, processes, browsers and process-wide state (loggers, environment): a fresh worker per file.
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts', 'test/faults/**/*.test.ts'] },
      },
    ],
  },
});
