import pg from 'pg';
import type { Prisma } from '../../generated/prisma/client.ts';
import {
  breaksConnection,
  type DatabaseTimeouts,
  IDLE_IN_TRANSACTION_BOUND,
  listenForErrorsFromTheStart,
  readTimeoutMs,
  type ServerSetting,
  serverTimeoutSettings,
  startupOptions,
  transactionSettings,
} from '../db/availability.ts';
import { coalescingStream } from '../db/coalescingSocket.ts';
import { throughTransactionPooler } from '../db/pooler.ts';
import type { Database } from '../db/prisma.ts';

// The project's one database seam: a `Transaction` runs plain SQL statements, whichever runner opened it
// (`inTransaction` on the `pg` pool, `inPrismaTransaction` on Prisma). Which repositories use which driver,
// and why: docs/architecture.md ("Persistence: one transaction type, two drivers").
//
// The deal-event pipeline runs on a plain `pg` pool rather than Prisma: in a Prisma interactive transaction each
// raw query goes through the query compiler on the server's single thread, and its unnamed statements make
// PostgreSQL parse and plan the pipeline's CTEs on every event (docs/benchmarks.md measures both). Here the hot
// statements are named prepared statements, and a transaction is BEGIN, the statements, COMMIT.
//
// Statements are planned by PostgreSQL's own rules for prepared statements (plan_cache_mode left at its default):
// custom plans from the values and the current statistics until a generic plan proves as cheap. Through a
// transaction pooler (src/db/pooler.ts) nothing outlives a transaction on the server: there the statements go
// unnamed and each transaction sets the pool's settings.

/** One SQL statement with $n placeholders. A `name` makes it a prepared statement reused per connection. */
export interface Statement {
  name?: string;
  text: string;
  values: unknown[];
}

/**
 * What runs inside one database transaction; handed to repositories and to every change listener. Statements run
 * in the order `query` is called, also when a caller issues the next before the previous has answered: a
 * transaction of the `pg` pool then sends them together (pipelined), so statements that do not need each other's
 * results cost one round trip. Each still starts after the previous one has finished, with a snapshot of its own
 * (READ COMMITTED): a read issued after a lock sees what the lock's previous holder committed.
 */
export interface Transaction {
  query<Row>(statement: Statement): Promise<Row[]>;
}

export type SqlPool = pg.Pool;

/**
 * The transaction port: how a service runs its statements, whichever driver runs them. Services receive one built
 * in src/composition.ts (`poolTransactor` or `prismaTransactor`) and hand its `Transaction`s to repositories; nothing
 * above the repositories names a driver or a pool.
 */
export interface Transactor {
  /** BEGIN, the work, COMMIT (READ COMMITTED); ROLLBACK when the work throws. */
  run<T>(work: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** As `run`, but always rolled back: the work sees what it writes, and nothing of it is kept. */
  rehearse<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /** Single statements outside any transaction (reads, and writes that stand alone). */
  readonly statements: Transaction;
}

/** Bounds on a transaction's wait for a connection and on its length (Prisma's interactive transactions). */
export interface TransactionOptions {
  maxWait?: number;
  timeout?: number;
}

/** The port on the `pg` pool (the deal pipeline's): its transactions are `inTransaction`'s. */
export function poolTransactor(pool: SqlPool): Transactor {
  return {
    run: (work) => inTransaction(pool, work),
    rehearse: (work) => inRolledBackTransaction(pool, work),
    statements: poolStatements(pool),
  };
}

/** The port on Prisma: its transactions are interactive ones (`inPrismaTransaction`). */
export function prismaTransactor(db: Database): Transactor {
  return {
    run: (work, options) => inPrismaTransaction(db, work, options),
    rehearse: async (work) => {
      const rolledBack = new RolledBack();
      try {
        await inPrismaTransaction(db, async (tx) => {
          rolledBack.result = await work(tx);
          throw rolledBack;
        });
      } catch (error) {
        if (error !== rolledBack) throw error;
      }
      return rolledBack.result as never;
    },
    statements: databaseStatements(db),
  };
}

/** Thrown out of a Prisma transaction to roll it back once its work is done, carrying the work's result. */
class RolledBack extends Error {
  result: unknown;
}

/**
 * How each transaction of a pool begins. Through a transaction pooler (see src/db/pooler.ts) a session has no
 * settings of its own, so each transaction sets the pool's (SET LOCAL) as part of its BEGIN, in the same send.
 */
const beginOf = new WeakMap<SqlPool, string>();

/**
 * A client whose statements go unnamed: through a transaction pooler a statement may run on a server connection
 * that has never seen its name (or that has seen it from another client), so no statement is prepared by name.
 */
class UnnamedStatementsClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [config] = args;
    if (typeof config === 'object' && config !== null && 'name' in config && !('submit' in config)) {
      const { name: _unnamed, ...rest } = config;
      args[0] = rest;
    }
    return (super.query as (...forwarded: unknown[]) => never)(...args);
  }
}

/**
 * `sql\`SELECT … WHERE id = ${id}\`` → a statement with $1, $2 … for the interpolated values, which are
 * always sent as parameters, never spliced into the text.
 */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Statement {
  let text = strings[0] ?? '';
  for (let index = 1; index < strings.length; index++) text += `$${index}${strings[index]}`;
  return { text, values };
}

/**
 * The one rule for optional filters: a statement names only the conditions that apply, never `$n IS NULL OR …`.
 * A repository builds its WHERE from the filters given, each value added here as the next parameter: `param(v)`
 * answers its `$n`, and `values` is what the statement sends (starting with `first`, so `$1` is the org).
 */
export function statementParameters(...first: unknown[]): { values: unknown[]; param: (value: unknown) => string } {
  const values = [...first];
  return {
    values,
    param: (value) => {
      values.push(value);
      return `$${values.length}`;
    },
  };
}

/** Statements a transaction's runner issues after its work and just before COMMIT (never on a rollback). */
const beforeCommit = new WeakMap<Transaction, Statement[]>();

/**
 * Has the runner of `tx` issue `statement` after the work has finished, in the same transaction, just before COMMIT
 * (on the `pg` pool in the same send as COMMIT). For a statement that must come after every other one of the
 * transaction (feedWriters: a slot's release time). On single statements outside a transaction it never runs.
 */
export function runBeforeCommit(tx: Transaction, statement: Statement): void {
  const pending = beforeCommit.get(tx);
  if (pending) pending.push(statement);
  else beforeCommit.set(tx, [statement]);
}

/**
 * The statement as a named prepared statement. Only for statements whose text never varies: PostgreSQL keeps
 * one plan source per name and connection, and after five executions may settle on a generic plan. Statements
 * over arrays of many rows (a batch's, an import chunk's) stay unnamed: each is planned for its own arrays, whose
 * length a generic plan cannot see (docs/architecture.md, "Planning").
 */
export function named(name: string, statement: Statement): Statement {
  return { ...statement, name };
}

const INT8_OID = 20;
const DATE_OID = 1082;

/** bigint as a number (every bigint we read is below 2^53) and date as its `YYYY-MM-DD` text, not a local Date. */
const TYPES = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8_OID) return (value: string) => Number(value);
    if (oid === DATE_OID) return (value: string) => value;
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export interface SqlPoolOptions {
  /** Commit without waiting for the WAL flush: only for writes whose loss in a database crash is harmless. */
  asynchronousCommit?: boolean;
  /** Bounds on connecting, statements and lock waits (request paths); none for batch work such as recompute. */
  timeouts?: DatabaseTimeouts;
  /**
   * Without `timeouts`, how long connecting may take (5 s when absent). Batch work whose event loop is busy for
   * seconds at a time (an import evaluating a chunk of 10,000 rows) needs longer: the timer fires before the
   * connection's answer is read.
   */
  connectTimeoutMs?: number;
}

export function createSqlPool(
  databaseUrl: string,
  size: number,
  onIdleError: (error: Error) => void,
  poolOptions: SqlPoolOptions = {},
): SqlPool {
  const { timeouts } = poolOptions;
  const settings: ServerSetting[] = [
    ...(timeouts ? serverTimeoutSettings(timeouts) : [IDLE_IN_TRANSACTION_BOUND]),
    ...(poolOptions.asynchronousCommit ? [['synchronous_commit', 'off'] as const] : []),
  ];
  const pooled = throughTransactionPooler(databaseUrl);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: size,
    connectionTimeoutMillis: timeouts?.connectMs ?? poolOptions.connectTimeoutMs ?? 5_000,
    ...(timeouts ? { query_timeout: readTimeoutMs(timeouts) } : {}),
    idleTimeoutMillis: 30_000,
    types: TYPES,
    application_name: 'quotient',
    // A transaction's statements that do not wait for each other's results (BEGIN and the first statement;
    // those the services issue together) go out together, each statement in one send: see CoalescingSocket.
    pipeline: true,
    stream: coalescingStream,
    // Through a transaction pooler a session has no settings of its own: each transaction sets them (see below).
    ...(pooled ? { Client: UnnamedStatementsClient } : { options: startupOptions(settings) }),
  });
  if (pooled) beginOf.set(pool, `BEGIN; ${transactionSettings(settings)}`);
  // A connection that breaks while idle in the pool must not take the process down.
  pool.on('error', onIdleError);
  listenForErrorsFromTheStart(pool);
  return pool;
}

/**
 * BEGIN, the work, COMMIT (READ COMMITTED); ROLLBACK when the work throws. A connection that breaks (the server
 * ends the session, the socket resets, a statement outlives the read timeout) fails this transaction only: its
 * client is discarded, never returned to the pool, and its 'error' event is handled here, since a checked-out
 * client has no other listener and an unhandled one would end the process.
 */
export function inTransaction<T>(pool: SqlPool, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return onOneConnection(pool, work, 'COMMIT');
}

/** As inTransaction, but always rolled back: the work sees what it writes, and nothing of it is kept. */
export function inRolledBackTransaction<T>(pool: SqlPool, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return onOneConnection(pool, work, 'ROLLBACK');
}

async function onOneConnection<T>(
  pool: SqlPool,
  work: (tx: Transaction) => Promise<T>,
  end: 'COMMIT' | 'ROLLBACK',
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onConnectionError = (error: Error) => {
    broken ??= error;
  };
  client.on('error', onConnectionError);
  // The first statement of the work that failed. Statements issued together are answered in order: when one fails,
  // those sent after it fail with 25P02 ("current transaction is aborted"), and the work may be awaiting one of
  // those. What went wrong is the first failure (a statement or lock timeout is a 503, not a 500): that is thrown.
  let firstFailure: unknown;
  const query = async <Row>(statement: Statement) => {
    try {
      return (await client.query(statement)).rows as Row[];
    } catch (error) {
      firstFailure ??= error;
      throw error;
    }
  };
  try {
    // BEGIN is not awaited before the work starts: it goes out with the work's first statement, in one send. Both
    // are settled before anything else happens; a failed BEGIN (a broken connection) is what went wrong first.
    const tx: Transaction = { query };
    const [begun, worked] = await Promise.allSettled([client.query(beginOf.get(pool) ?? 'BEGIN'), work(tx)]);
    if (begun.status === 'rejected') throw begun.reason;
    if (worked.status === 'rejected') {
      throw isAbortedTransaction(worked.reason) && firstFailure !== undefined ? firstFailure : worked.reason;
    }
    const result = worked.value;
    const closing = end === 'COMMIT' ? (beforeCommit.get(tx) ?? []) : [];
    await Promise.all([...closing.map((statement) => query(statement)), client.query(end)]);
    return result;
  } catch (error) {
    if (breaksConnection(error)) broken ??= error as Error;
    // On a broken connection the server rolls back by itself; a ROLLBACK would only wait for a dead socket.
    if (!broken) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
    }
    throw error;
  } finally {
    client.removeListener('error', onConnectionError);
    client.release(broken);
  }
}

/** 25P02: a statement sent after another of the transaction failed. */
function isAbortedTransaction(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '25P02';
}

const prismaClients = new WeakMap<Transaction, Prisma.TransactionClient>();

/**
 * Runs `work` in a Prisma interactive transaction (READ COMMITTED, as the database defaults). The work gets the
 * project's `Transaction`: plain-SQL repositories and listeners run their statements on it, and the repositories
 * that use Prisma reach the same transaction's client through `prismaOf`.
 */
export function inPrismaTransaction<T>(
  db: Database,
  work: (tx: Transaction) => Promise<T>,
  options?: { maxWait?: number; timeout?: number },
): Promise<T> {
  return db.$transaction(async (client) => {
    // Prisma may start a statement issued later before an earlier one: each waits for the one issued before it.
    let previous: Promise<unknown> = Promise.resolve();
    const tx: Transaction = {
      query: <Row>(statement: Statement) => {
        const run = previous.then(() => client.$queryRawUnsafe<Row[]>(statement.text, ...statement.values));
        previous = run.catch(() => undefined);
        return run;
      },
    };
    prismaClients.set(tx, client);
    const result = await work(tx);
    for (const statement of beforeCommit.get(tx) ?? []) await tx.query(statement);
    return result;
  }, options);
}

/**
 * The Prisma client of a transaction opened by `inPrismaTransaction` (or of `databaseStatements`): for the
 * repository functions that use Prisma (see docs/architecture.md). Handing them a transaction of the `pg` pool is a
 * programming error.
 */
export function prismaOf(tx: Transaction): Prisma.TransactionClient {
  const client = prismaClients.get(tx);
  if (!client) throw new Error('a Prisma repository was handed a transaction not opened by inPrismaTransaction');
  return client;
}

/**
 * The database as a `Transaction` for single statements outside any transaction (reads, and writes that stand
 * alone): plain-SQL repositories run their statements on it, Prisma ones reach the database through `prismaOf`.
 */
export function databaseStatements(db: Database): Transaction {
  const statements: Transaction = {
    query: <Row>(statement: Statement) => db.$queryRawUnsafe<Row[]>(statement.text, ...statement.values),
  };
  prismaClients.set(statements, db);
  return statements;
}

/** The pool as a `Transaction` for single statements outside any transaction (reads). */
export function poolStatements(pool: SqlPool): Transaction {
  return { query: async <Row>(statement: Statement) => (await pool.query(statement)).rows as Row[] };
}
