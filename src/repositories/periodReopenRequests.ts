import type { Transaction } from './transaction.ts';

// Four-eyes reopening (period_reopen_requests): the first admin's request to reopen a locked period, with its
// reason, until a second, different admin confirms it.

export interface ReopenRequestRecord {
  period_id: string;
  reason: string;
  requested_by: string;
  requested_by_id: string | null;
  requested_at: Date;
}

const COLUMNS = 'period_id, reason, requested_by, requested_by_id, requested_at';

function toRecord(row: ReopenRequestRecord): ReopenRequestRecord {
  return { ...row, requested_at: new Date(row.requested_at) };
}

export async function find(tx: Transaction, orgId: string, periodId: string): Promise<ReopenRequestRecord | null> {
  const rows = await tx.query<ReopenRequestRecord>({
    text: `SELECT ${COLUMNS} FROM period_reopen_requests WHERE org_id = $1 AND period_id = $2`,
    values: [orgId, periodId],
  });
  return rows[0] ? toRecord(rows[0]) : null;
}

export async function listOfOrg(tx: Transaction, orgId: string): Promise<ReopenRequestRecord[]> {
  const rows = await tx.query<ReopenRequestRecord>({
    text: `SELECT ${COLUMNS} FROM period_reopen_requests WHERE org_id = $1 ORDER BY period_id`,
    values: [orgId],
  });
  return rows.map(toRecord);
}

export async function insert(
  tx: Transaction,
  orgId: string,
  request: Omit<ReopenRequestRecord, 'requested_at'>,
): Promise<ReopenRequestRecord> {
  const rows = await tx.query<ReopenRequestRecord>({
    text: `INSERT INTO period_reopen_requests (org_id, period_id, reason, requested_by, requested_by_id)
           VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    values: [orgId, request.period_id, request.reason, request.requested_by, request.requested_by_id],
  });
  return toRecord(rows[0] as ReopenRequestRecord);
}

/** The request is settled: the period was reopened, or it moved on without it. */
export async function remove(tx: Transaction, orgId: string, periodId: string): Promise<void> {
  await tx.query({
    text: 'DELETE FROM period_reopen_requests WHERE org_id = $1 AND period_id = $2',
    values: [orgId, periodId],
  });
}
