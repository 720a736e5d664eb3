import type { ApprovalSnapshot, ApprovalStep } from '../domain/approvals.ts';
import type { Transaction } from './transaction.ts';

// Approvals of reps' statements (statement_approvals): only inserted. Whether one still stands is decided by
// comparing its snapshot with the statement now (src/domain/approvals.ts).

export interface StatementApprovalRecord {
  id: string;
  user_id: string;
  period_id: string;
  step: ApprovalStep;
  approver_type: 'rep' | 'admin';
  approver_id: string;
  snapshot: ApprovalSnapshot;
  payable_cents: number;
  created_at: Date;
}

type Row = Omit<StatementApprovalRecord, 'payable_cents' | 'created_at'> & {
  payable_cents: string;
  created_at: Date | string;
};

const COLUMNS = `id, user_id, period_id, step, approver_type, approver_id, snapshot, payable_cents::text AS payable_cents,
                 created_at`;

function toRecord(row: Row): StatementApprovalRecord {
  return { ...row, payable_cents: Number(row.payable_cents), created_at: new Date(row.created_at) };
}

/** Approvals recorded before the period was last reopened no longer count: reopening resets them. */
const SINCE_REOPENED = (periodParameter: string) =>
  `COALESCE((SELECT reopened_at FROM periods WHERE org_id = $1 AND id = ${periodParameter}), '-infinity')`;

export async function insert(
  tx: Transaction,
  orgId: string,
  approval: Omit<StatementApprovalRecord, 'created_at'>,
): Promise<StatementApprovalRecord> {
  const rows = await tx.query<Row>({
    text: `INSERT INTO statement_approvals (id, org_id, user_id, period_id, step, approver_type, approver_id, snapshot,
             payable_cents)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::bigint) RETURNING ${COLUMNS}`,
    values: [
      approval.id,
      orgId,
      approval.user_id,
      approval.period_id,
      approval.step,
      approval.approver_type,
      approval.approver_id,
      JSON.stringify(approval.snapshot),
      String(approval.payable_cents),
    ],
  });
  return toRecord(rows[0] as Row);
}

/** The latest approval of each step of the rep's statement for the period. */
export async function latestOfStatement(
  tx: Transaction,
  orgId: string,
  userId: string,
  periodId: string,
): Promise<StatementApprovalRecord[]> {
  const rows = await tx.query<Row>({
    text: `SELECT DISTINCT ON (step) ${COLUMNS} FROM statement_approvals
           WHERE org_id = $1 AND user_id = $2 AND period_id = $3 AND created_at > ${SINCE_REOPENED('$3')}
           ORDER BY step, created_at DESC, id DESC`,
    values: [orgId, userId, periodId],
  });
  return rows.map(toRecord);
}

/** The latest approval of each step of every statement of the period, by rep. */
export async function latestOfPeriod(
  tx: Transaction,
  orgId: string,
  periodId: string,
): Promise<Map<string, StatementApprovalRecord[]>> {
  const rows = await tx.query<Row>({
    text: `SELECT DISTINCT ON (user_id, step) ${COLUMNS} FROM statement_approvals
           WHERE org_id = $1 AND period_id = $2 AND created_at > ${SINCE_REOPENED('$2')}
           ORDER BY user_id, step, created_at DESC, id DESC`,
    values: [orgId, periodId],
  });
  const byRep = new Map<string, StatementApprovalRecord[]>();
  for (const record of rows.map(toRecord)) byRep.set(record.user_id, [...(byRep.get(record.user_id) ?? []), record]);
  return byRep;
}

/** The advisory-lock class of statement approvals ("aprv"); the key is hashtext(org_id/user_id/period_id). */
const APPROVAL_LOCK_CLASS = 0x61707276;

/** Serialises approvals of one statement (a transaction-scoped advisory lock on the rep and period). */
export async function lockStatement(tx: Transaction, orgId: string, userId: string, periodId: string): Promise<void> {
  await tx.query({
    text: 'SELECT pg_advisory_xact_lock($1::int, hashtext($2))::text AS locked',
    values: [APPROVAL_LOCK_CLASS, `${orgId}/${userId}/${periodId}`],
  });
}
