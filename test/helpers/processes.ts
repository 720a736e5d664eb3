import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { QUOTIENT_BIN } from './cli.ts';

// Real Quotient processes on throwaway embedded clusters, watched by the PIDs this test spawned (and their
// children), never by name.

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A data directory of its own (755: as root, PostgreSQL runs as the `postgres` user and must traverse it). */
export async function throwawayDataDir(): Promise<{ dir: string; env: NodeJS.ProcessEnv; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'quotient-proc-'));
  await chmod(dir, 0o755);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    QUOTIENT_DATA_DIR: dir,
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PORT: '0',
  };
  delete env.DATABASE_URL;
  return { dir, env, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns a command; with `group`, in a process group of its own (as a terminal runs a job). */
export function spawnWatched(command: string, args: string[], env: NodeJS.ProcessEnv, group = false): Spawned {
  const child = spawn(command, args, { env, cwd: REPO_ROOT, detached: group, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('exit', (code, signal) => done({ code, signal }));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** `quotient <args>` as a long-running process (serve, worker). */
export function spawnQuotient(args: string[], env: NodeJS.ProcessEnv): Spawned {
  return spawnWatched(process.execPath, [QUOTIENT_BIN, ...args], env);
}

/** Waits until `pattern` appears in the process's stdout; fails if it exits first. */
export async function waitForOutput(process: Spawned, pattern: RegExp): Promise<RegExpExecArray> {
  let ended = false;
  void process.exited.then(() => {
    ended = true;
  });
  for (;;) {
    const match = pattern.exec(process.stdout());
    if (match) return match;
    if (ended)
      throw new Error(`the process exited before printing ${pattern}: ${process.stdout()} ${process.stderr()}`);
    await sleep(50);
  }
}

/**
 * The status `/readyz` of the server at `url` settles on: 200 as soon as it answers ready, else its last answer once
 * `withinMs` has passed. `/readyz` answers 503 when the database takes over READINESS_TIMEOUT_MS (2 s) to answer a
 * `SELECT 1`, which a loaded machine can make a cluster just started or joined do for a moment (seen at load 25-33):
 * a test whose subject is that the server has its database asks until it says so, and fails if it never does.
 */
export async function readinessOf(url: string, withinMs = 60_000): Promise<number> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const status = (await fetch(`${url}/readyz`)).status;
    if (status === 200 || Date.now() >= deadline) return status;
    await sleep(250);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie has exited: only its parent has not collected it yet.
  return !/^\S+ \(.*\) Z /.test(readOr(`/proc/${pid}/stat`));
}

/** The pid and the children, grandchildren… of it, from /proc, now. */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readOr(`/proc/${name}/stat`);
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const parent = Number(fields[1]);
    parents.set(parent, [...(parents.get(parent) ?? []), Number(name)]);
  }
  const tree: number[] = [];
  const visit = (current: number) => {
    tree.push(current);
    for (const childPid of parents.get(current) ?? []) visit(childPid);
  };
  visit(pid);
  return tree;
}

/** Process group and session of a process, from /proc/<pid>/stat. */
export function groupAndSession(pid: number): { pgid: number; sid: number } {
  const stat = readOr(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pgid: Number(fields[2]), sid: Number(fields[3]) };
}

/** The postmaster's pid of the cluster under a data directory, while it runs. */
export function postmasterPid(dataDir: string): number | null {
  const pid = Number(readOr(join(dataDir, 'pg', 'postmaster.pid')).split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
}

/** The pids holding a lease on the data directory's cluster. */
export function leaseHolders(dataDir: string): number[] {
  try {
    return readdirSync(join(dataDir, 'leases'))
      .map(Number)
      .filter((pid) => Number.isInteger(pid))
      .sort();
  } catch {
    return [];
  }
}

/** Waits until every pid has gone (no timing asserted: the test's own timeout bounds it). */
export async function allGone(pids: readonly number[]): Promise<void> {
  while (pids.some(isAlive)) await sleep(50);
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
