import type { LedgerRow } from '../domain/earnings/ledger.ts';
import type { StoredTrace } from '../domain/earnings/storedTrace.ts';
import type { EarningStatus, EarningTrace, LinePricing, TraceReplacement } from '../domain/earnings/types.ts';
import type { PeriodId } from '../domain/periods.ts';
import { named, sql, type Transaction } from './transaction.ts';
import { repExternalIdOf } from './users.ts';

// The earnings ledger's reads (the standing rows it reconciles, a draw's balance, the reps a recompute visits) and
// the row shapes every earnings module shares, always scoped by org. They run on a plain-SQL `Transaction`: the
// ingestion transaction itself, a recompute transaction of the `pg` pool, or a Prisma interactive transaction (period
// admin, through the period listeners). Values are normalised here (bigint columns as numbers, dates as text) so that
// both drivers return the same shapes. The table's other statements have a module each: the ledger's writes
// (earningsWrites.ts), a period's rows as a lock, an approval or a payment moves them (earningsByPeriod.ts), the
// API's list and row (earningsList.ts), an estimate's reads (earningsEstimates.ts), statements (statementRows.ts),
// payouts (payoutSums.ts), the earnings stream (earningsStream.ts) and the console's overview, through Prisma
// (earningsOverview.ts).

/** An earning row as the API lists it (no trace). */
export interface EarningRecord {
  id: string;
  user_id: string;
  user_external_id: string;
  period_id: string;
  deal_id: string | null;
  plan_id: string;
  plan_version_id: string;
  rule_chip_id: string;
  rule_version: string;
  amount_cents: number;
  /** ISO 4217: the plan's currency, which amount_cents is in. */
  currency: string;
  pricing: LinePricing;
  status: EarningStatus;
  supersedes_id: string | null;
  /** Why the row is superseded or reversed; null while it applies (and on rows retired before it was kept). */
  status_reason: TraceReplacement | null;
  triggering_domain_event_id: string | null;
  created_at: Date;
}

export interface EarningWithTrace extends EarningRecord {
  trace: EarningTrace;
}

/** A row with its trace as stored (domain/earnings/storedTrace.ts): what services/earnings/servedTraces.ts serves. */
export interface EarningWithStoredTrace extends EarningRecord {
  trace: StoredTrace;
}

/** A row of a line as the ledger reconciles it. Only standing rows (not superseded or reversed) are read. */
export interface LineRow extends LedgerRow {
  line_key: string;
}

/** A standing row of a rep, with what identifies its line. */
export interface RepRow extends LineRow {
  plan_id: string;
  rule_chip_id: string;
  deal_id: string | null;
  /**
   * The period a period-level line (no deal) was evaluated for (the trace's), which may differ from the period it is
   * booked in; null on a deal's line, whose period follows its deal (not read: it would open every row's trace).
   */
  line_period_id: PeriodId | null;
}

const LIVE_OR_LOCKED = `('projected', 'pending', 'approved', 'paid')`;

/** A row `e` as the API lists it, with its rep's external id (`org`: as for repExternalIdOf). */
export function wireColumnsOf(org: string): string {
  return `e.id, e.user_id, ${repExternalIdOf(org)} AS user_external_id, e.period_id, e.deal_id, e.plan_id,
  e.plan_version_id, e.rule_chip_id, e.rule_version, e.amount_cents, e.currency, e.pricing, e.status, e.supersedes_id,
  e.status_reason, e.triggering_domain_event_id, e.created_at`;
}

export type RecordRow = Omit<EarningRecord, 'amount_cents'> & { amount_cents: number | bigint };

export function toRecord(row: RecordRow): EarningRecord {
  return {
    id: row.id,
    user_id: row.user_id,
    user_external_id: row.user_external_id,
    period_id: row.period_id,
    deal_id: row.deal_id,
    plan_id: row.plan_id,
    plan_version_id: row.plan_version_id,
    rule_chip_id: row.rule_chip_id,
    rule_version: row.rule_version,
    amount_cents: Number(row.amount_cents),
    currency: row.currency,
    pricing: row.pricing,
    status: row.status,
    supersedes_id: row.supersedes_id,
    status_reason: row.status_reason ?? null,
    triggering_domain_event_id: row.triggering_domain_event_id,
    created_at: new Date(row.created_at),
  };
}

/** Creation order: (created_at, id), as the list and the ledger read rows. */
function byCreation(a: { created_at: Date; id: string }, b: { created_at: Date; id: string }): number {
  const difference = new Date(a.created_at).getTime() - new Date(b.created_at).getTime();
  return difference !== 0 ? difference : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export type LineRowData = Omit<LineRow, 'amount_cents'> & { amount_cents: number | bigint };

export function toLineRow(row: LineRowData): LineRow {
  return {
    id: row.id,
    line_key: row.line_key,
    status: row.status,
    amount_cents: Number(row.amount_cents),
    period_id: row.period_id,
    pricing: row.pricing,
  };
}

/**
 * The standing rows (projected, pending, approved, paid) of these lines, each line's in the order they were
 * written: what the ledger reconciles. Superseded and reversed rows no longer count for anything.
 */
export async function standingRowsOfLines(
  tx: Transaction,
  orgId: string,
  lineKeys: readonly string[],
): Promise<LineRow[]> {
  // Only the line_key index can serve this, even for a generic plan made on empty tables: the status is a
  // filter (written as a list of the statuses it keeps, it matched the (org_id, period_id, status) index),
  // and the rows are put in order here (an ORDER BY made the (org_id, created_at, id) index look cheaper).
  if (lineKeys.length === 0) return [];
  const rows = await tx.query<LineRowData & { created_at: Date }>(
    named('earnings_standing_rows_of_lines', {
      text: `SELECT id, line_key, status, amount_cents, period_id, pricing, created_at FROM earnings
             WHERE org_id = $1 AND line_key = ANY($2::text[]) AND status <> ALL('{superseded,reversed}')`,
      values: [orgId, lineKeys],
    }),
  );
  return rows.sort(byCreation).map(toLineRow);
}

/** The rep's standing rows under these plans, in the order they were written. */
export async function standingRowsOfRep(
  tx: Transaction,
  orgId: string,
  userId: string,
  planIds: readonly string[],
): Promise<RepRow[]> {
  const rows = await tx.query<LineRowData & Omit<RepRow, keyof LineRow>>(
    named('earnings_standing_rows_of_rep', {
      text: `SELECT id, line_key, status, amount_cents, period_id, pricing, plan_id, rule_chip_id, deal_id,
                    CASE WHEN deal_id IS NULL THEN trace -> 'period' ->> 'id' END AS line_period_id
             FROM earnings
             WHERE org_id = $1 AND user_id = $2 AND plan_id = ANY($3::text[]) AND status IN ${LIVE_OR_LOCKED}
             ORDER BY created_at, id`,
      values: [orgId, userId, planIds],
    }),
  );
  return rows.map((row) => ({
    ...toLineRow(row),
    plan_id: row.plan_id,
    rule_chip_id: row.rule_chip_id,
    deal_id: row.deal_id,
    line_period_id: row.line_period_id,
  }));
}

/** The reps with standing (live, approved or paid) rows of the deal: whom its lines still date rows for. */
export async function repsWithStandingRowsOfDeal(
  tx: Transaction,
  orgId: string,
  dealId: string,
): Promise<Array<{ user_id: string; external_id: string }>> {
  return tx.query<{ user_id: string; external_id: string }>({
    text: `SELECT DISTINCT e.user_id, ${repExternalIdOf('$1')} AS external_id FROM earnings e
           WHERE e.org_id = $1 AND e.deal_id = $2 AND e.status IN ${LIVE_OR_LOCKED}
           ORDER BY e.user_id`,
    values: [orgId, dealId],
  });
}

/**
 * What a rep's recoverable draw under a plan has advanced and not yet recovered before a period: the sum of the
 * standing rows of a recoverable draw's lines (its advances and recoveries, whether it is paid at the lock or in
 * advance; a draw that is not recoverable carries no balance) of the settled periods before it, `settledBefore`,
 * by the period each line is for, wherever its rows are booked. A period that is still open is left out: a draw paid
 * in advance has booked the advance of an open period, which that period's own settlement repays or carries on, so
 * a later period locked first settles from the balance a full recompute of the settled periods gives.
 */
export async function drawBalanceBefore(
  tx: Transaction,
  orgId: string,
  userId: string,
  planId: string,
  chipIds: { advance: string; recovery: string },
  settledBefore: readonly PeriodId[],
): Promise<bigint> {
  if (settledBefore.length === 0) return 0n;
  const rows = await tx.query<{ balance: string }>(
    named('earnings_draw_balance_before', {
      text: `SELECT COALESCE(sum(amount_cents), 0)::text AS balance FROM earnings
             WHERE org_id = $1 AND user_id = $2 AND plan_id = $3 AND status IN ${LIVE_OR_LOCKED}
               AND trace -> 'period' ->> 'id' = ANY($6::text[])
               AND rule_chip_id IN ($4, $5) AND trace -> 'chip' -> 'definition' ->> 'recoverable' = 'true'`,
      values: [orgId, userId, planId, chipIds.advance, chipIds.recovery, [...settledBefore]],
    }),
  );
  return BigInt(rows[0]?.balance ?? '0');
}

/**
 * The reps a recompute of these plans must visit: every rep who owns a deal or is credited by a split, every
 * manager of the rep hierarchy (override chips), and every rep with a live row under one of the plans (a deal
 * that changed owner, a rep no longer assigned).
 */
export async function repsToRecompute(tx: Transaction, orgId: string, planIds: readonly string[]): Promise<string[]> {
  const rows = await tx.query<{ user_id: string }>(
    sql`SELECT user_id FROM deals WHERE org_id = ${orgId} AND user_id IS NOT NULL
        UNION
        SELECT split.user_id FROM deals d CROSS JOIN jsonb_to_recordset(d.splits) AS split(user_id text)
        WHERE d.org_id = ${orgId} AND d.splits IS NOT NULL
        UNION
        SELECT manager_user_id FROM rep_managers WHERE org_id = ${orgId} AND manager_user_id IS NOT NULL
        UNION
        SELECT user_id FROM earnings
        WHERE org_id = ${orgId} AND plan_id = ANY(${[...planIds]}::text[]) AND status IN ('projected', 'pending')
        ORDER BY user_id`,
  );
  return rows.map((row) => row.user_id);
}
