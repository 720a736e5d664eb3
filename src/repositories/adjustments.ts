import type { AdjustmentCategory } from '../domain/adjustments.ts';
import type { AttainmentCredit } from '../domain/earnings/attainmentCredits.ts';
import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import type { PeriodStatus } from './periods.ts';
import { named, statementParameters, type Transaction } from './transaction.ts';
import { repExternalIdOf, repIdByExternalId, repRanges } from './users.ts';

// Manual adjustments (adjustments): admins' signed amounts beside the earnings ledger. Rows are only inserted;
// a void is a new row naming the one it voids. Plain SQL: statements and payouts read them on the pool.

/** An adjustment as stored, with its rep's external id, its status (its period's) and the void that voids it. */
export interface AdjustmentRecord {
  id: string;
  org_id: string;
  user_id: string;
  user_external_id: string;
  period_id: string;
  amount_cents: number;
  currency: string;
  category: AdjustmentCategory;
  reason: string;
  deal_id: string | null;
  voids_id: string | null;
  voided_by_id: string | null;
  idempotency_key: string | null;
  created_by_type: 'admin' | 'cli';
  created_by: string;
  created_by_id: string | null;
  created_at: Date;
  /** The admin's choice: the amount counts toward the rep's attainment in its period too. */
  counts_toward_attainment: boolean;
  /** The period's status: open → pending, locked → approved, paid → paid. */
  period_status: PeriodStatus;
}

export interface NewAdjustment {
  id: string;
  org_id: string;
  user_id: string;
  period_id: string;
  amount_cents: number;
  currency: string;
  category: AdjustmentCategory;
  reason: string;
  deal_id: string | null;
  voids_id: string | null;
  idempotency_key: string | null;
  created_by_type: 'admin' | 'cli';
  created_by: string;
  created_by_id: string | null;
  counts_toward_attainment: boolean;
}

export interface AdjustmentFilters {
  periodId?: string;
  userId?: string;
  userExternalId?: string;
  category?: AdjustmentCategory;
}

interface AdjustmentRow extends Omit<AdjustmentRecord, 'amount_cents' | 'created_at' | 'period_status'> {
  amount_cents: string;
  created_at: Date | string;
  period_status: PeriodStatus | null;
}

// The void of each adjustment is looked up by its key, one probe per adjustment read (voids_id is unique, so LIMIT 1
// changes nothing but the plan: as a plain join, a merge join could read every void of every org in key order). Its
// rep is named by the users key too (repExternalIdOf), not joined: a generic plan could scan the org's reps per row.
// `adjustments`: the rows read, the table or a page of it; every statement binds the org as $1, and the void and the
// rep name it (a correlation to a.org_id binds nothing on Citus: docs/scaling.md#citus-rules-checked-without-citus).
const selectFrom = (adjustments: string) => `
  SELECT a.id, a.org_id, a.user_id, ${repExternalIdOf('$1', 'a')} AS user_external_id, a.period_id,
         a.amount_cents::text AS amount_cents,
         a.currency, a.category, a.reason, a.deal_id, a.voids_id, v.id AS voided_by_id, a.idempotency_key,
         a.created_by_type, a.created_by, a.created_by_id, a.created_at, a.counts_toward_attainment, p.status AS period_status
  FROM ${adjustments} a
  LEFT JOIN LATERAL (SELECT v.id FROM adjustments v WHERE v.org_id = $1 AND v.voids_id = a.id LIMIT 1) v ON true
  LEFT JOIN periods p ON p.org_id = $1 AND p.id = a.period_id`;
const SELECT = selectFrom('adjustments');

function toRecord(row: AdjustmentRow): AdjustmentRecord {
  return {
    ...row,
    amount_cents: Number(row.amount_cents),
    created_at: new Date(row.created_at),
    period_status: row.period_status ?? 'open',
  };
}

export async function insert(tx: Transaction, adjustment: NewAdjustment): Promise<void> {
  await tx.query({
    text: `INSERT INTO adjustments (id, org_id, user_id, period_id, amount_cents, currency, category, reason, deal_id,
             voids_id, idempotency_key, created_by_type, created_by, created_by_id, counts_toward_attainment)
           VALUES ($1, $2, $3, $4, $5::bigint, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    values: [
      adjustment.id,
      adjustment.org_id,
      adjustment.user_id,
      adjustment.period_id,
      String(adjustment.amount_cents),
      adjustment.currency,
      adjustment.category,
      adjustment.reason,
      adjustment.deal_id,
      adjustment.voids_id,
      adjustment.idempotency_key,
      adjustment.created_by_type,
      adjustment.created_by,
      adjustment.created_by_id,
      adjustment.counts_toward_attainment,
    ],
  });
}

export async function find(tx: Transaction, orgId: string, id: string): Promise<AdjustmentRecord | null> {
  const rows = await tx.query<AdjustmentRow>({
    text: `${SELECT} WHERE a.org_id = $1 AND a.id = $2`,
    values: [orgId, id],
  });
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Whether the org has an adjustment with this id (another org's is not the org's). */
export async function exists(tx: Transaction, orgId: string, id: string): Promise<boolean> {
  const rows = await tx.query<{ found: number }>({
    text: 'SELECT 1 AS found FROM adjustments WHERE org_id = $1 AND id = $2',
    values: [orgId, id],
  });
  return rows.length > 0;
}

/** The adjustment, locked against a concurrent void (FOR UPDATE of its row only). */
export async function lockForVoid(tx: Transaction, orgId: string, id: string): Promise<AdjustmentRecord | null> {
  await tx.query({ text: 'SELECT id FROM adjustments WHERE org_id = $1 AND id = $2 FOR UPDATE', values: [orgId, id] });
  return find(tx, orgId, id);
}

export async function findByIdempotencyKeys(
  tx: Transaction,
  orgId: string,
  keys: readonly string[],
): Promise<AdjustmentRecord[]> {
  if (keys.length === 0) return [];
  const rows = await tx.query<AdjustmentRow>({
    text: `${SELECT} WHERE a.org_id = $1 AND a.idempotency_key = ANY($2::text[])`,
    values: [orgId, [...new Set(keys)]],
  });
  return rows.map(toRecord);
}

/** Up to `limit` adjustments after `position` in (created_at, id) order, with the filters applied. */
export async function listAfter(
  tx: Transaction,
  orgId: string,
  filters: AdjustmentFilters,
  position: KeysetPosition,
  limit: number,
  visibleUserIds: readonly string[] | null = null,
): Promise<AdjustmentRecord[]> {
  const { values, param } = statementParameters(orgId);
  const where: string[] = [];
  if (filters.periodId !== undefined) where.push(`a.period_id = ${param(filters.periodId)}`);
  if (filters.userId !== undefined) where.push(`a.user_id = ${param(filters.userId)}`);
  if (filters.userExternalId !== undefined) {
    where.push(`a.user_id = ${repIdByExternalId('$1', param(filters.userExternalId))}`);
  }
  if (filters.category !== undefined) where.push(`a.category = ${param(filters.category)}`);
  // A rep token sees its rep and their reports: without a rep filter, each one's adjustments are a range of their own
  // in the rep's (created_at, id) index, merged (as the earnings list does); filtered by `= ANY`, a page was read from
  // the org's range, every rep's rows filtered (760 rows read for a team's 50 on PostgreSQL 15).
  const byRep = repRanges(visibleUserIds, filters.userId !== undefined || filters.userExternalId !== undefined);
  if (byRep.length === 0) return [];
  if (visibleUserIds !== null && byRep[0] === undefined)
    where.push(`a.user_id = ANY(${param(visibleUserIds)}::text[])`);
  if (position) where.push(`(a.created_at, a.id) > (${param(position.at)}::timestamptz, ${param(position.id)})`);
  const max = param(limit);
  const ranges = byRep.map((userId) => {
    const rep = userId === undefined ? [] : [`a.user_id = ${param(userId)}`];
    return `(SELECT a.* FROM adjustments a WHERE ${['a.org_id = $1', ...where, ...rep].join(' AND ')}
             ORDER BY a.created_at, a.id LIMIT ${max})`;
  });
  // The page is taken first, then each of its rows' void, period and rep: planned generically with the joins around
  // it, a page of one rep's adjustments was read from the org's (created_at, id) range, every rep's rows filtered.
  const page = `(SELECT a.* FROM (${ranges.join(' UNION ALL ')}) a ORDER BY a.created_at, a.id LIMIT ${max})`;
  const rows = await tx.query<AdjustmentRow>({ text: `${selectFrom(page)} ORDER BY a.created_at, a.id`, values });
  return rows.map(toRecord);
}

/** A rep's adjustments paid in the period, oldest first. */
export async function ofRepInPeriod(
  tx: Transaction,
  orgId: string,
  userId: string,
  periodId: string,
): Promise<AdjustmentRecord[]> {
  const rows = await tx.query<AdjustmentRow>({
    text: `${SELECT} WHERE a.org_id = $1 AND a.user_id = $2 AND a.period_id = $3 ORDER BY a.created_at, a.id`,
    values: [orgId, userId, periodId],
  });
  return rows.map(toRecord);
}

/** Per period and currency of the org, its manual adjustments (voids among them): how many, and their sum. */
export async function totalsByPeriod(
  tx: Transaction,
  orgId: string,
): Promise<Array<{ period_id: string; currency: string; count: number; amount_cents: number }>> {
  const rows = await tx.query<{ period_id: string; currency: string; count: string; amount_cents: string }>({
    text: `SELECT period_id, currency, count(*)::text AS count, sum(amount_cents)::text AS amount_cents
           FROM adjustments WHERE org_id = $1 GROUP BY period_id, currency ORDER BY period_id, currency`,
    values: [orgId],
  });
  return rows.map((row) => ({
    period_id: row.period_id,
    currency: row.currency,
    count: Number(row.count),
    amount_cents: Number(row.amount_cents),
  }));
}

/** The reps with an adjustment paid in the period. */
export async function repsInPeriod(tx: Transaction, orgId: string, periodId: string): Promise<string[]> {
  const rows = await tx.query<{ user_id: string }>({
    text: 'SELECT DISTINCT user_id FROM adjustments WHERE org_id = $1 AND period_id = $2',
    values: [orgId, periodId],
  });
  return rows.map((row) => row.user_id);
}

/**
 * The adjustments of these reps that count toward attainment (`counts_toward_attainment`), by rep: what the engine
 * adds to their running totals. A voided adjustment and its void count nowhere (the void takes the credit back where
 * it counted, whichever period pays it back). One statement, on the deal-event path too.
 */
export async function attainmentCreditsOfReps(
  tx: Transaction,
  orgId: string,
  userIds: readonly string[],
): Promise<Map<string, AttainmentCredit[]>> {
  const byRep = new Map<string, AttainmentCredit[]>();
  if (userIds.length === 0) return byRep;
  const rows = await tx.query<{
    id: string;
    user_id: string;
    period_id: string;
    amount_cents: string;
    currency: string;
  }>(
    named('adjustments_attainment_credits', {
      text: `SELECT id, user_id, period_id, amount_cents::text AS amount_cents, currency
             FROM adjustments a
             WHERE org_id = $1 AND user_id = ANY($2::text[]) AND counts_toward_attainment AND voids_id IS NULL
               AND (SELECT true FROM adjustments v WHERE v.org_id = $1 AND v.voids_id = a.id LIMIT 1) IS NULL
             ORDER BY created_at, id`,
      values: [orgId, [...new Set(userIds)]],
    }),
  );
  for (const row of rows) {
    const credits = byRep.get(row.user_id) ?? [];
    credits.push({
      id: row.id,
      period_id: row.period_id,
      amount_cents: Number(row.amount_cents),
      currency: row.currency,
    });
    byRep.set(row.user_id, credits);
  }
  return byRep;
}
