import type { LedgerSnapshotRow, WrittenRow } from '../domain/earnings/estimate.ts';
import type { StoredTrace } from '../domain/earnings/storedTrace.ts';
import { sql, type Transaction } from './transaction.ts';
import { repExternalIdOf } from './users.ts';

// What an estimate reads of the earnings rows: every row of its reps, and the rows its rehearsed event wrote.

type SnapshotRow = Omit<LedgerSnapshotRow, 'amount_cents'> & { amount_cents: number | bigint };

/** Every row of these reps, whatever its status, with what identifies its line (what an estimate compares). */
export async function snapshotRowsOfReps(
  tx: Transaction,
  orgId: string,
  userIds: readonly string[],
): Promise<LedgerSnapshotRow[]> {
  if (userIds.length === 0) return [];
  const rows = await tx.query<SnapshotRow>({
    text: `SELECT e.id, e.line_key, ${repExternalIdOf('$1')} AS user_external_id, e.plan_id, e.currency,
             e.rule_chip_id, e.deal_id, d.external_id AS deal_external_id, e.status, e.amount_cents
           FROM earnings e
           LEFT JOIN deals d ON d.org_id = e.org_id AND d.id = e.deal_id
           WHERE e.org_id = $1 AND e.user_id = ANY($2::text[])
           ORDER BY e.created_at, e.id`,
    values: [orgId, [...userIds]],
  });
  return rows.map((row) => ({ ...row, amount_cents: Number(row.amount_cents) }));
}

/** A row an estimate's event wrote, with its trace as stored and what serves it (servedTraces.ts). */
export interface StoredWrittenRow extends Omit<WrittenRow, 'trace'> {
  plan_id: string;
  rule_chip_id: string;
  trace: StoredTrace;
}

/** These rows in full, with their traces as stored (what an estimate shows of the rows its event wrote). */
export async function writtenRows(tx: Transaction, orgId: string, ids: readonly string[]): Promise<StoredWrittenRow[]> {
  if (ids.length === 0) return [];
  const rows = await tx.query<Omit<StoredWrittenRow, 'amount_cents'> & { amount_cents: number | bigint }>(
    sql`SELECT id, status, period_id, amount_cents, supersedes_id, plan_id, plan_version_id, rule_chip_id,
               rule_version, trace
        FROM earnings WHERE org_id = ${orgId} AND id = ANY(${[...ids]}::text[]) ORDER BY created_at, id`,
  );
  return rows.map((row) => ({ ...row, amount_cents: Number(row.amount_cents) }));
}
