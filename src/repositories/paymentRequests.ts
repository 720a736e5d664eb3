import type { Transaction } from './transaction.ts';

// Four-eyes payment (payment_requests): the first admin's request to mark a period paid, until another confirms.

export interface PaymentRequestRecord {
  period_id: string;
  requested_by: string;
  requested_by_id: string | null;
  requested_at: Date;
}

export async function find(tx: Transaction, orgId: string, periodId: string): Promise<PaymentRequestRecord | null> {
  const rows = await tx.query<PaymentRequestRecord>({
    text: `SELECT period_id, requested_by, requested_by_id, requested_at FROM payment_requests
           WHERE org_id = $1 AND period_id = $2`,
    values: [orgId, periodId],
  });
  const row = rows[0];
  return row ? { ...row, requested_at: new Date(row.requested_at) } : null;
}

/** Every payment request of the org waiting for a second admin, by period. */
export async function listOfOrg(tx: Transaction, orgId: string): Promise<PaymentRequestRecord[]> {
  const rows = await tx.query<PaymentRequestRecord>({
    text: `SELECT period_id, requested_by, requested_by_id, requested_at FROM payment_requests
           WHERE org_id = $1 ORDER BY period_id`,
    values: [orgId],
  });
  return rows.map((row) => ({ ...row, requested_at: new Date(row.requested_at) }));
}

export async function insert(
  tx: Transaction,
  orgId: string,
  request: Omit<PaymentRequestRecord, 'requested_at'>,
): Promise<PaymentRequestRecord> {
  const rows = await tx.query<PaymentRequestRecord>({
    text: `INSERT INTO payment_requests (org_id, period_id, requested_by, requested_by_id) VALUES ($1, $2, $3, $4)
           RETURNING period_id, requested_by, requested_by_id, requested_at`,
    values: [orgId, request.period_id, request.requested_by, request.requested_by_id],
  });
  const row = rows[0] as PaymentRequestRecord;
  return { ...row, requested_at: new Date(row.requested_at) };
}

/** A reopened period's payment request goes: what it asked to pay has changed. */
export async function remove(tx: Transaction, orgId: string, periodId: string): Promise<void> {
  await tx.query({
    text: 'DELETE FROM payment_requests WHERE org_id = $1 AND period_id = $2',
    values: [orgId, periodId],
  });
}
