import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const QUOTIENT_BIN = fileURLToPath(new URL('../../bin/quotient.js', import.meta.url));

/**
 * The timeout of a test that runs the CLI many times: each run is a Node process that loads Quotient, which takes
 * seconds on two cores shared with the rest of the suite (a test of 11 runs took 33 s in one CI run and passed the
 * default 60 s in the next). A guard against a hang, not a measure of speed.
 */
export const SLOW_CLI_TEST_MS = 180_000;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `quotient ...args` as a user would: in a child process, its exit code and output collected. A command against
 * a database server (DATABASE_URL set) runs in a CLI host of the test file (test/helpers/cliHost.ts: a process that
 * loaded Quotient once and runs one command at a time, as bin/quotient.js would); a command started while the file's
 * hosts are busy gets a host of its own, so commands a test runs at once still run at once. `serve`, `worker`, `demo`
 * and `db`, and commands on an embedded database, run in a process of their own: they start servers and clusters.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  if (env.DATABASE_URL === undefined || OWN_PROCESS_COMMANDS.has(args[0] ?? '') || !USE_HOSTS) {
    return runProgram(QUOTIENT_BIN, args, env);
  }
  return runInHost(args, env);
}

/** Runs `quotient ...args` in a child process of its own, never in a CLI host (a test of the process itself). */
export function runCliProcess(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  return runProgram(QUOTIENT_BIN, args, env);
}

/**
 * Runs `quotient ...args` in a CLI host whatever the command and the database: for commands that are refused before
 * they run (usage errors), which start no server and open no database.
 */
export function runCliInHost(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  return USE_HOSTS ? runInHost(args, env) : runProgram(QUOTIENT_BIN, args, env);
}

const OWN_PROCESS_COMMANDS = new Set(['serve', 'worker', 'demo', 'db']);
// QUOTIENT_TEST_CLI_HOSTS=false runs every command in a process of its own (docs/testing.md).
const USE_HOSTS = process.env.QUOTIENT_TEST_CLI_HOSTS !== 'false';
const HOST = fileURLToPath(new URL('./cliHost.ts', import.meta.url));
const idleHosts: ChildProcess[] = [];
let requests = 0;

function startHost(): ChildProcess {
  const host = spawn(process.execPath, [HOST], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  // The host ends when this test file's worker does (it exits when its channel closes).
  host.unref();
  host.channel?.unref();
  (host.stderr as NodeJS.ReadableStream & { unref?: () => void }).unref?.();
  return host;
}

function runInHost(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const host = idleHosts.pop() ?? startHost();
  const id = ++requests;
  return new Promise((done, fail) => {
    let hostErrors = '';
    const onStderr = (chunk: Buffer) => {
      hostErrors += chunk;
    };
    const onExit = (code: number | null) => {
      cleanup();
      fail(new Error(`the CLI host exited with ${code} running quotient ${args.join(' ')}: ${hostErrors}`));
    };
    const onMessage = (message: CliResult & { id: number }) => {
      if (message.id !== id) return;
      cleanup();
      idleHosts.push(host);
      done({ code: message.code, stdout: message.stdout, stderr: message.stderr });
    };
    const cleanup = () => {
      host.off('message', onMessage);
      host.off('exit', onExit);
      host.stderr?.off('data', onStderr);
    };
    host.on('message', onMessage);
    host.once('exit', onExit);
    host.stderr?.on('data', onStderr);
    host.send({ id, args, env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)) });
  });
}

/** Runs a script of the project with the project's Node in a child process, collecting its exit code and output. */
export function runProgram(
  script: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** Runs `quotient ...args --json`, asserts it exits 0 (naming the command and its output if not), and parses its answer. */
export async function cliJson<T>(args: string[]): Promise<T> {
  const result = await runCli([...args, '--json']);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
  return onlyJson(result) as T;
}

/** Parses stdout as exactly one JSON document. */
export function onlyJson(result: CliResult): unknown {
  return JSON.parse(result.stdout);
}

/** Starts `quotient serve --json` and resolves with the child and the URL it printed once serving. */
export function spawnServe(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [QUOTIENT_BIN, 'serve', '--port', '0', '--json'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      try {
        const { url } = JSON.parse(stdout) as { url: string };
        done({ child, url });
      } catch {
        // the document is not complete yet
      }
    });
    child.on('exit', (code) => fail(new Error(`quotient serve exited with ${code}: ${stderr}`)));
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => {
    if (child.exitCode !== null) done(child.exitCode);
    else child.once('exit', (code) => done(code));
  });
}
