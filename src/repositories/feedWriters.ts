import { setTimeout as sleep } from 'node:timers/promises';
import { dealWriterTag } from './deals.ts';
import { named, sql, type Transaction } from './transaction.ts';

// Transactions that write an org's deal or earnings feeds tag themselves (application_name) so that readers can
// find those still in progress in pg_stat_activity (see DealRepository.changeHorizon).

const WRITER_POLL_MS = 20;

export class FeedWriterRepository {
  /**
   * For a transaction that writes earnings but no deal event: marks it as a writer of the org's feeds and
   * gives it a transaction id now, so that the `created_at` it stamps comes after the start the earnings
   * feed's horizon counts with (see DealRepository.changeHorizon).
   */
  async joinFeedWriters(tx: Transaction, orgId: string): Promise<void> {
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
  async waitForDealWritersBefore(tx: Transaction, orgId: string): Promise<void> {
    const [start] = await tx.query<{ at: Date }>(sql`SELECT clock_timestamp() AS at`);
    for (;;) {
      const [found] = await tx.query<{ writers: number | bigint }>(
        sql`SELECT count(*) AS writers FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = ${dealWriterTag(orgId)}
              AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()
              AND COALESCE(xact_start, backend_start) < ${start?.at}::timestamptz`,
      );
      if (Number(found?.writers ?? 0) === 0) return;
      await sleep(WRITER_POLL_MS);
    }
  }
}
