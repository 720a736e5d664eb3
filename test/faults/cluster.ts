import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, openEmbeddedDatabase } from '../../src/db/embedded.ts';
import { applyMigrations } from '../../src/db/migrate.ts';

// A throwaway PostgreSQL cluster for fault tests: started here, in a temporary directory, whatever DATABASE_URL
// says, so that stopping, freezing or killing it touches nothing else on the machine. Signals go to this cluster's
// own postmaster (from its postmaster.pid) and that postmaster's children, never to a process found by name.
// The cluster keeps PostgreSQL's durable defaults (fsync, synchronous commit): an immediate stop is a crash, and
// what was acknowledged before it must survive.

export interface ThrowawayCluster {
  url: string;
  /** Stops the server as `pg_ctl stop -m fast` (SIGINT) or `-m immediate` (SIGQUIT) does, and waits for it. */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port, so clients that knew it find it again. */
  start(): Promise<void>;
  /** SIGSTOP to the postmaster and every child: connections stay open, nothing answers. */
  freeze(): Promise<void>;
  /** SIGCONT to every process freeze() stopped. */
  thaw(): void;
  /** pg_terminate_backend on every other client session of the database; returns how many ended. */
  terminateSessions(): Promise<number>;
  /** Runs `sql` in a session of its own and keeps that session (and its transaction) until release(). */
  holdInTransaction(sql: string, values?: unknown[]): Promise<{ release(): Promise<void> }>;
  query<Row>(sql: string, values?: unknown[]): Promise<Row[]>;
  destroy(): Promise<void>;
}

export async function startThrowawayCluster(): Promise<ThrowawayCluster> {
  const dataDir = await mkdtemp(join(tmpdir(), 'quotient-faults-'));
  await chmod(dataDir, 0o755);
  const port = await freePort();
  // Stopped through its postmaster's pid, not the handle: after a stop and start the first handle's process is gone.
  const { url } = await openEmbeddedDatabase(dataDir, { port });
  await applyMigrations(url);
  let frozen: number[] = [];

  const postmasterPid = async (): Promise<number> => {
    const pid = Number((await readFile(join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0) throw new Error('the throwaway cluster has no postmaster');
    return pid;
  };

  const withClient = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url, application_name: 'quotient-fault-test' });
    client.on('error', () => {});
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => {});
    }
  };

  const cluster: ThrowawayCluster = {
    url,
    async stop(mode) {
      const pid = await postmasterPid();
      process.kill(pid, mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
      while (isAlive(pid)) await pause(50);
    },
    async start() {
      await openEmbeddedDatabase(dataDir, { port });
    },
    async freeze() {
      const pid = await postmasterPid();
      frozen = [pid, ...(await childrenOf(pid))];
      for (const member of frozen) signal(member, 'SIGSTOP');
    },
    thaw() {
      for (const member of frozen) signal(member, 'SIGCONT');
      frozen = [];
    },
    terminateSessions: () =>
      withClient(async (client) => {
        const { rows } = await client.query<{ ended: boolean }>(
          `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        );
        return rows.filter((row) => row.ended).length;
      }),
    async holdInTransaction(sql, values = []) {
      const client = new pg.Client({ connectionString: url, application_name: 'quotient-fault-test' });
      client.on('error', () => {});
      await client.connect();
      await client.query('BEGIN');
      await client.query(sql, values);
      return {
        release: async () => {
          await client.query('ROLLBACK').catch(() => {});
          await client.end().catch(() => {});
        },
      };
    },
    query: (sql, values = []) => withClient(async (client) => (await client.query(sql, values)).rows),
    async destroy() {
      cluster.thaw();
      const pid = await postmasterPid().catch(() => null);
      if (pid !== null && isAlive(pid)) {
        process.kill(pid, 'SIGINT');
        while (isAlive(pid)) await pause(50);
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  return cluster;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // It exited in the meantime.
  }
}

/** The direct children of a process, from /proc (the postmaster's backends and auxiliary processes). */
async function childrenOf(parent: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, 'utf8').catch(() => '');
    const ppid = /^PPid:\s+(\d+)/m.exec(status)?.[1];
    if (Number(ppid) === parent) children.push(Number(entry));
  }
  return children;
}

export function pause(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
