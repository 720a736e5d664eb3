import type { Transaction } from './transaction.ts';

// Reminders of statements' approvals sent from the sign-off board (statement_reminders): only inserted; the board
// shows each statement's latest, and a statement reminded within the hour is not reminded again.

export interface StatementReminderRecord {
  id: string;
  user_id: string;
  period_id: string;
  state: 'waiting_rep' | 'waiting_manager';
  recipients: Array<{ user_id: string; role: 'rep' | 'manager' }>;
  reminded_by: string;
  reminded_at: Date;
}

export async function insertMany(
  tx: Transaction,
  orgId: string,
  reminders: ReadonlyArray<Omit<StatementReminderRecord, 'reminded_at'>>,
  at: Date,
): Promise<void> {
  if (reminders.length === 0) return;
  await tx.query({
    text: `INSERT INTO statement_reminders (id, org_id, user_id, period_id, state, recipients, reminded_by, reminded_at)
           SELECT r.id, $1, r.user_id, r.period_id, r.state, r.recipients, r.reminded_by, $3::timestamptz
           FROM jsonb_to_recordset($2::jsonb) AS r(id text, user_id text, period_id text, state text, recipients jsonb,
             reminded_by text)`,
    values: [orgId, JSON.stringify(reminders), at.toISOString()],
  });
}

/** The time of the latest reminder of each rep's statement of the period, by user id. */
export async function latestOfPeriod(tx: Transaction, orgId: string, periodId: string): Promise<Map<string, Date>> {
  const rows = await tx.query<{ user_id: string; reminded_at: Date | string }>({
    text: `SELECT user_id, max(reminded_at) AS reminded_at FROM statement_reminders
           WHERE org_id = $1 AND period_id = $2 GROUP BY user_id`,
    values: [orgId, periodId],
  });
  return new Map(rows.map((row) => [row.user_id, new Date(row.reminded_at)]));
}
