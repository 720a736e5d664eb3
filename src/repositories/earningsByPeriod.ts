import type { LedgerRow } from '../domain/earnings/ledger.ts';
import type { EarningStatus } from '../domain/earnings/types.ts';
import type { PeriodId } from '../domain/periods.ts';
import {
  type EarningRecord,
  type LineRowData,
  type RecordRow,
  toLineRow,
  toRecord,
  wireColumnsOf,
} from './earnings.ts';
import { sql, type Transaction } from './transaction.ts';

// A period's earnings rows as a lock, an approval or a payment reads and moves them: the rows in a status, their
// count, the move to the next status, and the reps the period pays.

/** The period's rows with this status (the rows a lock or a payment moves). */
export async function rowsOfPeriodWithStatus(
  tx: Transaction,
  orgId: string,
  periodId: PeriodId,
  status: EarningStatus,
): Promise<LedgerRow[]> {
  const rows = await tx.query<LineRowData>(
    sql`SELECT id, line_key, status, amount_cents, period_id FROM earnings
        WHERE org_id = ${orgId} AND period_id = ${periodId} AND status = ${status} ORDER BY created_at, id`,
  );
  return rows.map(toLineRow);
}

/**
 * Moves rows of a period from one status to the next (pending → approved, approved → paid), their status changed
 * `change.at` (the caller's one reading of the clock, as a parameter: Citus refuses clock_timestamp() in an UPDATE
 * of a distributed table); returns them as they are now.
 */
export async function moveRowsOfPeriod(
  tx: Transaction,
  orgId: string,
  periodId: PeriodId,
  ids: readonly string[],
  change: { from: EarningStatus; to: EarningStatus; at: Date },
): Promise<EarningRecord[]> {
  if (ids.length === 0) return [];
  const rows = await tx.query<RecordRow>({
    text: `WITH moved AS (
             UPDATE earnings SET status = $5, status_changed_at = $6::timestamptz
             WHERE org_id = $1 AND period_id = $2 AND status = $4 AND id = ANY($3::text[])
             RETURNING *
           )
           SELECT ${wireColumnsOf('$1')} FROM moved e ORDER BY e.created_at, e.id`,
    values: [orgId, periodId, ids, change.from, change.to, change.at],
  });
  return rows.map(toRecord);
}
/**
 * The reps whose statement for the period pays something: a pending, approved or paid row, or a manual adjustment
 * (table adjustments). These are the statements an approval policy waits for.
 */
export async function repsPaidInPeriod(tx: Transaction, orgId: string, periodId: string): Promise<string[]> {
  const rows = await tx.query<{ user_id: string }>(
    sql`SELECT user_id FROM earnings WHERE org_id = ${orgId} AND period_id = ${periodId}
          AND status IN ('pending', 'approved', 'paid')
        UNION
        SELECT user_id FROM adjustments WHERE org_id = ${orgId} AND period_id = ${periodId}`,
  );
  return rows.map((row) => row.user_id);
}

/** Rows of the period's earnings in this status (inside a status change, to tell how many it moved). */
export async function countOfPeriodWithStatus(
  tx: Transaction,
  orgId: string,
  periodId: string,
  status: string,
): Promise<number> {
  const rows = await tx.query<{ count: string | number }>(
    sql`SELECT count(*) AS count FROM earnings WHERE org_id = ${orgId} AND period_id = ${periodId} AND status = ${status}`,
  );
  return Number(rows[0]?.count ?? 0);
}

/**
 * The reps with a standing row of the period, or a pending row of one of its lines booked in a later period while it
 * was locked: the reps whose lines a reopening books again.
 */
export async function repsWithLinesOfPeriod(tx: Transaction, orgId: string, periodId: string): Promise<string[]> {
  const rows = await tx.query<{ user_id: string }>(
    sql`SELECT DISTINCT user_id FROM earnings WHERE org_id = ${orgId}
          AND ((period_id = ${periodId} AND status IN ('pending', 'approved'))
            OR (status = 'pending' AND trace -> 'period' ->> 'id' = ${periodId}))
        ORDER BY user_id`,
  );
  return rows.map((row) => row.user_id);
}

/** Whether the rep has any earnings row (of any status) in the period. */
export async function repHasRowsInPeriod(
  tx: Transaction,
  orgId: string,
  userId: string,
  periodId: string,
): Promise<boolean> {
  const rows = await tx.query<{ found: boolean }>(
    sql`SELECT true AS found FROM earnings
        WHERE org_id = ${orgId} AND user_id = ${userId} AND period_id = ${periodId} LIMIT 1`,
  );
  return rows.length > 0;
}

/** The first day of the org's earliest period with earnings; null while nothing is booked. */
export async function firstBookedDay(tx: Transaction, orgId: string): Promise<string | null> {
  const rows = await tx.query<{ day: string | Date | null }>(
    sql`SELECT min(p.starts_on)::text AS day FROM periods p
        WHERE p.org_id = ${orgId}
          AND (SELECT true FROM earnings e WHERE e.org_id = ${orgId} AND e.period_id = p.id LIMIT 1)`,
  );
  const day = rows[0]?.day ?? null;
  return day instanceof Date ? day.toISOString().slice(0, 10) : day === null ? null : day.slice(0, 10);
}
