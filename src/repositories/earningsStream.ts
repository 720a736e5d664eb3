import { named, type Transaction } from './transaction.ts';
import { repExternalIdOf } from './users.ts';

// The earnings stream's reads, in plain SQL and always scoped by org: the rows written since a position, a page at a
// time, with the database's clock to start the next page from.

/** A row as the earnings stream announces it. */
export interface WrittenRowNotice {
  id: string;
  user_id: string;
  user_external_id: string;
  period_id: string;
  deal_id: string | null;
  created_at: Date;
}

/**
 * Up to `limit` rows written after `since`, of the given reps (every rep of the org when null), oldest first, with
 * the database's clock when they were read: the position the next read can start from.
 */
export async function writtenSince(
  tx: Transaction,
  orgId: string,
  userIds: readonly string[] | null,
  since: Date,
  limit: number,
): Promise<{ rows: WrittenRowNotice[]; readAt: Date }> {
  const [clock, rows] = await Promise.all([
    tx.query<{ read_at: Date }>(
      named('earnings_stream_clock', { text: 'SELECT clock_timestamp() AS read_at', values: [] }),
    ),
    tx.query<WrittenRowNotice>(
      userIds === null
        ? named('earnings_written_since', {
            text: `SELECT e.id, e.user_id, ${repExternalIdOf('$1')} AS user_external_id, e.period_id, e.deal_id, e.created_at
                   FROM earnings e
                   WHERE e.org_id = $1 AND e.created_at > $2 ORDER BY e.created_at, e.id LIMIT $3`,
            values: [orgId, since, limit],
          })
        : named('earnings_written_since_for_reps', {
            text: `SELECT e.id, e.user_id, ${repExternalIdOf('$1')} AS user_external_id, e.period_id, e.deal_id, e.created_at
                   FROM earnings e
                   WHERE e.org_id = $1 AND e.created_at > $2 AND e.user_id = ANY($3::text[])
                   ORDER BY e.created_at, e.id LIMIT $4`,
            values: [orgId, since, userIds, limit],
          }),
    ),
  ]);
  return { rows, readAt: (clock[0] as { read_at: Date }).read_at };
}
