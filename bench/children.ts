import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { backendsServing } from './cpu.ts';
import type { Processes } from './measure.ts';

// The server processes of `npm run bench` (bench/run.ts): started, watched for CPU, and waited for.

export function exited(child: ChildProcess): Promise<unknown> {
  return new Promise((done) =>
    child.exitCode !== null || child.signalCode !== null ? done(null) : child.once('exit', done),
  );
}

/** The server process and the PostgreSQL backends serving its connections. */
export function processesOf(admin: pg.Pool, child: ChildProcess): Processes {
  return {
    server: () => (child.pid ? [child.pid] : []),
    database: async () => (child.pid ? backendsServing(admin, child.pid) : []),
  };
}

let serversStarted = 0;

/**
 * A server child (`node <args>`) on the database, once it has printed `{"url": …}`; its logs (at the default level,
 * as in production) go to a file of `logDir`, the bench's directory, and their last lines into the error when it
 * exits first.
 */
export async function startChild(
  logDir: string,
  args: string[],
  databaseUrl: string,
  env: Record<string, string> = {},
  cwd?: string,
): Promise<{ child: ChildProcess; url: string }> {
  const logPath = join(logDir, `server-${++serversStarted}.log`);
  const log = await open(logPath, 'a');
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', ...env },
      stdio: ['ignore', 'pipe', log.fd],
      ...(cwd ? { cwd } : {}),
    });
    child.once('exit', () => void log.close());
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      try {
        done({ child, url: (JSON.parse(stdout) as { url: string }).url });
      } catch {
        // not a whole document yet
      }
    });
    child.once('exit', (code) => {
      const said = readFileSync(logPath, 'utf8').trim().split('\n').slice(-12).join('\n');
      fail(new Error(`${args.join(' ')} exited with ${code}:\n${said}`));
    });
  });
}
