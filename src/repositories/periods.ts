import { Prisma } from '../../generated/prisma/client.ts';
import { type PeriodId, type PeriodKind, parsePeriodId, periodBounds } from '../domain/periods.ts';
import { named, prismaOf, sql, type Transaction } from './transaction.ts';

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
  /** When the period last went back from locked to open; null when it never did. */
  reopened_at: Date | null;
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
  reopened_at: Date | null;
}

const PERIOD_COLUMNS = Prisma.sql`org_id, id, kind, starts_on, ends_on, status, locked_at, paid_at, reopened_at`;

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
    reopened_at: row.reopened_at,
  };
}

/**
 * Locks the period row for the rest of the transaction: status changes queue here, and so should anything
 * that books into a period only while it is open (read it with `FOR SHARE`).
 */
export async function lockForUpdate(tx: Transaction, orgId: string, periodId: string): Promise<PeriodRecord | null> {
  const rows = await prismaOf(tx).$queryRaw<PeriodRow[]>`
    SELECT ${PERIOD_COLUMNS} FROM periods WHERE org_id = ${orgId} AND id = ${periodId} FOR UPDATE`;
  return rows[0] ? toPeriodRecord(rows[0]) : null;
}

/** Oldest first; a month before the quarter that starts with it. */
export async function listForOrg(tx: Transaction, orgId: string): Promise<PeriodRecord[]> {
  const rows = await prismaOf(tx).period.findMany({
    where: { org_id: orgId },
    orderBy: [{ starts_on: 'asc' }, { ends_on: 'asc' }],
  });
  return rows.map(toPeriodRecord);
}

export async function markLocked(tx: Transaction, orgId: string, periodId: string, at: Date): Promise<PeriodRecord> {
  const row = await prismaOf(tx).period.update({
    where: { org_id_id: { org_id: orgId, id: periodId } },
    data: { status: 'locked', locked_at: at },
  });
  return toPeriodRecord(row);
}

export async function markPaid(tx: Transaction, orgId: string, periodId: string, at: Date): Promise<PeriodRecord> {
  const row = await prismaOf(tx).period.update({
    where: { org_id_id: { org_id: orgId, id: periodId } },
    data: { status: 'paid', paid_at: at },
  });
  return toPeriodRecord(row);
}

/** Back from locked to open: the lock's time goes (nothing of it is capitalised or approved any more). */
export async function markReopened(tx: Transaction, orgId: string, periodId: string, at: Date): Promise<PeriodRecord> {
  const row = await prismaOf(tx).period.update({
    where: { org_id_id: { org_id: orgId, id: periodId } },
    data: { status: 'open', locked_at: null, reopened_at: at },
  });
  return toPeriodRecord(row);
}

// Periods as the ledger books into them, inside the booking transaction.

/** The status of every period of the org, without locking any (a period not listed does not exist yet). */
export async function periodStatuses(tx: Transaction, orgId: string): Promise<Map<PeriodId, PeriodStatus>> {
  const rows = await tx.query<{ id: string; status: PeriodStatus }>(
    named('earnings_period_statuses', { text: 'SELECT id, status FROM periods WHERE org_id = $1', values: [orgId] }),
  );
  return new Map(rows.map((row) => [row.id, row.status]));
}

/**
 * Reads these periods `FOR SHARE`, in id order, and holds them until the transaction ends: a lock or
 * mark-paid of one of them (which takes it `FOR UPDATE`) waits for this transaction, and this one waits for
 * a status change in progress. Returns the status of those that exist.
 */
export async function sharePeriods(
  tx: Transaction,
  orgId: string,
  periodIds: readonly PeriodId[],
): Promise<Map<PeriodId, PeriodStatus>> {
  if (periodIds.length === 0) return new Map();
  const rows = await tx.query<{ id: string; status: PeriodStatus }>(
    named('earnings_share_periods', {
      text: 'SELECT id, status FROM periods WHERE org_id = $1 AND id = ANY($2::text[]) ORDER BY id FOR SHARE',
      values: [orgId, periodIds],
    }),
  );
  return new Map(rows.map((row) => [row.id, row.status]));
}

/**
 * Creates the periods that do not exist yet, `open`, and returns the ids this call created: whoever first books
 * into a period, or locks it, calls this. Concurrent callers create each period once (the others wait for its
 * insert, then see it). The kind and the dates follow from the id.
 */
export async function ensurePeriods(
  tx: Transaction,
  orgId: string,
  periodIds: readonly PeriodId[],
): Promise<PeriodId[]> {
  if (periodIds.length === 0) return [];
  const periods = [...periodIds].sort().map((id) => {
    const parsed = parsePeriodId(id);
    if (!parsed) throw new RangeError(`not a period id: ${JSON.stringify(id)}`);
    return { id, kind: parsed.kind, ...periodBounds(id) };
  });
  const created = await tx.query<{ id: PeriodId }>(
    named('ensure_periods', {
      text: `INSERT INTO periods (org_id, id, kind, starts_on, ends_on, status)
             SELECT $1, p.id, p.kind, p.starts_on, p.ends_on, 'open'
             FROM jsonb_to_recordset($2::jsonb) AS p(id text, kind text, starts_on date, ends_on date)
             ON CONFLICT (org_id, id) DO NOTHING
             RETURNING id`,
      values: [orgId, JSON.stringify(periods)],
    }),
  );
  return created.map((row) => row.id);
}

/** A period as statements and payouts show it (plain SQL, on the API's pool or the CLI's Prisma). */
export interface PeriodSummary {
  id: string;
  kind: PeriodKind;
  starts_on: string;
  ends_on: string;
  status: PeriodStatus;
}

function dateText(value: string | Date): string {
  return typeof value === 'string' ? value : value.toISOString().slice(0, 10);
}

export async function findSummary(tx: Transaction, orgId: string, periodId: string): Promise<PeriodSummary | null> {
  const rows = await tx.query<
    Omit<PeriodSummary, 'starts_on' | 'ends_on'> & { starts_on: string | Date; ends_on: string | Date }
  >(sql`SELECT id, kind, starts_on, ends_on, status FROM periods WHERE org_id = ${orgId} AND id = ${periodId}`);
  const row = rows[0];
  return row ? { ...row, starts_on: dateText(row.starts_on), ends_on: dateText(row.ends_on) } : null;
}
