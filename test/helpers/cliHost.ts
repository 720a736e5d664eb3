import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { inspect } from 'node:util';
import { buildProgram } from '../../src/cli/program.ts';
import { QUOTIENT_BIN } from './cli.ts';

// A CLI host (test/helpers/cli.ts, `runCli`): a Node process with Quotient loaded once, which runs the commands it is
// sent one after another as `bin/quotient.js` runs one, each with its own arguments and environment: its stdout and
// stderr (process.stdout/stderr and the logger's writes to fd 1 and 2) captured, its exit code process.exitCode or
// what it passed to process.exit, an uncaught error exit code 1 with the error on stderr as Node prints it.
// Loading Quotient is most of what a command costs on two cores; a test file's commands pay it once.

interface Request {
  id: number;
  args: string[];
  env: Record<string, string>;
}

class Exit extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`process.exit(${code})`);
    this.code = code;
  }
}

let stdout = '';
let stderr = '';
const decode = (chunk: unknown, encoding?: unknown) =>
  typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString((encoding as BufferEncoding) ?? 'utf8');

const capture = (append: (text: string) => void) =>
  ((chunk: unknown, encoding?: unknown, callback?: unknown) => {
    append(decode(chunk, typeof encoding === 'string' ? encoding : undefined));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => done());
    return true;
  }) as typeof process.stdout.write;

process.stdout.write = capture((text) => {
  stdout += text;
});
process.stderr.write = capture((text) => {
  stderr += text;
});
// The logger writes to fd 2 with fs.writeSync (src/lib/logger.ts).
const writeSync = fs.writeSync;
fs.writeSync = ((fd: number, buffer: unknown, ...rest: unknown[]) => {
  if (fd !== 1 && fd !== 2) return (writeSync as (...args: unknown[]) => number)(fd, buffer, ...rest);
  const text = decode(buffer, typeof rest[1] === 'string' ? rest[1] : undefined);
  if (fd === 1) stdout += text;
  else stderr += text;
  return Buffer.byteLength(text);
}) as typeof fs.writeSync;
syncBuiltinESMExports();

process.exit = ((code?: number | string | null) => {
  throw new Exit(Number(code ?? process.exitCode ?? 0));
}) as typeof process.exit;

let failure: unknown;
process.on('unhandledRejection', (error) => {
  failure ??= error;
});
process.on('uncaughtException', (error) => {
  if (!(error instanceof Exit)) failure ??= error;
});

async function run({ args, env }: Request): Promise<{ code: number; stdout: string; stderr: string }> {
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, env);
  const argv = [process.execPath, QUOTIENT_BIN, ...args];
  process.argv = argv;
  process.exitCode = undefined;
  stdout = '';
  stderr = '';
  failure = undefined;
  let code: number;
  try {
    await buildProgram(argv).parseAsync(argv);
    // What a command leaves running settles before its process would exit.
    await new Promise((resolve) => setImmediate(resolve));
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    if (error instanceof Exit) code = error.code;
    else {
      failure ??= error;
      code = 1;
    }
  }
  if (failure !== undefined) {
    stderr += `${inspect(failure)}\n`;
    code = 1;
  }
  process.exitCode = undefined;
  return { code, stdout, stderr };
}

process.on('message', (request: Request) => {
  void run(request).then((result) => process.send?.({ id: request.id, ...result }));
});
// Its test file's worker has gone.
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
