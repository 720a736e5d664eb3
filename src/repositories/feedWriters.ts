import { setTimeout as sleep } from 'node:timers/promises';
import { dealWriterTag } from './deals.ts';
import { named, sql, type Transaction } from './transaction.ts';

// Transactions that write an org's deal or earnings feeds tag themselves (application_name) so that readers can
// find those still in progress in pg_stat_activity. One statement reads them: the feeds' horizon and the wait of
// a recompute for the writers before it both ask it.

const WRITER_POLL_MS = 20;

/** The change-feed horizon of an org: rows stamped before it can no longer be overtaken by a commit. */
export interface ChangeHorizon {
  /** Truncated to milliseconds, the precision of `updated_at` and `created_at`. */
  horizon: Date;
  /** A feed-writing transaction of the org was in progress when the horizon was taken. */
  writesInFlight: boolean;
}

/**
 * The horizon of the org's feeds: the start of the oldest feed-writing transaction of the org still in
 * progress (only those that started before `startedBefore`, when given), or now when there is none. Such a
 * transaction can still commit rows, and their stamp (a clock reading taken after it got its transaction id)
 * is never earlier than its start, so every row stamped before the horizon is committed, and visible to a
 * statement that starts after this one. A page must therefore be read by a later statement, never in the same
 * one, and in READ COMMITTED. `backend_start` stands in for `xact_start` when activity tracking is off (it is
 * earlier, so still safe).
 */
export async function horizon(tx: Transaction, orgId: string, startedBefore?: Date): Promise<ChangeHorizon> {
  const [row] = await tx.query<{ horizon: Date; writers: number | bigint }>(
    named('feed_writers_horizon', {
      text: `SELECT date_trunc('milliseconds', COALESCE(min(COALESCE(xact_start, backend_start)), now())) AS horizon,
                    count(*) AS writers
             FROM pg_stat_activity
             WHERE datname = current_database() AND application_name = $1
               AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()
               AND ($2::timestamptz IS NULL OR COALESCE(xact_start, backend_start) < $2::timestamptz)`,
      values: [dealWriterTag(orgId), startedBefore ?? null],
    }),
  );
  if (!row) throw new Error('the feed horizon statement returned no row');
  return { horizon: row.horizon, writesInFlight: Number(row.writers) > 0 };
}

/**
 * For a transaction that writes earnings but no deal event: marks it as a writer of the org's feeds and
 * gives it a transaction id now, so that the `created_at` it stamps comes after the start the earnings
 * feed's horizon counts with (see `horizon`).
 */
export async function joinFeedWriters(tx: Transaction, orgId: string): Promise<void> {
  await tx.query(
    named('earnings_join_feed_writers', {
      text: `SELECT set_config('application_name', $1, true) AS tagged, pg_current_xact_id()::text AS xid`,
      values: [dealWriterTag(orgId)],
    }),
  );
}

/**
 * Waits until every deal event of the org that was in progress at the moment of the call has ended: after
 * that, no event can still book rows from a plan state older than the call (see evaluateDealChange).
 */
export async function waitForDealWritersBefore(tx: Transaction, orgId: string): Promise<void> {
  const [start] = await tx.query<{ at: Date }>(sql`SELECT clock_timestamp() AS at`);
  if (!start) throw new Error('clock_timestamp() returned no row');
  while ((await horizon(tx, orgId, start.at)).writesInFlight) await sleep(WRITER_POLL_MS);
}
