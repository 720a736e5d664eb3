import { pino } from 'pino';

export type Logger = pino.Logger;

/**
 * Structured JSON logs on stderr, so that stdout stays free for the CLI's one JSON document. Errors are logged
 * as type, code, message and stack only: a driver's error can carry its whole client (connection settings,
 * password included), which must never reach a log. Passwords in connection strings are masked everywhere.
 */
export function createLogger(level: string, destination: pino.DestinationStream = pino.destination(2)): Logger {
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
