import { writeSync } from 'node:fs';
import { pino } from 'pino';

export type Logger = pino.Logger;

/**
 * Structured JSON logs on stderr, so that stdout stays free for the CLI's one JSON document. Errors are logged
 * as type, code, message and stack only: a driver's error can carry its whole client (connection settings,
 * password included), which must never reach a log. Passwords in connection strings are masked everywhere.
 */
export function createLogger(level: string, destination: pino.DestinationStream = stderrLines()): Logger {
  return pino(
    {
      level,
      base: { service: 'quotient' },
      serializers: { err: serializeError, error: serializeError },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => (typeof arg === 'string' ? maskSecrets(arg) : arg)) as typeof args);
        },
      },
    },
    destination,
  );
}

/** The message of the line `requestContext` writes for every request. */
export const REQUEST_LINE = 'request';

const REQUEST_LINE_END = `"msg":${JSON.stringify(REQUEST_LINE)}}\n`;
const BATCH_CHARACTERS = 8192;
const BATCH_DELAY_MS = 100;
const STDERR = 2;

/**
 * Stderr, with the request lines written in batches: held until 8 KB of lines or 100 ms have gathered, or another
 * line comes, which goes out at once with them (startup, warnings, errors, shutdown: in order, as soon as logged).
 * Written one by one, every request's line costs a write on libuv's thread pool whenever none is in flight, on the
 * path of every request (docs/benchmarks.md, BENCH_ONLY=layers, measures it). Held lines are written when the
 * process exits (a graceful stop, an uncaught error, `process.exit`); one killed outright loses at most the
 * last 100 ms of request lines.
 */
function stderrLines(): pino.DestinationStream {
  const lines = new RequestLinesInBatches(pino.destination({ dest: STDERR, minLength: 0 }), STDERR);
  writeHeldLinesOnExit(lines);
  return lines;
}

class RequestLinesInBatches implements pino.DestinationStream {
  readonly #out: pino.DestinationStream & { flushSync(): void };
  readonly #fd: number;
  #held = '';
  #timer: NodeJS.Timeout | undefined;

  constructor(out: pino.DestinationStream & { flushSync(): void }, fd: number) {
    this.#out = out;
    this.#fd = fd;
  }

  write(line: string): void {
    this.#held += line;
    if (this.#held.length >= BATCH_CHARACTERS || !line.endsWith(REQUEST_LINE_END)) this.#release();
    else this.#timer ??= setTimeout(() => this.#release(), BATCH_DELAY_MS).unref();
  }

  /**
   * At exit: what the destination still has, then the held lines, written synchronously. Handed to the destination,
   * the held lines would go out in an asynchronous write that the ending process need not wait for.
   */
  writeHeldNow(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const held = this.#held;
    this.#held = '';
    try {
      this.#out.flushSync();
    } catch {
      // the destination is closed; the held lines are written below all the same
    }
    let rest = Buffer.from(held);
    for (let attempt = 0; rest.length > 0 && attempt < 1000; attempt++) {
      try {
        rest = rest.subarray(writeSync(this.#fd, rest));
      } catch (error) {
        // stderr is closed: there is nowhere left to write
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      }
    }
  }

  #release(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#held === '') return;
    this.#out.write(this.#held);
    this.#held = '';
  }
}

// One exit listener for every logger of the process (tests make many), run before pino's own.
const withHeldLines = new Set<WeakRef<RequestLinesInBatches>>();

function writeHeldLinesOnExit(lines: RequestLinesInBatches): void {
  if (withHeldLines.size === 0) {
    process.prependListener('exit', () => {
      for (const reference of withHeldLines) reference.deref()?.writeHeldNow();
    });
  }
  withHeldLines.add(new WeakRef(lines));
}

interface SerializedError {
  type: string;
  message: string;
  code?: string;
  stack?: string;
  cause?: SerializedError;
}

export function serializeError(error: unknown, depth = 0): SerializedError {
  if (!(error instanceof Error)) return { type: typeof error, message: maskSecrets(String(error)) };
  const code = (error as { code?: unknown }).code;
  const serialized: SerializedError = { type: error.name, message: maskSecrets(error.message) };
  if (typeof code === 'string' || typeof code === 'number') serialized.code = String(code);
  if (error.stack) serialized.stack = maskSecrets(error.stack);
  if (error.cause !== undefined && depth < 3) serialized.cause = serializeError(error.cause, depth + 1);
  return serialized;
}

/** `postgresql://user:secret@host` → `postgresql://user:***@host`. */
export function maskSecrets(text: string): string {
  // Every log call passes its message through here: most have no URL at all.
  if (!text.includes('://')) return text;
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s]*@/gi, '$1***@');
}
