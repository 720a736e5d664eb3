import { pino } from 'pino';

export type Logger = pino.Logger;

/** Structured JSON logs on stderr, so that stdout stays free for the CLI's one JSON document. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'quotient' }, serializers: { err: describeError } }, pino.destination(2));
}

/**
 * An error as a log line carries it: its class, message and code, and those of its causes. Never the whole
 * object, whose other members can be a database client (with every prepared statement's text), a request or
 * a configuration with secrets.
 */
export function describeError(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    message: error.message,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    ...(error.cause === undefined || depth >= 3 ? {} : { cause: describeError(error.cause, depth + 1) }),
  };
}
