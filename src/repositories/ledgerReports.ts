import type { StatementRow } from '../domain/earnings/statement.ts';
import type { PeriodStatus } from '../domain/earnings/types.ts';
import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import type { PeriodKind } from '../domain/periods.ts';
import type { Assignee, PlanDraw } from '../domain/plans/types.ts';
import { sql, type Transaction } from './transaction.ts';

// Reports over the earnings ledger for reps and payroll (statements, payouts): reads only, always scoped by
// org, on a plain-SQL `Transaction` (the pool's statements for the API, Prisma's for the CLI). Sums are taken
// over the same rows `GET /v1/earnings` lists, so the reports and the list cannot disagree.

export interface PeriodRow {
  id: string;
  kind: PeriodKind;
  starts_on: string;
  ends_on: string;
  status: PeriodStatus;
}

/** A row of a plan's draw line: an advance (or its adjustment) or a recovery, told by its trace's chip kind. */
const IS_DRAW_ROW = "(e.trace -> 'chip' ->> 'kind') IN ('draw', 'draw_recovery')";

export interface ReportPlan {
  id: string;
  key: string;
  name: string;
  status: 'active' | 'archived';
  period: PeriodKind;
  quota_cents: number | null;
  /** ISO 4217: the plan's currency, else the org's default. */
  currency: string;
  /** `all`, or the assignees of the plan's current version (owner_external_id values or dated assignments). */
  assignees: 'all' | Assignee[];
  /** The current version's draw; null when it has none. */
  draw: PlanDraw | null;
}

/** One rep's sums over a period's approved and paid rows. */
export interface PayoutRow {
  user_id: string;
  user_external_id: string;
  user_created_at: Date;
  currency: string;
  approved_cents: number;
  paid_cents: number;
  clawback_cents: number;
  /** The draws' rows (advances, their adjustments and recoveries): not clawbacks, paid under their own code. */
  draw_cents: number;
}

function dateText(value: string | Date): string {
  return typeof value === 'string' ? value : value.toISOString().slice(0, 10);
}

export async function findPeriod(tx: Transaction, orgId: string, periodId: string): Promise<PeriodRow | null> {
  const rows = await tx.query<
    Omit<PeriodRow, 'starts_on' | 'ends_on'> & { starts_on: string | Date; ends_on: string | Date }
  >(sql`SELECT id, kind, starts_on, ends_on, status FROM periods WHERE org_id = ${orgId} AND id = ${periodId}`);
  const row = rows[0];
  return row ? { ...row, starts_on: dateText(row.starts_on), ends_on: dateText(row.ends_on) } : null;
}

/** The rep's projected, pending, approved and paid rows booked in the period, in the order they were written. */
export async function rowsOfRepInPeriod(
  tx: Transaction,
  orgId: string,
  userId: string,
  periodId: string,
): Promise<StatementRow[]> {
  const rows = await tx.query<Omit<StatementRow, 'amount_cents'> & { amount_cents: number | bigint }>(
    sql`SELECT id, status, amount_cents, deal_id, plan_id, rule_chip_id, pricing, trace FROM earnings
        WHERE org_id = ${orgId} AND user_id = ${userId} AND period_id = ${periodId}
          AND status IN ('projected', 'pending', 'approved', 'paid')
        ORDER BY created_at, id`,
  );
  return rows.map((row) => ({ ...row, amount_cents: Number(row.amount_cents) }));
}

/** The org's plans with their current version's assignees, oldest first. */
export async function plans(tx: Transaction, orgId: string): Promise<ReportPlan[]> {
  const rows = await tx.query<Omit<ReportPlan, 'quota_cents'> & { quota_cents: number | bigint | null }>(
    sql`SELECT p.id, p.key, p.name, p.status, p.period, p.quota_cents,
               COALESCE(v.definition -> 'assignees', '"all"'::jsonb) AS assignees,
               v.definition -> 'draw' AS draw,
               COALESCE(v.definition ->> 'currency', o.default_currency) AS currency
        FROM plans p JOIN plan_versions v ON v.id = p.current_version_id JOIN orgs o ON o.id = p.org_id
        WHERE p.org_id = ${orgId} ORDER BY p.created_at, p.id`,
  );
  return rows.map((row) => ({
    ...row,
    quota_cents: row.quota_cents === null ? null : Number(row.quota_cents),
    draw: row.draw ?? null,
  }));
}

/**
 * Per plan, what the rep's recoverable draws have advanced and not yet recovered in the periods booked before
 * `periodId`: the sum of the standing rows booked there of the draws' lines (advances of a recoverable draw,
 * and recoveries).
 */
export async function drawBalancesBefore(
  tx: Transaction,
  orgId: string,
  userId: string,
  periodId: string,
): Promise<Map<string, number>> {
  const rows = await tx.query<{ plan_id: string; balance: string }>(
    sql`SELECT plan_id, sum(amount_cents)::text AS balance FROM earnings
        WHERE org_id = ${orgId} AND user_id = ${userId} AND period_id < ${periodId}
          AND status IN ('pending', 'approved', 'paid')
          AND (trace -> 'chip' ->> 'kind' = 'draw_recovery'
               OR (trace -> 'chip' ->> 'kind' = 'draw'
                   AND trace -> 'chip' -> 'definition' ->> 'recoverable' = 'true'))
        GROUP BY plan_id`,
  );
  return new Map(rows.map((row) => [row.plan_id, Number(row.balance)]));
}

/**
 * Per rep with approved or paid rows in the period, after `position` in the rep's (created_at, id) order, and
 * per currency the rep's rows are in: the sums of those rows by status, of the draws' rows, and of the other
 * negative ones (clawbacks).
 * `limit` counts reps: a rep's payouts in several currencies come together.
 */
export async function payoutsAfter(
  tx: Transaction,
  orgId: string,
  periodId: string,
  position: KeysetPosition,
  limit: number,
): Promise<PayoutRow[]> {
  const values: unknown[] = [orgId, periodId];
  let keyset = '';
  if (position) {
    values.push(position.at, position.id);
    keyset = 'AND (u.created_at, u.id) > ($3::timestamptz, $4)';
  }
  values.push(limit);
  const rows = await tx.query<PayoutRow>({
    text: `WITH reps AS (
             SELECT DISTINCT u.id, u.external_id, u.created_at
             FROM earnings e JOIN users u ON u.id = e.user_id
             WHERE e.org_id = $1 AND e.period_id = $2 AND e.status IN ('approved', 'paid') ${keyset}
             ORDER BY u.created_at, u.id LIMIT $${values.length}
           )
           SELECT u.id AS user_id, u.external_id AS user_external_id, u.created_at AS user_created_at, e.currency,
             COALESCE(sum(e.amount_cents) FILTER (WHERE e.status = 'approved'), 0)::bigint AS approved_cents,
             COALESCE(sum(e.amount_cents) FILTER (WHERE e.status = 'paid'), 0)::bigint AS paid_cents,
             COALESCE(sum(e.amount_cents) FILTER (WHERE e.amount_cents < 0 AND NOT ${IS_DRAW_ROW}), 0)::bigint
               AS clawback_cents,
             COALESCE(sum(e.amount_cents) FILTER (WHERE ${IS_DRAW_ROW}), 0)::bigint AS draw_cents
           FROM earnings e JOIN reps u ON u.id = e.user_id
           WHERE e.org_id = $1 AND e.period_id = $2 AND e.status IN ('approved', 'paid')
           GROUP BY u.id, u.external_id, u.created_at, e.currency ORDER BY u.created_at, u.id, e.currency`,
    values,
  });
  return rows.map((row) => ({
    ...row,
    user_created_at: new Date(row.user_created_at),
    approved_cents: Number(row.approved_cents),
    paid_cents: Number(row.paid_cents),
    clawback_cents: Number(row.clawback_cents),
    draw_cents: Number(row.draw_cents),
  }));
}
