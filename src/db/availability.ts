import type pg from 'pg';
// How long a request may wait on the database, and which failures mean "the database cannot serve now"
// (503 with Retry-After) rather than a fault of ours (500). Shared by the `pg` pools and the Prisma client.

/** Bounds on every wait a request can have on PostgreSQL. */
export interface DatabaseTimeouts {
  /** Opening a connection, and waiting for a free one when the pool is exhausted. */
  connectMs: number;
  /** One statement on the server (PostgreSQL's statement_timeout). */
  statementMs: number;
  /** Waiting for a row or table lock (PostgreSQL's lock_timeout). */
  lockMs: number;
}

/**
 * The client-side bound on one statement: the server's statement_timeout plus a margin. It answers when the
 * server itself cannot (frozen, or the network dropped without a reset), so no request waits forever.
 */
export function readTimeoutMs(timeouts: DatabaseTimeouts): number {
  return timeouts.statementMs + 2_000;
}

/** A PostgreSQL setting a pool applies to its connections: its name and value. */
export type ServerSetting = readonly [name: string, value: string];

/** The server-side bounds on statements, lock waits and idle transactions. */
export function serverTimeoutSettings(timeouts: DatabaseTimeouts): ServerSetting[] {
  return [
    ['statement_timeout', String(timeouts.statementMs)],
    ['lock_timeout', String(timeouts.lockMs)],
    // A stuck transaction would hold its deal's lock and the org's change-feed horizon: bound it too.
    IDLE_IN_TRANSACTION_BOUND,
  ];
}

export const IDLE_IN_TRANSACTION_BOUND: ServerSetting = ['idle_in_transaction_session_timeout', '60000'];

/** The `options` startup parameter that applies settings to every session of a pool. */
export function startupOptions(settings: readonly ServerSetting[]): string {
  return settings.map(([name, value]) => `-c ${name}=${value}`).join(' ');
}

/** The `options` startup parameter that applies the server-side bounds to every connection of a pool. */
export function serverTimeoutOptions(timeouts: DatabaseTimeouts): string {
  return startupOptions(serverTimeoutSettings(timeouts));
}

/**
 * The same settings for one transaction (SET LOCAL), for connections through a transaction pooler, where a
 * session setting would stay on a server connection that other clients then get. Values are the pool's own.
 */
export function transactionSettings(settings: readonly ServerSetting[]): string {
  return settings.map(([name, value]) => `SET LOCAL ${name} = '${value}'`).join('; ');
}

// SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html) that say the server cannot serve
// the request now but may shortly: connection exceptions (class 08), too many connections and other
// insufficient resources (class 53), shutdown and cancellation (57P01-57P05, 57014 statement_timeout),
// lock_not_available (55P03 lock_timeout), and the server ending an idle transaction (25P03).
const UNAVAILABLE_SQLSTATE = /^(08...|53...|57P0[1-5]|57014|55P03|25P03)$/;

const UNAVAILABLE_SYSTEM_CODES = new Set([
  // The shared rate-limit store (src/access/rateLimitStore.ts) cannot be reached.
  'QUOTIENT_RATE_STORE_UNAVAILABLE',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// What node-postgres and pg-pool say, without a code, when a connection breaks, times out or is refused.
const UNAVAILABLE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'terminating connection',
];

// Prisma's names (error codes and driver-adapter kinds) for the same situations.
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
const UNAVAILABLE_ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TransactionAlreadyClosed',
]);

interface ErrorLike {
  code?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
}

/** True when the error (or one it wraps) says the database is unreachable, saturated or too slow right now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const pending: unknown[] = [error];
  for (let seen = 0; pending.length > 0 && seen < 10; seen++) {
    const current = pending.shift() as ErrorLike | undefined;
    if (current === null || typeof current !== 'object') continue;
    if (isUnavailableCode(current.code) || isUnavailableCode(current.originalCode)) return true;
    if (typeof current.kind === 'string' && UNAVAILABLE_ADAPTER_KINDS.has(current.kind)) return true;
    if (
      typeof current.message === 'string' &&
      UNAVAILABLE_MESSAGES.some((text) => current.message === text || (current.message as string).startsWith(text))
    ) {
      return true;
    }
    pending.push(current.cause, current.meta?.driverAdapterError);
  }
  return false;
}

function isUnavailableCode(code: unknown): boolean {
  if (typeof code !== 'string') return false;
  return UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SYSTEM_CODES.has(code) || UNAVAILABLE_PRISMA_CODES.has(code);
}

/**
 * True when the connection that raised the error can no longer be trusted with another statement: the socket
 * broke or timed out (a read timeout leaves the statement running on the server), or the server ended the
 * session. An error PostgreSQL reports for one statement (a constraint, a statement or lock timeout) leaves the
 * session usable, and so does an error of our own code between statements.
 */
export function breaksConnection(error: unknown): boolean {
  const { code, message } = (error ?? {}) as ErrorLike;
  if (typeof code === 'string' && (UNAVAILABLE_SYSTEM_CODES.has(code) || /^(08...|57P0[1-5])$/.test(code))) return true;
  return typeof message === 'string' && CONNECTION_LOST_MESSAGES.some((text) => message.startsWith(text));
}

const CONNECTION_LOST_MESSAGES = [
  'Connection terminated',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/**
 * Every connection of the pool gets an 'error' listener of its own as it connects, kept for its whole life.
 * pg-pool removes its idle listener when it hands a connection out, and the caller can add one only after its
 * `await pool.connect()` resumes; a session the server ends in that gap (its FATAL in the same network read as
 * the connection's ReadyForQuery, say) would otherwise be an 'error' event with no listener, which ends the
 * process. The error itself is not lost: the connection's next statement fails with it.
 */
export function listenForErrorsFromTheStart(pool: pg.Pool): void {
  pool.on('connect', (client) => {
    client.on('error', ignoreHere);
  });
}

function ignoreHere(): void {}
