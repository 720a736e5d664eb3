import type { LedgerSnapshotRow, WrittenRow } from '../domain/earnings/estimate.ts';
import { type LedgerRow, type NewEarningRow, PLAN_ARCHIVED, type RowRetirement } from '../domain/earnings/ledger.ts';
import type { EarningStatus, EarningTrace, LinePricing, TraceReplacement } from '../domain/earnings/types.ts';
import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import type { PeriodId } from '../domain/periods.ts';
import { named, sql, statementParameters, type Transaction } from './transaction.ts';
import { repExternalIdOf, repIdByExternalId, repRanges } from './users.ts';

// The earnings ledger's rows, read and written only through these intent-named statements, always scoped by
// org. They run on a plain-SQL `Transaction`: the ingestion transaction itself, a recompute transaction of the
// `pg` pool, or a Prisma interactive transaction (period admin, through the period listeners). Values are
// normalised here (bigint columns as numbers, dates as text) so that both drivers return the same shapes. Beside the
// ledger's writes and reads are the API's reads of the rows (listAfter, findWithTrace). The other readers of the
// table have a repository each: statements (statementRows.ts), payouts (payoutSums.ts), the earnings stream
// (earningsStream.ts) and the console's overview, through Prisma (earningsOverview.ts).

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

/** A row to write: the ledger's decision plus what the line says about it. */
export interface NewEarning extends NewEarningRow {
  id: string;
  line_key: string;
  user_id: string;
  deal_id: string | null;
  plan_id: string;
  plan_version_id: string;
  rule_chip_id: string;
  rule_version: string;
  currency: string;
  triggering_domain_event_id: string | null;
}

export interface EarningListFilters {
  userId?: string;
  userExternalId?: string;
  periodId?: string;
  dealId?: string;
  planId?: string;
  statuses?: EarningStatus[];
  createdSince?: Date;
}

const LIVE_OR_LOCKED = `('projected', 'pending', 'approved', 'paid')`;

/** A row `e` as the API lists it, with its rep's external id (`org`: as for repExternalIdOf). */
function wireColumnsOf(org: string): string {
  return `e.id, e.user_id, ${repExternalIdOf(org)} AS user_external_id, e.period_id, e.deal_id, e.plan_id,
  e.plan_version_id, e.rule_chip_id, e.rule_version, e.amount_cents, e.currency, e.pricing, e.status, e.supersedes_id,
  e.status_reason, e.triggering_domain_event_id, e.created_at`;
}

type RecordRow = Omit<EarningRecord, 'amount_cents'> & { amount_cents: number | bigint };

function toRecord(row: RecordRow): EarningRecord {
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

type LineRowData = Omit<LineRow, 'amount_cents'> & { amount_cents: number | bigint };

function toLineRow(row: LineRowData): LineRow {
  return {
    id: row.id,
    line_key: row.line_key,
    status: row.status,
    amount_cents: Number(row.amount_cents),
    period_id: row.period_id,
    pricing: row.pricing,
  };
}

/** Stateless: every method takes the transaction (or `poolStatements`) it runs in and the org. */
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

/** A row retireAndWriteUnlisted moved or wrote: its id and the status it has now. */
export interface RowStatus {
  id: string;
  status: EarningStatus;
}

/**
 * One line decision written in one round trip (ROWS_PER_STATEMENT rows each way at most; more in slices): live rows
 * move to `superseded` or `reversed`, new rows are written (stamped with one clock reading truncated to the
 * millisecond, the precision of `created_at`), and both come back as the API lists them, new rows in the order given.
 * Only rows still live move: the caller compares the count with what it asked for. (The status test names the
 * statuses left out so that the generic plan finds rows by id rather than reading every live row of the org.)
 */
export function retireAndWrite(
  tx: Transaction,
  orgId: string,
  retirements: readonly RowRetirement[],
  earnings: readonly NewEarning[],
): Promise<{ retired: EarningRecord[]; written: EarningRecord[] }> {
  return inSlices(retirements, earnings, (retire, write) =>
    retireAndWriteAtOnce(tx, orgId, retire, write, 'wire', (row: RecordRow) => toRecord(row)),
  );
}

/**
 * retireAndWrite for a caller that announces none of the rows (no webhook endpoint takes them): the same writes,
 * and of each row only its id and status come back.
 */
export function retireAndWriteUnlisted(
  tx: Transaction,
  orgId: string,
  retirements: readonly RowRetirement[],
  earnings: readonly NewEarning[],
): Promise<{ retired: RowStatus[]; written: RowStatus[] }> {
  return inSlices(retirements, earnings, (retire, write) =>
    retireAndWriteAtOnce(tx, orgId, retire, write, 'status', (row: RowStatus) => ({ id: row.id, status: row.status })),
  );
}

/** The rows retired or written by one statement of retireAndWrite, at most (each way). */
export const ROWS_PER_STATEMENT = 2_000;

type Moved<T> = { retired: T[]; written: T[] };

/**
 * A decision in statements of ROWS_PER_STATEMENT rows each way at most, in order: the one text of every trace of a
 * large decision (an import's deferred evaluation of several reps' year) could pass what a string holds
 * (RangeError: Invalid string length). Retired rows come back in id order, written ones in the order given.
 */
async function inSlices<T extends { id: string }>(
  retirements: readonly RowRetirement[],
  earnings: readonly NewEarning[],
  write: (retirements: readonly RowRetirement[], earnings: readonly NewEarning[]) => Promise<Moved<T>>,
): Promise<Moved<T>> {
  if (retirements.length <= ROWS_PER_STATEMENT && earnings.length <= ROWS_PER_STATEMENT) {
    return write(retirements, earnings);
  }
  const retired: T[] = [];
  const written: T[] = [];
  for (let start = 0; start < Math.max(retirements.length, earnings.length); start += ROWS_PER_STATEMENT) {
    const slice = await write(
      retirements.slice(start, start + ROWS_PER_STATEMENT),
      earnings.slice(start, start + ROWS_PER_STATEMENT),
    );
    retired.push(...slice.retired);
    written.push(...slice.written);
  }
  return { retired: retired.sort((a, b) => (a.id < b.id ? -1 : 1)), written };
}

/** The columns of a moved or written row that wireColumnsOf reads (the trace stays behind). */
const MOVED_COLUMNS = `e.id, e.user_id, e.period_id, e.deal_id, e.plan_id, e.plan_version_id, e.rule_chip_id, e.rule_version,
  e.amount_cents, e.currency, e.pricing, e.status, e.supersedes_id, e.status_reason, e.triggering_domain_event_id,
  e.created_at`;

/** retireAndWrite's statement, returning each row as the API lists it (`wire`) or its id and status only. */
function retireAndWriteText(returned: 'wire' | 'status'): string {
  const columns = returned === 'wire' ? MOVED_COLUMNS : 'e.id, e.status';
  const rowsOf = (change: 'retired' | 'written') =>
    returned === 'wire'
      ? `SELECT '${change}' AS change, ${wireColumnsOf('$1')} FROM ${change} e`
      : `SELECT '${change}' AS change, e.id, e.status FROM ${change} e`;
  return `WITH clock AS (
            SELECT date_trunc('milliseconds', clock_timestamp()) AS at
          ), retired AS (
            UPDATE earnings e SET status = r.status, status_changed_at = clock.at, status_reason = r.reason
            FROM clock, jsonb_to_recordset($2::jsonb) AS r(id text, status text, reason jsonb)
            WHERE e.org_id = $1 AND e.id = r.id AND e.status <> ALL('{approved,paid,superseded,reversed}')
            RETURNING ${columns}
          ), written AS (
            INSERT INTO earnings AS e (id, org_id, line_key, user_id, period_id, deal_id, plan_id, plan_version_id,
              rule_chip_id, rule_version, amount_cents, currency, pricing, status, supersedes_id,
              triggering_domain_event_id, trace, created_at, status_changed_at)
            SELECT r.id, $1, r.line_key, r.user_id, r.period_id, r.deal_id, r.plan_id, r.plan_version_id,
              r.rule_chip_id, r.rule_version, r.amount_cents, r.currency, r.pricing, r.status, r.supersedes_id,
              r.triggering_domain_event_id, r.string_to_table::jsonb, clock.at, clock.at
            FROM clock, ROWS FROM (
              jsonb_to_recordset($3::jsonb) AS (id text, line_key text, user_id text, period_id text, deal_id text,
                plan_id text, plan_version_id text, rule_chip_id text, rule_version text, amount_cents bigint,
                currency text, pricing text, status text, supersedes_id text, triggering_domain_event_id text),
              string_to_table($4, chr(30))
            ) AS r
            RETURNING ${columns}
          )
          ${rowsOf('retired')}
          UNION ALL
          ${rowsOf('written')}`;
}

const RETIRE_AND_WRITE = { wire: retireAndWriteText('wire'), status: retireAndWriteText('status') };

/** U+001E (record separator): between the written rows' traces in retireAndWrite's text of traces. */
const TRACE_SEPARATOR = '\u001e';

/**
 * The written rows as retireAndWrite's statement takes them: their columns other than the trace as one JSON document,
 * and their traces as one text, each trace's JSON in the rows' order, joined by TRACE_SEPARATOR: PostgreSQL parses
 * each trace on its own with less CPU than inside one document of every row with its trace, which it would build
 * whole first. The statement zips the two back together by position (ROWS FROM, where the traces' column takes
 * the function's name, string_to_table), so both are built here in one pass over the same rows; counts that differed
 * would leave a row without its trace or a trace without its row, which the columns' NOT NULL refuses. The separator
 * never occurs inside a trace's text: JSON.stringify writes a control character in a string as an escape
 * (`\u001e`), never as itself.
 */
function earningsAndTraces(earnings: readonly NewEarning[]): [columns: string, traces: string] {
  const columns: Omit<NewEarning, 'trace'>[] = [];
  const traces: string[] = [];
  for (const { trace, ...rest } of earnings) {
    columns.push(rest);
    traces.push(JSON.stringify(trace));
  }
  return [JSON.stringify(columns), traces.join(TRACE_SEPARATOR)];
}

async function retireAndWriteAtOnce<Row extends { id: string }, T extends { id: string }>(
  tx: Transaction,
  orgId: string,
  retirements: readonly RowRetirement[],
  earnings: readonly NewEarning[],
  returned: 'wire' | 'status',
  toResult: (row: Row) => T,
): Promise<Moved<T>> {
  if (retirements.length === 0 && earnings.length === 0) return { retired: [], written: [] };
  const rows = await tx.query<Row & { change: 'retired' | 'written' }>(
    named(returned === 'wire' ? 'earnings_retire_and_write' : 'earnings_retire_and_write_unlisted', {
      text: RETIRE_AND_WRITE[returned],
      values: [
        orgId,
        JSON.stringify(retirements.map(({ id, status, reason }) => ({ id, status, reason }))),
        ...earningsAndTraces(earnings),
      ],
    }),
  );
  const written = new Map(rows.filter((row) => row.change === 'written').map((row) => [row.id, toResult(row)]));
  return {
    retired: rows
      .filter((row) => row.change === 'retired')
      .map(toResult)
      .sort((a, b) => (a.id < b.id ? -1 : 1)),
    written: earnings.map((earning) => written.get(earning.id) as T),
  };
}

/** Reverses the rep's projected rows under these (archived) plans; returns them as they are now. */
export async function reverseProjectionsOfRep(
  tx: Transaction,
  orgId: string,
  userId: string,
  planIds: readonly string[],
): Promise<EarningRecord[]> {
  if (planIds.length === 0) return [];
  const rows = await tx.query<RecordRow>(
    named('earnings_reverse_projections_of_rep', {
      text: `WITH moved AS (
               UPDATE earnings SET status = 'reversed', status_reason = $4::jsonb,
                 status_changed_at = date_trunc('milliseconds', clock_timestamp())
               WHERE org_id = $1 AND user_id = $2 AND plan_id = ANY($3::text[]) AND status = 'projected'
               RETURNING *
             )
             SELECT ${wireColumnsOf('$1')} FROM moved e ORDER BY e.id`,
      values: [orgId, userId, planIds, JSON.stringify(PLAN_ARCHIVED)],
    }),
  );
  return rows.map(toRecord);
}

/** The period's rows with this status (the rows a lock or a payment moves). */
export async function rowsOfPeriodWithStatus(
  tx: Transaction,
  orgId: string,
  periodId: PeriodId,
  status: EarningStatus,
): Promise<LedgerRow[]> {
  const rows = await tx.query<LineRowData>(
    sql`SELECT id, line_key, status, amount_cents, period_id FROM earnings
        WHERE org_id = ${orgId} AND period_id = ${periodId} AND status = ${status} ORDER BY created_at, id`,
  );
  return rows.map(toLineRow);
}

/**
 * Moves rows of a period from one status to the next (pending → approved, approved → paid); returns them as
 * they are now.
 */
export async function moveRowsOfPeriod(
  tx: Transaction,
  orgId: string,
  periodId: PeriodId,
  ids: readonly string[],
  change: { from: EarningStatus; to: EarningStatus },
): Promise<EarningRecord[]> {
  if (ids.length === 0) return [];
  const rows = await tx.query<RecordRow>({
    text: `WITH moved AS (
             UPDATE earnings SET status = $5, status_changed_at = date_trunc('milliseconds', clock_timestamp())
             WHERE org_id = $1 AND period_id = $2 AND status = $4 AND id = ANY($3::text[])
             RETURNING *
           )
           SELECT ${wireColumnsOf('$1')} FROM moved e ORDER BY e.created_at, e.id`,
    values: [orgId, periodId, ids, change.from, change.to],
  });
  return rows.map(toRecord);
}

/**
 * What a rep's recoverable draw under a plan has advanced and not yet recovered before `periodId`: the sum of
 * the standing rows of the draw's lines (advances of a recoverable draw, and recoveries) of earlier periods,
 * by the period each line is for, wherever its rows are booked.
 */
export async function drawBalanceBefore(
  tx: Transaction,
  orgId: string,
  userId: string,
  planId: string,
  chipIds: { advance: string; recovery: string },
  periodId: PeriodId,
): Promise<bigint> {
  const rows = await tx.query<{ balance: string }>(
    named('earnings_draw_balance_before', {
      text: `SELECT COALESCE(sum(amount_cents), 0)::text AS balance FROM earnings
             WHERE org_id = $1 AND user_id = $2 AND plan_id = $3 AND status IN ${LIVE_OR_LOCKED}
               AND trace -> 'period' ->> 'id' < $6
               AND (rule_chip_id = $5
                    OR (rule_chip_id = $4 AND trace -> 'chip' -> 'definition' ->> 'recoverable' = 'true'))`,
      values: [orgId, userId, planId, chipIds.advance, chipIds.recovery, periodId],
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

/**
 * Up to `limit` rows after `position` in (created_at, id) order with every filter applied. The text names
 * only the filters given, so that a generic plan still picks a fitting index: each filter has an index that returns
 * its rows in (created_at, id) order (docs/query-plans.md), so a page reads about as many rows as it returns. A rep
 * named by external id is looked up once (the rep index then serves it); several statuses are read one status at a
 * time, each from its own ordered range, and merged (so are a rep token's reps); the reps' external ids are read
 * for the page's rows only.
 */
export async function listAfter(
  tx: Transaction,
  orgId: string,
  filters: EarningListFilters,
  position: KeysetPosition,
  limit: number,
  visibleUserIds: readonly string[] | null = null,
): Promise<EarningRecord[]> {
  const { values, param } = statementParameters();
  const org = param(orgId);
  const where = [`e.org_id = ${org}`];
  // A rep token sees its rep and their reports: without a rep filter, each one's rows are a range of their own,
  // merged like the statuses' (a filter on the whole org's rows would read the org's history to fill a page).
  const byRep = repRanges(visibleUserIds, filters.userId !== undefined || filters.userExternalId !== undefined);
  if (byRep.length === 0) return [];
  if (visibleUserIds !== null && byRep[0] === undefined) {
    where.push(`e.user_id = ANY(${param(visibleUserIds)}::text[])`);
  }
  if (filters.userId !== undefined) where.push(`e.user_id = ${param(filters.userId)}`);
  if (filters.userExternalId !== undefined) {
    where.push(`e.user_id = ${repIdByExternalId(org, param(filters.userExternalId))}`);
  }
  if (filters.periodId !== undefined) where.push(`e.period_id = ${param(filters.periodId)}`);
  if (filters.dealId !== undefined) where.push(`e.deal_id = ${param(filters.dealId)}`);
  if (filters.planId !== undefined) where.push(`e.plan_id = ${param(filters.planId)}`);
  if (filters.createdSince !== undefined) where.push(`e.created_at >= ${param(filters.createdSince)}::timestamptz`);
  if (position) {
    where.push(`(e.created_at, e.id) > (${param(position.at)}::timestamptz, ${param(position.id)})`);
  }
  const statuses = filters.statuses === undefined ? [undefined] : [...new Set(filters.statuses)];
  const max = param(limit);
  const ranges = byRep.flatMap((userId) => {
    const rep = userId === undefined ? [] : [`e.user_id = ${param(userId)}`];
    return statuses.map(
      (status) =>
        `(SELECT e.* FROM earnings e
          WHERE ${[...where, ...rep, ...(status === undefined ? [] : [`e.status = ${param(status)}`])].join(' AND ')}
          ORDER BY e.created_at, e.id LIMIT ${max})`,
    );
  });
  const rows = await tx.query<RecordRow>({
    text: `SELECT ${wireColumnsOf(org)} FROM (${ranges.join(' UNION ALL ')}) e
           ORDER BY e.created_at, e.id LIMIT ${max}`,
    values,
  });
  return rows.map(toRecord);
}

/**
 * One row with its trace; null when the org has no such row, or when it is not of one of `visibleUserIds` (null:
 * any rep's).
 */
export async function findWithTrace(
  tx: Transaction,
  orgId: string,
  id: string,
  visibleUserIds: readonly string[] | null = null,
): Promise<EarningWithTrace | null> {
  const { values, param } = statementParameters(orgId, id);
  const visible = visibleUserIds === null ? '' : ` AND e.user_id = ANY(${param(visibleUserIds)}::text[])`;
  const rows = await tx.query<RecordRow & { trace: EarningTrace }>(
    named(visibleUserIds === null ? 'earnings_find_with_trace' : 'earnings_find_visible_with_trace', {
      text: `SELECT ${wireColumnsOf('$1')}, e.trace FROM earnings e WHERE e.org_id = $1 AND e.id = $2${visible}`,
      values,
    }),
  );
  const row = rows[0];
  return row ? { ...toRecord(row), trace: row.trace } : null;
}

/**
 * The reps whose statement for the period pays something: a pending, approved or paid row, or a manual adjustment
 * (table adjustments). These are the statements an approval policy waits for.
 */
export async function repsPaidInPeriod(tx: Transaction, orgId: string, periodId: string): Promise<string[]> {
  const rows = await tx.query<{ user_id: string }>(
    sql`SELECT user_id FROM earnings WHERE org_id = ${orgId} AND period_id = ${periodId}
          AND status IN ('pending', 'approved', 'paid')
        UNION
        SELECT user_id FROM adjustments WHERE org_id = ${orgId} AND period_id = ${periodId}`,
  );
  return rows.map((row) => row.user_id);
}

/** Rows of the period's earnings in this status (inside a status change, to tell how many it moved). */
export async function countOfPeriodWithStatus(
  tx: Transaction,
  orgId: string,
  periodId: string,
  status: string,
): Promise<number> {
  const rows = await tx.query<{ count: string | number }>(
    sql`SELECT count(*) AS count FROM earnings WHERE org_id = ${orgId} AND period_id = ${periodId} AND status = ${status}`,
  );
  return Number(rows[0]?.count ?? 0);
}

type SnapshotRow = Omit<LedgerSnapshotRow, 'amount_cents'> & { amount_cents: number | bigint };

/** Every row of these reps, whatever its status, with what identifies its line (what an estimate compares). */
export async function snapshotRowsOfReps(
  tx: Transaction,
  orgId: string,
  userIds: readonly string[],
): Promise<LedgerSnapshotRow[]> {
  if (userIds.length === 0) return [];
  const rows = await tx.query<SnapshotRow>({
    text: `SELECT e.id, e.line_key, ${repExternalIdOf('$1')} AS user_external_id, e.plan_id, e.currency,
             e.rule_chip_id, e.deal_id, d.external_id AS deal_external_id, e.status, e.amount_cents
           FROM earnings e
           LEFT JOIN deals d ON d.org_id = e.org_id AND d.id = e.deal_id
           WHERE e.org_id = $1 AND e.user_id = ANY($2::text[])
           ORDER BY e.created_at, e.id`,
    values: [orgId, [...userIds]],
  });
  return rows.map((row) => ({ ...row, amount_cents: Number(row.amount_cents) }));
}

/** These rows in full, with their traces (what an estimate shows of the rows its event wrote). */
export async function writtenRows(tx: Transaction, orgId: string, ids: readonly string[]): Promise<WrittenRow[]> {
  if (ids.length === 0) return [];
  const rows = await tx.query<Omit<WrittenRow, 'amount_cents'> & { amount_cents: number | bigint }>(
    sql`SELECT id, status, period_id, amount_cents, supersedes_id, plan_version_id, rule_version, trace
        FROM earnings WHERE org_id = ${orgId} AND id = ANY(${[...ids]}::text[]) ORDER BY created_at, id`,
  );
  return rows.map((row) => ({ ...row, amount_cents: Number(row.amount_cents) }));
}
