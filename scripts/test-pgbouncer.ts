// `npm run test:pgbouncer [-- <test files>]`: the integration tests that cover every kind of database work the
// server, the CLI and the webhook worker do, run with DATABASE_URL through Debian's PgBouncer in transaction
// pooling mode (the way large deployments share connections), the migrations and the rate-limit lease on the
// direct URL (QUOTIENT_DIRECT_DATABASE_URL). docs/operations.md, "Behind PgBouncer".
//
// PgBouncer comes from the machine (`apt-get install pgbouncer`), not from npm: `npm test` needs nothing
// installed by hand, this extra run does. It fronts DATABASE_URL when that is set (a direct URL to the machine's
// PostgreSQL, say), else a throwaway embedded PostgreSQL started here.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort, openEmbeddedDatabase, postgresUser } from '../src/db/embedded.ts';

/**
 * The files run through PgBouncer: API keys and rate limits, deal ingestion and its pipeline, earnings and their
 * reads, plans (API and `plans apply`), periods, the CLI, the admin API, webhook delivery by the worker and the
 * outbox, statements pipelined in one transaction. Left out: tests of migrations (they take their lock on a
 * direct session, as the server does), tests that start clusters of their own, browser tests, and process and
 * fault tests that stop PostgreSQL itself.
 */
const DEFAULT_FILES = [
  'test/integration/access.test.ts',
  'test/integration/deals.test.ts',
  // The feed's horizon: writer slots locked in the writers' transactions, readers' waits bounded per transaction.
  'test/integration/feed-horizon.test.ts',
  'test/integration/ingestion.test.ts',
  'test/integration/earnings.test.ts',
  'test/integration/plans.test.ts',
  'test/integration/plans-api.test.ts',
  'test/integration/periods.test.ts',
  'test/integration/cli.test.ts',
  'test/integration/admin-api.test.ts',
  'test/integration/webhooks-delivery.test.ts',
  'test/integration/webhooks-outbox.test.ts',
  'test/integration/transaction-pipelining.test.ts',
  // The live event stream reads the earnings table by time, which must work through the pooler (no LISTEN).
  'test/integration/statement-downloads-and-stream.test.ts',
];

function findPgBouncer(): string {
  // Debian installs it in /usr/sbin, which is not on every user's PATH.
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    const candidate = join(dir, 'pgbouncer');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  process.stderr.write(
    "test:pgbouncer: no `pgbouncer` on PATH or in /usr/sbin. Install Debian's package: apt-get install pgbouncer\n",
  );
  process.exit(1);
}

/** PgBouncer's [databases] entry for a direct connection string (libpq keywords), without a database name. */
function backendLine(directUrl: string): string {
  const url = new URL(directUrl);
  const keywords = {
    host: url.hostname,
    port: url.port || '5432',
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
  return Object.entries(keywords)
    .filter(([, value]) => value !== '')
    .map(([keyword, value]) => `${keyword}=${value}`)
    .join(' ');
}

async function waitUntilServing(url: string, bouncer: ChildProcess, logFile: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (bouncer.exitCode !== null) break;
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch {
      await client.end().catch(() => {});
      await sleep(100);
    }
  }
  throw new Error(`PgBouncer did not serve ${url}:\n${readFileSync(logFile, 'utf8')}`);
}

async function main(): Promise<number> {
  const pgbouncer = findPgBouncer();
  const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : DEFAULT_FILES;
  const dir = await mkdtemp(join(tmpdir(), 'quotient-pgbouncer-'));
  await chmod(dir, 0o755);
  const cleanups: (() => Promise<void>)[] = [() => rm(dir, { recursive: true, force: true })];
  try {
    let directUrl = process.env.DATABASE_URL;
    if (!directUrl) {
      const embedded = await openEmbeddedDatabase(join(dir, 'data'), { fast: true });
      cleanups.unshift(() => embedded.stop());
      directUrl = embedded.url;
    }
    const port = await freePort();
    const logFile = join(dir, 'pgbouncer.log');
    // Transaction pooling, as deployed; a server pool smaller than the clients, so that transactions do share
    // server connections. PgBouncer refuses to run as root: as root it runs as `postgres`.
    const ini = [
      // Every database name a client asks for, on the same server: the test database and the tests' scratch ones.
      '[databases]',
      `* = ${backendLine(directUrl)}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      'max_client_conn = 2000',
      'default_pool_size = 30',
      `logfile = ${logFile}`,
      'log_connections = 0',
      'log_disconnections = 0',
      '',
    ].join('\n');
    const iniFile = join(dir, 'pgbouncer.ini');
    await writeFile(iniFile, ini, { mode: 0o600 });
    await writeFile(logFile, '');
    const runAs = postgresUser();
    if (runAs) await Promise.all([chown(iniFile, runAs.uid, runAs.gid), chown(logFile, runAs.uid, runAs.gid)]);
    const bouncer = spawn(pgbouncer, ['-q', ...(runAs ? ['-u', 'postgres'] : []), iniFile], { stdio: 'inherit' });
    cleanups.unshift(async () => {
      if (bouncer.exitCode === null) {
        const exited = new Promise((done) => bouncer.once('exit', done));
        bouncer.kill('SIGINT');
        await exited;
      }
    });
    const pooledUrl = `postgresql://quotient@127.0.0.1:${port}${new URL(directUrl).pathname}?pgbouncer=true`;
    await waitUntilServing(pooledUrl, bouncer, logFile);
    process.stdout.write(`PgBouncer (transaction pooling) on 127.0.0.1:${port} in front of ${redacted(directUrl)}\n`);
    const vitest = spawn(join('node_modules', '.bin', 'vitest'), ['run', ...files], {
      stdio: 'inherit',
      env: { ...process.env, DATABASE_URL: pooledUrl, QUOTIENT_DIRECT_DATABASE_URL: directUrl },
    });
    return await new Promise<number>((done) => vitest.once('exit', (code) => done(code ?? 1)));
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

function redacted(url: string): string {
  return url.replace(/:[^:@/]*@/, ':***@');
}

process.exitCode = await main();
