import { defineConfig } from 'vitest/config';

// `npm test`: unit and integration tests against a real PostgreSQL (see test/setup/database.ts).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/faults/**/*.test.ts'],
    globalSetup: ['test/setup/database.ts', 'test/setup/console.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Integration tests start real servers, processes and databases on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/setup/summaryReporter.ts'],
  },
});
