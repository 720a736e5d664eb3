import type { StatementRow } from '../domain/earnings/statement.ts';
import type { StoredTrace } from '../domain/earnings/storedTrace.ts';
import { sql, type Transaction } from './transaction.ts';

// What a rep's statement for a period reads of the earnings ledger, in plain SQL and always scoped by org: the rep's
// rows of the period, and what the rep's recoverable draws carry over from the periods before.

/** A statement's row as stored: its trace as its column holds it, and the row's plan version and chip version. */
export interface StoredStatementRow extends Omit<StatementRow, 'trace'> {
  plan_version_id: string;
  rule_version: string;
  trace: StoredTrace;
}

/**
 * The rep's projected, pending, approved and paid rows booked in the period, in the order they were written (a
 * statement's rows). Statements' and payouts' sums are taken over the rows `GET /v1/earnings` lists, so the
 * reports and the list cannot disagree. Their traces as stored, with what serves them (servedTraces.ts).
 */
export async function rowsOfRepInPeriod(
  tx: Transaction,
  orgId: string,
  userId: string,
  periodId: string,
): Promise<StoredStatementRow[]> {
  const rows = await tx.query<Omit<StoredStatementRow, 'amount_cents'> & { amount_cents: number | bigint }>(
    sql`SELECT id, status, amount_cents, deal_id, plan_id, plan_version_id, rule_chip_id, rule_version, pricing, trace
        FROM earnings
        WHERE org_id = ${orgId} AND user_id = ${userId} AND period_id = ${periodId}
          AND status IN ('projected', 'pending', 'approved', 'paid')
        ORDER BY created_at, id`,
  );
  return rows.map((row) => ({ ...row, amount_cents: Number(row.amount_cents) }));
}

/**
 * Per plan, what the rep's recoverable draws have advanced and not yet recovered in the periods booked before
 * `periodId`: the sum of the standing rows booked there of the draws' lines (advances of a recoverable draw,
 * and its recoveries, and of a recoverable draw paid in advance its advances and what earnings repaid). The kind test repeats the draw-rows index's predicate, so that index (the rep's draw rows only,
 * not its whole history) serves the read.
 */
export async function drawBalancesByPlanBefore(
  tx: Transaction,
  orgId: string,
  userId: string,
  periodId: string,
): Promise<Map<string, number>> {
  const rows = await tx.query<{ plan_id: string; balance: string }>(
    sql`SELECT plan_id, sum(amount_cents)::text AS balance FROM earnings
        WHERE org_id = ${orgId} AND user_id = ${userId} AND period_id < ${periodId}
          AND status IN ('pending', 'approved', 'paid')
          AND (trace -> 'chip' ->> 'kind') IN ('draw', 'draw_recovery')
          AND trace -> 'chip' -> 'definition' ->> 'recoverable' = 'true'
        GROUP BY plan_id`,
  );
  return new Map(rows.map((row) => [row.plan_id, Number(row.balance)]));
}
