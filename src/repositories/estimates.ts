import type { LedgerSnapshotRow, WrittenRow } from '../domain/earnings/estimate.ts';
import { DEAL_COLUMNS, type DealRecord, type DealRow, toDealRecord } from './deals.ts';
import { sql, type Transaction } from './transaction.ts';

// What an estimate reads inside its rolled-back transaction: the deal it is about, the org's won stage, and the
// ledger rows of the reps the event can touch, before and after the event. Always scoped by org.

type SnapshotRow = Omit<LedgerSnapshotRow, 'amount_cents'> & { amount_cents: number | bigint };

export async function dealById(tx: Transaction, orgId: string, dealId: string): Promise<DealRecord | null> {
  const rows = await tx.query<DealRow>({
    text: `SELECT ${DEAL_COLUMNS} FROM deals WHERE org_id = $1 AND id = $2`,
    values: [orgId, dealId],
  });
  return rows[0] ? toDealRecord(rows[0]) : null;
}

export async function dealByExternalId(tx: Transaction, orgId: string, externalId: string): Promise<DealRecord | null> {
  const rows = await tx.query<DealRow>({
    text: `SELECT ${DEAL_COLUMNS} FROM deals WHERE org_id = $1 AND external_id = $2`,
    values: [orgId, externalId],
  });
  return rows[0] ? toDealRecord(rows[0]) : null;
}

/** The first of the org's won stages: the stage a deal estimated as won gets. */
export async function firstWonStage(tx: Transaction, orgId: string): Promise<string> {
  const rows = await tx.query<{ stage: string | null }>(
    sql`SELECT won_stages[1] AS stage FROM orgs WHERE id = ${orgId}`,
  );
  return rows[0]?.stage ?? 'closed_won';
}

export async function userIdOf(tx: Transaction, orgId: string, externalId: string): Promise<string | null> {
  const rows = await tx.query<{ id: string }>(
    sql`SELECT id FROM users WHERE org_id = ${orgId} AND external_id = ${externalId}`,
  );
  return rows[0]?.id ?? null;
}

/** Every row of these reps, whatever its status, with what identifies its line. */
export async function rowsOfReps(
  tx: Transaction,
  orgId: string,
  userIds: readonly string[],
): Promise<LedgerSnapshotRow[]> {
  if (userIds.length === 0) return [];
  const rows = await tx.query<SnapshotRow>(
    sql`SELECT e.id, e.line_key, u.external_id AS user_external_id, e.plan_id, e.currency, e.rule_chip_id, e.deal_id,
               d.external_id AS deal_external_id, e.status, e.amount_cents
        FROM earnings e JOIN users u ON u.id = e.user_id LEFT JOIN deals d ON d.id = e.deal_id
        WHERE e.org_id = ${orgId} AND e.user_id = ANY(${[...userIds]}::text[])
        ORDER BY e.created_at, e.id`,
  );
  return rows.map((row) => ({ ...row, amount_cents: Number(row.amount_cents) }));
}

/** These rows in full, with their traces. */
export async function writtenRows(tx: Transaction, orgId: string, ids: readonly string[]): Promise<WrittenRow[]> {
  if (ids.length === 0) return [];
  const rows = await tx.query<Omit<WrittenRow, 'amount_cents'> & { amount_cents: number | bigint }>(
    sql`SELECT id, status, period_id, amount_cents, supersedes_id, plan_version_id, rule_version, trace
        FROM earnings WHERE org_id = ${orgId} AND id = ANY(${[...ids]}::text[]) ORDER BY created_at, id`,
  );
  return rows.map((row) => ({ ...row, amount_cents: Number(row.amount_cents) }));
}
