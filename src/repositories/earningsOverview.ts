import type { StoredTrace } from '../domain/earnings/storedTrace.ts';
import { prismaOf, type Transaction } from './transaction.ts';

// The console's overview of the earnings ledger, admin reads through Prisma: the standing rows' totals per period and
// status and per rep and period, and a rep's rows of a period with their traces' explanations. The ledger's own
// statements, which run in any transaction, are in earnings.ts.

/** Standing earnings rows of a period in one status and currency: how many, and their sum. */
export interface PeriodTotal {
  period_id: string;
  status: string;
  currency: string;
  rows: number;
  amount_cents: number;
}

/** A rep's standing rows in one period, as the console shows them. */
export interface RepPeriodTotal {
  user_id: string;
  period_id: string;
  rows: number;
  amount_cents: number;
}

/** A rep's row as the console shows it, with its trace's explanation. */
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

/** Per period, status and currency, the standing rows (superseded and reversed rows are history, not totals), for the admin. */
export async function periodTotalsByStatus(tx: Transaction, orgId: string): Promise<PeriodTotal[]> {
  const rows = await prismaOf(tx).$queryRaw<
    Array<{ period_id: string; status: string; currency: string; rows: bigint; amount: bigint }>
  >`
    SELECT period_id, status, currency, count(*) AS rows, coalesce(sum(amount_cents), 0)::bigint AS amount
    FROM earnings WHERE org_id = ${orgId} AND status NOT IN ('superseded', 'reversed')
    GROUP BY period_id, status, currency ORDER BY period_id, status, currency`;
  return rows.map((row) => ({
    period_id: row.period_id,
    status: row.status,
    currency: row.currency,
    rows: Number(row.rows),
    amount_cents: Number(row.amount),
  }));
}

/** Standing rows (not superseded or reversed) per rep and period, for the console. */
export async function repPeriodTotals(tx: Transaction, orgId: string): Promise<RepPeriodTotal[]> {
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

/** A rep's row of a period with its trace as stored, and what serves it (services/earnings/servedTraces.ts). */
export interface RepEarningRowWithTrace extends Omit<RepEarningRow, 'chip_name' | 'explanation'> {
  plan_version_id: string;
  rule_version: string;
  trace: StoredTrace;
}

/** Every row of the rep booked in the period, oldest first, with its trace as stored. */
export async function repRowsOfPeriod(
  tx: Transaction,
  orgId: string,
  repId: string,
  periodId: string,
): Promise<RepEarningRowWithTrace[]> {
  const rows = await prismaOf(tx).earning.findMany({
    where: { org_id: orgId, user_id: repId, period_id: periodId },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    select: {
      id: true,
      deal_id: true,
      plan_id: true,
      plan_version_id: true,
      rule_chip_id: true,
      rule_version: true,
      amount_cents: true,
      status: true,
      created_at: true,
      trace: true,
    },
  });
  // The deals' external ids by (org_id, id), not through Prisma's relation load, which would name the org per row
  // (`org_id IN (…)`): one org, one statement (docs/scaling.md).
  const dealIds = [...new Set(rows.flatMap((row) => (row.deal_id ? [row.deal_id] : [])))];
  const deals =
    dealIds.length === 0
      ? []
      : await prismaOf(tx).deal.findMany({
          where: { org_id: orgId, id: { in: dealIds } },
          select: { id: true, external_id: true },
        });
  const dealExternalIds = new Map(deals.map((deal) => [deal.id, deal.external_id]));
  return rows.map((row) => ({
    id: row.id,
    deal_id: row.deal_id,
    deal_external_id: (row.deal_id && dealExternalIds.get(row.deal_id)) ?? null,
    plan_id: row.plan_id,
    plan_version_id: row.plan_version_id,
    rule_chip_id: row.rule_chip_id,
    rule_version: row.rule_version,
    amount_cents: Number(row.amount_cents),
    status: row.status,
    created_at: row.created_at,
    trace: row.trace as unknown as StoredTrace,
  }));
}

/** How many earning rows the org has in each status, in status order. */
export async function countsByStatus(tx: Transaction, orgId: string): Promise<Record<string, number>> {
  const groups = await prismaOf(tx).earning.groupBy({
    by: ['status'],
    where: { org_id: orgId },
    _count: { _all: true },
  });
  return Object.fromEntries(
    groups.sort((a, b) => a.status.localeCompare(b.status)).map((row) => [row.status, row._count._all]),
  );
}
