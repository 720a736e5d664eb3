import { pino } from 'pino';

export type Logger = pino.Logger;

/** Structured JSON logs on stderr, so that stdout stays free for the CLI's one JSON document. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'quotient' } }, pino.destination(2));
}
