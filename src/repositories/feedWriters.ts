import { named, runBeforeCommit, sql, type Transaction } from './transaction.ts';

// The org's change-feed writers, found in the data: each org has a few rows in `feed_writer_slots` (created with the
// org), and every transaction that stamps `deals.updated_at` or `earnings.created_at` locks one of them from its
// first statement to its end. A reader finds the writers in progress as the slots it cannot lock, and waits for them
// or stops its page before the oldest of them. Writers of one org do not wait for one another (SKIP LOCKED), and no
// org's slots are another's. docs/architecture.md, "The change-feed horizon", gives the proof.

/** The transactions that hold a slot already, and the slot: a transaction takes one, whatever it writes. */
const holding = new WeakMap<Transaction, Promise<number>>();

// The writer's lock, FOR NO KEY UPDATE, conflicts with the readers' FOR SHARE and with the other writers' own lock,
// not with a reader's FOR SHARE of another slot. A writer takes a free slot released before the current millisecond
// where it can (the most recently released: the page a reader gets while this writer runs stops at that release),
// and stamps its rows only from the millisecond after the slot's release on: it waits out the rest of that
// millisecond when the slot was released in it (rare: a free slot released earlier is taken first). With every slot
// taken by others (or share-locked by a reader for the length of a statement) it waits for the one released last;
// the second branch runs only then (a one-time filter). One statement, so that it can go out with the transaction's
// next ones and still run before them.
const TAKE_SLOT = `
  WITH free AS (
    SELECT slot, released_at FROM feed_writer_slots
    WHERE org_id = $1
    ORDER BY released_at < date_trunc('milliseconds', statement_timestamp()) DESC, released_at DESC
    LIMIT 1
    FOR NO KEY UPDATE SKIP LOCKED
  ), taken AS (
    SELECT slot, released_at FROM free
    UNION ALL
    SELECT slot, released_at
    FROM (SELECT slot, released_at FROM feed_writer_slots
          WHERE org_id = $1
          ORDER BY released_at DESC
          LIMIT 1
          FOR NO KEY UPDATE) AS busiest
    WHERE NOT EXISTS (SELECT FROM free)
  )
  SELECT slot, (SELECT count(*) FROM pg_sleep(GREATEST(0, EXTRACT(epoch FROM
           date_trunc('milliseconds', released_at) + interval '1 millisecond' - clock_timestamp()))))::int AS waited
  FROM taken`;

// The release statement's start: after every statement of the transaction before it has ended, so after its last
// stamp (each a statement's start, truncated). statement_timestamp(), not clock_timestamp(): Citus refuses a volatile
// function in an UPDATE of a distributed table and evaluates a stable one on the coordinator.
const RELEASE_SLOT = `UPDATE feed_writer_slots SET released_at = statement_timestamp() WHERE org_id = $1 AND slot = $2`;

/**
 * Makes the transaction a writer of the org's feeds: locks one of the org's slots until the transaction ends, and
 * has the transaction's runner record the release time just before COMMIT (after every row it stamps). Must be the
 * transaction's first statement, issued before any other (it may be sent with them, not awaited first): every
 * stamp, and every read a recompute must not have overtaken, comes in a later statement. Idempotent within a
 * transaction.
 */
export function joinFeedWriters(tx: Transaction, orgId: string): Promise<number> {
  const held = holding.get(tx);
  if (held) return held;
  const taking = takeSlot(tx, orgId);
  holding.set(tx, taking);
  return taking;
}

async function takeSlot(tx: Transaction, orgId: string): Promise<number> {
  const [taken] = await tx.query<{ slot: number }>(
    named('feed_writers_take_slot', { text: TAKE_SLOT, values: [orgId] }),
  );
  if (!taken) throw new Error(`org ${orgId} has no feed writer slots`);
  runBeforeCommit(tx, named('feed_writers_release_slot', { text: RELEASE_SLOT, values: [orgId, taken.slot] }));
  return taken.slot;
}

/** The org's feed writers in progress, as one statement found them. */
export interface WritersInFlight {
  /** The statement's start, truncated to milliseconds. */
  at: Date;
  /** The slots held by writers in progress then (a writer that takes a slot later stamps after `at`). */
  slots: number[];
  /**
   * `at`, or when a writer was in progress, the earliest millisecond one of them may stamp: the millisecond after the
   * earliest release of a slot held. Every row stamped before it is committed, or its writer holds one of `slots`.
   */
  settledBefore: Date;
}

// FOR SHARE SKIP LOCKED locks the slots no writer holds, for this statement only; the slots it skips are held. The
// locks make the statement a transaction with an id of its own, whose commit need not wait for the WAL to be flushed.
const WRITERS_IN_FLIGHT = `
  WITH free AS (
    SELECT slot FROM feed_writer_slots WHERE org_id = $1 FOR SHARE SKIP LOCKED
  ), held AS (
    SELECT s.slot, s.released_at FROM feed_writer_slots s
    WHERE s.org_id = $1 AND s.slot NOT IN (SELECT slot FROM free)
  )
  SELECT date_trunc('milliseconds', statement_timestamp()) AS at,
         COALESCE(array_agg(slot ORDER BY slot), '{}') AS slots,
         LEAST(date_trunc('milliseconds', statement_timestamp()),
               date_trunc('milliseconds', min(released_at)) + interval '1 millisecond') AS settled_before,
         set_config('synchronous_commit', 'off', true) AS relaxed
  FROM held`;

/**
 * The org's feed writers in progress, by the slots held. A page read in a later statement (READ COMMITTED) sees every
 * row stamped before `at` unless its writer holds one of `slots`, and every row stamped before `settledBefore`.
 */
export async function writersInFlight(tx: Transaction, orgId: string): Promise<WritersInFlight> {
  const [row] = await tx.query<{ at: Date; slots: number[]; settled_before: Date }>(
    named('feed_writers_in_flight', { text: WRITERS_IN_FLIGHT, values: [orgId] }),
  );
  if (!row) throw new Error('the feed writers statement returned no row');
  return { at: row.at, slots: row.slots, settledBefore: row.settled_before };
}

/**
 * In a transaction of its own: waits until every writer holding one of these slots of the org has ended, at most
 * `timeoutMs` in all. True when they have; false when the wait ran out (the transaction is then aborted: the caller
 * only commits it, which rolls it back).
 */
export async function awaitSlots(
  tx: Transaction,
  orgId: string,
  slots: readonly number[],
  timeoutMs: number,
): Promise<boolean> {
  const bound = String(timeoutMs);
  const settings = tx.query(
    sql`SELECT set_config('lock_timeout', ${bound}, true), set_config('statement_timeout', ${bound}, true),
               set_config('synchronous_commit', 'off', true)`,
  );
  const waited = tx.query(
    named('feed_writers_await_slots', {
      text: 'SELECT slot FROM feed_writer_slots WHERE org_id = $1 AND slot = ANY($2::int[]) FOR SHARE',
      values: [orgId, slots],
    }),
  );
  try {
    await Promise.all([settings, waited]);
    return true;
  } catch (error) {
    if (ranOut(error)) return false;
    throw error;
  }
}

/** lock_timeout (55P03) or statement_timeout (57014), as `pg` or Prisma's adapter reports it. */
function ranOut(error: unknown): boolean {
  const pending: unknown[] = [error];
  for (let seen = 0; pending.length > 0 && seen < 10; seen++) {
    const current = pending.shift() as
      | { code?: unknown; originalCode?: unknown; cause?: unknown; meta?: { driverAdapterError?: unknown } }
      | undefined;
    if (current === null || typeof current !== 'object') continue;
    if ([current.code, current.originalCode].some((code) => code === '55P03' || code === '57014')) return true;
    pending.push(current.cause, current.meta?.driverAdapterError);
  }
  return false;
}
