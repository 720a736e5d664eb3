import type { DealSnapshot } from '../domain/earnings/types.ts';
import { named, type Transaction } from './transaction.ts';

// Deals as the earnings engine reads them (DealSnapshot), inside the evaluating transaction: a rep's deals around the
// periods it evaluates, all of a rep's deals, and deals by id.

const DEAL_SNAPSHOT_COLUMNS = `id, external_id, amount_cents, stage, to_char(close_date, 'YYYY-MM-DD') AS close_date,
  owner_external_id, status, custom, splits, payments, currency, won_at`;

/** A deal's splits credit the rep `$2` (the GIN index on splits serves it). */
const CREDITS_REP = `splits @> jsonb_build_array(jsonb_build_object('user_id', $2::text))`;

interface DealSnapshotRow {
  id: string;
  external_id: string;
  amount_cents: number | bigint | null;
  stage: string | null;
  close_date: string | null;
  owner_external_id: string | null;
  status: string;
  custom: Record<string, unknown>;
  splits: Array<{ owner_external_id: string; share_bps: number }> | null;
  currency: string;
  won_at: Date | null;
  payments: Array<{
    id: string;
    external_id: string;
    amount_cents: number;
    received_on: string;
    voided?: true;
  }> | null;
}

function toDealSnapshot(row: DealSnapshotRow): DealSnapshot {
  return {
    id: row.id,
    external_id: row.external_id,
    amount_cents: row.amount_cents === null ? null : Number(row.amount_cents),
    stage: row.stage,
    close_date: row.close_date,
    owner_external_id: row.owner_external_id,
    status: row.status as DealSnapshot['status'],
    custom: row.custom,
    splits:
      row.splits === null
        ? null
        : row.splits.map(({ owner_external_id, share_bps }) => ({ owner_external_id, share_bps })),
    currency: row.currency,
    won_at: row.won_at === null ? null : new Date(row.won_at).toISOString(),
    ...(row.payments === null || row.payments.length === 0
      ? {}
      : {
          payments: row.payments.map(({ id, external_id, amount_cents, received_on, voided }) => ({
            id,
            external_id,
            amount_cents,
            received_on,
            ...(voided === true ? { voided } : {}),
          })),
        }),
  };
}

/**
 * The rep's deals whose close date falls in [from, to], and those without a close date (whose period
 * depends on when they were won or on today): the caller keeps those of the periods it evaluates. The
 * rep's deals are those it owns and the split deals of others that credit it. The split deals are found by the
 * splits index alone, their span checked here on the few rows it returns: with the span in the statement, a `deals`
 * never analysed yet (a new install's first import) was read through the close-date index, every deal of the org
 * in the span for each rep evaluated, where the splits index reads none.
 */
export async function dealsOfRepAround(
  tx: Transaction,
  orgId: string,
  userId: string,
  span: { from: string; to: string },
): Promise<DealSnapshot[]> {
  const rows = await tx.query<DealSnapshotRow>(
    named('earnings_deals_of_rep_around', {
      text: `(SELECT ${DEAL_SNAPSHOT_COLUMNS} FROM deals
              WHERE org_id = $1 AND user_id = $2 AND close_date BETWEEN $3::date AND $4::date)
             UNION ALL
             (SELECT ${DEAL_SNAPSHOT_COLUMNS} FROM deals
              WHERE org_id = $1 AND user_id = $2 AND close_date IS NULL)
             UNION ALL
             (SELECT ${DEAL_SNAPSHOT_COLUMNS} FROM deals
              WHERE org_id = $1 AND ${CREDITS_REP} AND user_id IS DISTINCT FROM $2)`,
      values: [orgId, userId, span.from, span.to],
    }),
  );
  return rows
    .filter((row) => row.close_date === null || (row.close_date >= span.from && row.close_date <= span.to))
    .map(toDealSnapshot);
}

/** Every deal the rep owns, and every split deal of others that credits it. */
export async function dealsOfRep(tx: Transaction, orgId: string, userId: string): Promise<DealSnapshot[]> {
  const rows = await tx.query<DealSnapshotRow>(
    named('earnings_deals_of_rep', {
      text: `SELECT ${DEAL_SNAPSHOT_COLUMNS} FROM deals WHERE org_id = $1 AND user_id = $2
             UNION ALL
             SELECT ${DEAL_SNAPSHOT_COLUMNS} FROM deals
             WHERE org_id = $1 AND ${CREDITS_REP} AND user_id IS DISTINCT FROM $2`,
      values: [orgId, userId],
    }),
  );
  return rows.map(toDealSnapshot);
}

export async function dealsByIds(tx: Transaction, orgId: string, dealIds: readonly string[]): Promise<DealSnapshot[]> {
  if (dealIds.length === 0) return [];
  const rows = await tx.query<DealSnapshotRow>(
    named('earnings_deals_by_ids', {
      text: `SELECT ${DEAL_SNAPSHOT_COLUMNS} FROM deals WHERE org_id = $1 AND id = ANY($2::text[])`,
      values: [orgId, dealIds],
    }),
  );
  return rows.map(toDealSnapshot);
}
