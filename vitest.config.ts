import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Node's compile cache for every process of the run: the forked test workers (their node_modules imports), the CLI
// hosts (test/helpers/cliHost.ts, which load Quotient from the TypeScript sources) and every `quotient` process a
// test spawns with the run's environment. Loading src/cli/program.ts costs 1.7-1.9 CPU s with a warm cache and
// 2.9-3.2 s without (Node 24, 2 December, load 7). bin/quotient.js enables the same cache (same directory) itself.
// Set before the workers fork, so they and their children inherit it; a cache is keyed by the file's content and
// Node's version, so it never serves stale code.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'node-compile-cache');

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
      // Run first, on the two cores' two workers.
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      // Servers, processes, browsers and process-wide state (loggers, environment): a fresh worker per file.
      // Three workers on two cores: an integration worker waits most of its time (on its servers' children, new
      // clusters, rate windows; 429 CPU s in 3,987 s of wall over 35 files), so a third file's work fills the
      // waits of the other two. Its own group, after the unit files, as vitest runs a group's projects with one
      // worker count.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/faults/**/*.test.ts'],
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
