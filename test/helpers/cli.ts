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

/** Runs `quotient ...args` as a user would, in a child process. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  return runProgram(QUOTIENT_BIN, args, env);
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
