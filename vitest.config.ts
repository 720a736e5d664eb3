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

// The integration files that share their workers (the integration-shared project below): each uses only the shared
// fixtures (test/helpers/fixtures.ts: a server, pools and Chromium per file, each closed with the file) and the CLI
// hosts of test/helpers/cli.ts, sets no environment variable, global or prototype and leaves no timer running, and
// each was run in a shared worker after other files (docs/testing.md, "Workers"). A file is added here once it has
// been run so; the others keep a fresh worker each.
const SHARED_INTEGRATION_FILES = [
  'test/integration/accounting.test.ts',
  'test/integration/admin-api.test.ts',
  'test/integration/admin-console.e2e.test.ts',
  'test/integration/admins-cli.test.ts',
  'test/integration/deals.test.ts',
  'test/integration/error-codes.test.ts',
  'test/integration/estimates.test.ts',
  'test/integration/ingestion.test.ts',
  'test/integration/periods.test.ts',
  'test/integration/plan-validity.test.ts',
  'test/integration/plans.test.ts',
  'test/integration/portal-pages.e2e.test.ts',
  'test/integration/users.test.ts',
  'test/integration/write-guard.test.ts',
];

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
      // Servers, processes, browsers and process-wide state (loggers, environment): a fresh worker per file, but for
      // the files of SHARED_INTEGRATION_FILES.
      // Three workers on two cores: an integration worker waits most of its time (on its servers' children, new
      // clusters, rate windows; 429 CPU s in 3,987 s of wall over 35 files), so a third file's work fills the
      // waits of the other two. Its own group, after the unit files, as vitest runs a group's projects with one
      // worker count.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/faults/**/*.test.ts'],
          exclude: SHARED_INTEGRATION_FILES,
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
      // The integration files of SHARED_INTEGRATION_FILES share their workers as the unit files do: no fork, vitest
      // runtime and load of src/main.ts (2.1 CPU s) per file, and the CLI hosts, Quotient loaded once, serve the
      // next file of the worker too. In the same group and with the same worker count as the integration project.
      {
        extends: true,
        test: {
          name: 'integration-shared',
          include: SHARED_INTEGRATION_FILES,
          isolate: false,
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
