import { Prisma } from '../../generated/prisma/client.ts';
import type { Database } from '../db/prisma.ts';
import type { PeriodKind } from '../domain/periods.ts';
import { prismaOf, sql, type Transaction } from './transaction.ts';

export type PeriodStatus = 'open' | 'locked' | 'paid';

/** A period of an org, dates as `YYYY-MM-DD`. */
export interface PeriodRecord {
  org_id: string;
  id: string;
  kind: PeriodKind;
  starts_on: string;
  ends_on: string;
  status: PeriodStatus;
  locked_at: Date | null;
  paid_at: Date | null;
}

/** Standing earnings rows of a period in one status: how many, and their sum. */
export interface PeriodTotal {
  period_id: string;
  status: string;
  rows: number;
  amount_cents: number;
}

interface PeriodRow {
  org_id: string;
  id: string;
  kind: string;
  starts_on: Date;
  ends_on: Date;
  status: string;
  locked_at: Date | null;
  paid_at: Date | null;
}

const PERIOD_COLUMNS = Prisma.sql`org_id, id, kind, starts_on, ends_on, status, locked_at, paid_at`;

function toPeriodRecord(row: PeriodRow): PeriodRecord {
  return {
    org_id: row.org_id,
    id: row.id,
    kind: row.kind as PeriodKind,
    starts_on: row.starts_on.toISOString().slice(0, 10),
    ends_on: row.ends_on.toISOString().slice(0, 10),
    status: row.status as PeriodStatus,
    locked_at: row.locked_at,
    paid_at: row.paid_at,
  };
}

export class PeriodRepository {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  /**
   * Locks the period row for the rest of the transaction: status changes queue here, and so should anything
   * that books into a period only while it is open (read it with `FOR SHARE`).
   */
  async lockForUpdate(tx: Transaction, orgId: string, periodId: string): Promise<PeriodRecord | null> {
    const rows = await prismaOf(tx).$queryRaw<PeriodRow[]>`
      SELECT ${PERIOD_COLUMNS} FROM periods WHERE org_id = ${orgId} AND id = ${periodId} FOR UPDATE`;
    return rows[0] ? toPeriodRecord(rows[0]) : null;
  }

  /** Oldest first; a month before the quarter that starts with it. */
  async listForOrg(orgId: string): Promise<PeriodRecord[]> {
    const rows = await this.db.period.findMany({
      where: { org_id: orgId },
      orderBy: [{ starts_on: 'asc' }, { ends_on: 'asc' }],
    });
    return rows.map(toPeriodRecord);
  }

  async markLocked(tx: Transaction, orgId: string, periodId: string, at: Date): Promise<PeriodRecord> {
    const row = await prismaOf(tx).period.update({
      where: { org_id_id: { org_id: orgId, id: periodId } },
      data: { status: 'locked', locked_at: at },
    });
    return toPeriodRecord(row);
  }

  async markPaid(tx: Transaction, orgId: string, periodId: string, at: Date): Promise<PeriodRecord> {
    const row = await prismaOf(tx).period.update({
      where: { org_id_id: { org_id: orgId, id: periodId } },
      data: { status: 'paid', paid_at: at },
    });
    return toPeriodRecord(row);
  }

  /** Rows of the period's earnings in this status (inside a status change, to tell how many it moved). */
  async countEarnings(tx: Transaction, orgId: string, periodId: string, status: string): Promise<number> {
    const rows = await tx.query<{ count: string | number }>(
      sql`SELECT count(*) AS count FROM earnings WHERE org_id = ${orgId} AND period_id = ${periodId} AND status = ${status}`,
    );
    return Number(rows[0]?.count ?? 0);
  }

  /** Per period and status, the standing rows (superseded and reversed rows are history, not totals). */
  async earningTotalsByStatus(orgId: string): Promise<PeriodTotal[]> {
    const rows = await this.db.$queryRaw<Array<{ period_id: string; status: string; rows: bigint; amount: bigint }>>`
      SELECT period_id, status, count(*) AS rows, coalesce(sum(amount_cents), 0)::bigint AS amount
      FROM earnings WHERE org_id = ${orgId} AND status NOT IN ('superseded', 'reversed')
      GROUP BY period_id, status ORDER BY period_id, status`;
    return rows.map((row) => ({
      period_id: row.period_id,
      status: row.status,
      rows: Number(row.rows),
      amount_cents: Number(row.amount),
    }));
  }
}
