import { type NewEarningRow, PLAN_ARCHIVED, type RowRetirement } from '../domain/earnings/ledger.ts';
import { compactTrace } from '../domain/earnings/storedTrace.ts';
import type { EarningStatus } from '../domain/earnings/types.ts';
import { type EarningRecord, type RecordRow, toRecord, wireColumnsOf } from './earnings.ts';
import { named, type Transaction } from './transaction.ts';

// The earnings ledger's writes: a line decision's retired and new rows in one round trip, and the reversal of an
// archived plan's projections.

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
  // The statement's start (stable: Citus refuses clock_timestamp() in a write to a distributed table), after the
  // transaction's feed writer slot was taken in an earlier statement.
  return `WITH clock AS (
            SELECT date_trunc('milliseconds', statement_timestamp()) AS at
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
 * and their traces, each in the compact form rows store (domain/earnings/storedTrace.ts), as one text, each trace's JSON in the rows' order, joined by TRACE_SEPARATOR: PostgreSQL parses
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
    traces.push(JSON.stringify(compactTrace(trace)));
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

/**
 * Reverses the rep's projected rows under these (archived) plans, their status changed `at` (the caller's one reading
 * of the clock: a parameter, since Citus refuses clock_timestamp() in an UPDATE of a distributed table); returns them
 * as they are now.
 */
export async function reverseProjectionsOfRep(
  tx: Transaction,
  orgId: string,
  userId: string,
  planIds: readonly string[],
  at: Date,
): Promise<EarningRecord[]> {
  if (planIds.length === 0) return [];
  const rows = await tx.query<RecordRow>(
    named('earnings_reverse_projections_of_rep', {
      text: `WITH moved AS (
               UPDATE earnings SET status = 'reversed', status_reason = $4::jsonb,
                 status_changed_at = $5::timestamptz
               WHERE org_id = $1 AND user_id = $2 AND plan_id = ANY($3::text[]) AND status = 'projected'
               RETURNING *
             )
             SELECT ${wireColumnsOf('$1')} FROM moved e ORDER BY e.id`,
      values: [orgId, userId, planIds, JSON.stringify(PLAN_ARCHIVED), at],
    }),
  );
  return rows.map(toRecord);
}
