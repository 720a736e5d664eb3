import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';

// `npm test`: unit and integration tests with Node's test runner against a real PostgreSQL. With
// DATABASE_URL set, that server; otherwise a throwaway embedded PostgreSQL started here for the run.
// Extra arguments are passed to `node --test` (e.g. a single file).

const patterns = process.argv.slice(2);
const files = patterns.length > 0 ? patterns : ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'];

let stopDatabase = async () => {};
// No webhook worker in servers that tests start, unless a test asks for one: a stray worker, with the default
// retry schedule, would take the deliveries of the tests that run their own.
const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test', QUOTIENT_WEBHOOK_WORKER: 'false' };
if (!env.DATABASE_URL) {
  const dataDir = await mkdtemp(join(tmpdir(), 'quotient-test-'));
  await chmod(dataDir, 0o755);
  const database = await openEmbeddedDatabase(dataDir, { fast: true });
  env.DATABASE_URL = database.url;
  stopDatabase = async () => {
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  process.stdout.write(`Testing against an embedded PostgreSQL (${database.url.replace(/:[^:@]*@/, ':***@')})\n`);
} else {
  process.stdout.write(`Testing against DATABASE_URL (${env.DATABASE_URL.replace(/:[^:@]*@/, ':***@')})\n`);
}

// Migrated once up front, so that no test depends on being the first to start a server.
await applyMigrations(env.DATABASE_URL as string);

const code = await new Promise<number>((done) => {
  const child = spawn(process.execPath, ['--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
    env,
    stdio: 'inherit',
  });
  child.on('exit', (exitCode, signal) => done(exitCode ?? (signal ? 1 : 0)));
});
await stopDatabase();
process.exit(code);
