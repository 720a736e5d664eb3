import { prismaOf, type Transaction } from './transaction.ts';

export interface RepRecord {
  id: string;
  external_id: string;
}

export interface RepPeriodTotal {
  user_id: string;
  period_id: string;
  rows: number;
  amount_cents: number;
}

export interface RepEarningRow {
  id: string;
  deal_id: string | null;
  deal_external_id: string | null;
  plan_id: string;
  rule_chip_id: string;
  chip_name: string;
  amount_cents: number;
  status: string;
  created_at: Date;
  explanation: string[];
}

/** Reps (users with role rep) and their earnings, for the console. Always scoped by org. */

export async function list(tx: Transaction, orgId: string): Promise<RepRecord[]> {
  return prismaOf(tx).user.findMany({
    where: { org_id: orgId, role: 'rep' },
    orderBy: { external_id: 'asc' },
    select: { id: true, external_id: true },
  });
}

export async function find(tx: Transaction, orgId: string, repId: string): Promise<RepRecord | null> {
  return prismaOf(tx).user.findFirst({
    where: { org_id: orgId, id: repId, role: 'rep' },
    select: { id: true, external_id: true },
  });
}

/** Standing rows (not superseded or reversed) per rep and period. */
export async function periodTotals(tx: Transaction, orgId: string): Promise<RepPeriodTotal[]> {
  const rows = await prismaOf(tx).$queryRaw<
    Array<{ user_id: string; period_id: string; rows: bigint; amount: bigint }>
  >`
    SELECT user_id, period_id, count(*) AS rows, coalesce(sum(amount_cents), 0)::bigint AS amount
    FROM earnings WHERE org_id = ${orgId} AND status NOT IN ('superseded', 'reversed')
    GROUP BY user_id, period_id ORDER BY user_id, period_id`;
  return rows.map((row) => ({
    user_id: row.user_id,
    period_id: row.period_id,
    rows: Number(row.rows),
    amount_cents: Number(row.amount),
  }));
}

/** Every row of the rep booked in the period, oldest first, with its trace's explanation. */
export async function earningsOfPeriod(
  tx: Transaction,
  orgId: string,
  repId: string,
  periodId: string,
): Promise<RepEarningRow[]> {
  const rows = await prismaOf(tx).earning.findMany({
    where: { org_id: orgId, user_id: repId, period_id: periodId },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    select: {
      id: true,
      deal_id: true,
      plan_id: true,
      rule_chip_id: true,
      amount_cents: true,
      status: true,
      created_at: true,
      trace: true,
      deal: { select: { external_id: true } },
    },
  });
  return rows.map((row) => {
    const trace = row.trace as { chip?: { name?: string }; explanation?: string[] };
    return {
      id: row.id,
      deal_id: row.deal_id,
      deal_external_id: row.deal?.external_id ?? null,
      plan_id: row.plan_id,
      rule_chip_id: row.rule_chip_id,
      chip_name: trace.chip?.name ?? row.rule_chip_id,
      amount_cents: Number(row.amount_cents),
      status: row.status,
      created_at: row.created_at,
      explanation: trace.explanation ?? [],
    };
  });
}
