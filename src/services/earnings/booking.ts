import { DEFAULT_CURRENCY } from '../../domain/currencies.ts';
import { CHIP_REMOVED, type LedgerRow, type RowRetirement, reconcileLine } from '../../domain/earnings/ledger.ts';
import type {
  EarningTrace,
  LineTarget,
  PeriodStatus,
  TraceCause,
  TraceReplacement,
} from '../../domain/earnings/types.ts';
import type { PeriodId } from '../../domain/periods.ts';
import { newId } from '../../lib/ids.ts';
import { countEarningsRows } from '../../lib/operationsMetrics.ts';
import type { LineRow } from '../../repositories/earnings.ts';
import * as earnings from '../../repositories/earnings.ts';
import type { NewEarning, RowStatus } from '../../repositories/earningsWrites.ts';
import * as earningsWrites from '../../repositories/earningsWrites.ts';
import * as periods from '../../repositories/periods.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import { EarningAnnouncements, type KnownEndpoints } from './announcements.ts';

/** What one booking did to the ledger. */
export interface BookingCounts {
  lines_evaluated: number;
  rows_written: number;
  rows_superseded: number;
  rows_reversed: number;
}

export interface Booking {
  orgId: string;
  targets: readonly LineTarget[];
  /** Lines whose live rows no longer apply at all (their chip left the plan): reversed. */
  droppedLines: readonly string[];
  triggeringDomainEventId: string | null;
  /** The deal event being evaluated, named in the traces of the rows written; null for a recompute. */
  cause: TraceCause | null;
  /**
   * Several deal events evaluated together (a batch): the event each target's rows name, in place of
   * `triggeringDomainEventId` and `cause`.
   */
  causeOf?: (target: LineTarget) => { triggeringDomainEventId: string; cause: TraceCause };
  /**
   * For a recompute (no cause): why it replaces rows whose amount moved (a hierarchy change, an exchange rate
   * set); a new plan version when absent.
   */
  recomputedFor?: TraceReplacement;
  /** The org's endpoints for the rows' webhooks (see KnownEndpoints). */
  endpoints: KnownEndpoints;
}

export const NO_COUNTS: BookingCounts = { lines_evaluated: 0, rows_written: 0, rows_superseded: 0, rows_reversed: 0 };

export function addCounts(a: BookingCounts, b: BookingCounts): BookingCounts {
  return {
    lines_evaluated: a.lines_evaluated + b.lines_evaluated,
    rows_written: a.rows_written + b.rows_written,
    rows_superseded: a.rows_superseded + b.rows_superseded,
    rows_reversed: a.rows_reversed + b.rows_reversed,
  };
}

/**
 * The trace as written: with the deal event that caused it; and for a recompute, whose rows have no event, a
 * replacement the ledger could only call an amount change is the doing of what asked for the recompute (a new plan
 * version unless `recomputedFor` says otherwise). A row that replaces none, written by a recompute for a stated
 * reason (a top-up of a locked line after an exchange rate was set, say), ends with that reason's sentence.
 */
function tracedWith(trace: EarningTrace, cause: TraceCause | null, recomputedFor?: TraceReplacement): EarningTrace {
  if (cause) return { ...trace, cause };
  const replaced = trace.superseded;
  if (!replaced?.reason) {
    return recomputedFor ? { ...trace, explanation: [...trace.explanation, recomputedFor.explanation] } : trace;
  }
  return { ...trace, superseded: { ...replaced, reason: causedBy(replaced.reason, cause, recomputedFor) } };
}

const PLAN_VERSION_CHANGED: TraceReplacement = {
  code: 'plan_version_changed',
  explanation: 'The plan changed, and its lines were recomputed.',
};

/**
 * A retired row's reason, as tracedWith gives its successor's: a recompute (no cause) moved the amount because
 * of what asked for it, a new plan version unless `recomputedFor` says otherwise (a hierarchy change).
 */
function causedBy(
  reason: TraceReplacement,
  cause: TraceCause | null,
  recomputedFor: TraceReplacement = PLAN_VERSION_CHANGED,
): TraceReplacement {
  return !cause && reason.code === 'amount_changed' ? recomputedFor : reason;
}

export function isLive(row: LedgerRow): boolean {
  return row.status === 'pending' || row.status === 'projected';
}

/**
 * Brings each target's line to its target (reconcileLine) and reverses the live rows of dropped lines. The
 * periods rows are booked into or moved out of are held FOR SHARE before the rows are read, so a concurrent
 * lock or payment of one of them happens wholly before or wholly after this booking; when the decision
 * names a period not held yet (a clawback into the next open period), that period is taken too and the
 * decision made again.
 */
export async function book(tx: Transaction, booking: Booking): Promise<BookingCounts> {
  const { orgId, targets, droppedLines } = booking;
  const lineKeys = [...new Set([...targets.map((target) => target.line.line_key), ...droppedLines])];
  if (lineKeys.length === 0) return NO_COUNTS;
  const statuses = new Map<PeriodId, PeriodStatus>();
  const held = new Set<PeriodId>();
  /** Holds the periods; true when it had to create some (which were not held when it was called). */
  const hold = async (periodIds: Iterable<PeriodId>, bookedInto: ReadonlySet<PeriodId>): Promise<boolean> => {
    const fresh = [...new Set(periodIds)].filter((periodId) => !held.has(periodId));
    if (fresh.length === 0) return false;
    const found = await periods.sharePeriods(tx, orgId, fresh);
    const missing = fresh.filter((periodId) => !found.has(periodId) && bookedInto.has(periodId));
    if (missing.length > 0) {
      await periods.ensurePeriods(tx, orgId, missing);
      for (const [periodId, status] of await periods.sharePeriods(tx, orgId, missing)) {
        found.set(periodId, status);
      }
    }
    for (const periodId of fresh) {
      held.add(periodId);
      const status = found.get(periodId);
      if (status) statuses.set(periodId, status);
    }
    return missing.length > 0;
  };
  const likely = new Set(
    targets.filter((target) => target.earned_cents !== 0 || target.projected_cents !== 0).map((t) => t.period_id),
  );
  // The likely periods' share locks and the lines' rows are issued together, in that order (one round trip): the
  // rows are read once the periods are held. When periods had to be created first, the rows are read again after.
  const [created, firstRead] = await Promise.all([
    hold(likely, likely),
    earnings.standingRowsOfLines(tx, orgId, lineKeys),
  ]);
  let readAlready: LineRow[] | null = created ? null : firstRead;

  for (;;) {
    const rows = readAlready ?? (await earnings.standingRowsOfLines(tx, orgId, lineKeys));
    readAlready = null;
    const byLine = new Map<string, LineRow[]>();
    for (const row of rows) byLine.set(row.line_key, [...(byLine.get(row.line_key) ?? []), row]);
    const decisions = targets.map((target) => ({
      target,
      changes: reconcileLine(target, byLine.get(target.line.line_key) ?? [], statuses),
    }));
    const drops: RowRetirement[] = droppedLines.flatMap((lineKey) =>
      (byLine.get(lineKey) ?? [])
        .filter(isLive)
        .map((row) => ({ id: row.id, status: 'reversed' as const, reason: CHIP_REMOVED })),
    );
    const rowsById = new Map(rows.map((row) => [row.id, row]));
    const retire = [...decisions.flatMap((decision) => decision.changes.retire), ...drops].map((retirement) => ({
      ...retirement,
      reason: causedBy(retirement.reason, booking.cause, booking.recomputedFor),
    }));
    const bookedInto = new Set(decisions.flatMap((decision) => decision.changes.write.map((row) => row.period_id)));
    const movedOutOf = retire.flatMap((retirement) => {
      const row = rowsById.get(retirement.id);
      return row?.status === 'pending' ? [row.period_id] : [];
    });
    const needed = [...bookedInto, ...movedOutOf].filter((periodId) => !held.has(periodId));
    if (needed.length > 0) {
      await hold(needed, bookedInto);
      continue;
    }

    const writes = decisions.flatMap(({ target, changes }) => {
      const own = changes.write.length > 0 ? booking.causeOf?.(target) : undefined;
      const triggeringDomainEventId = own ? own.triggeringDomainEventId : booking.triggeringDomainEventId;
      const cause = own ? own.cause : booking.cause;
      return changes.write.map(
        (row): NewEarning => ({
          id: newId('earn'),
          line_key: target.line.line_key,
          user_id: target.line.user_id,
          deal_id: target.line.deal_id,
          plan_id: target.line.plan_id,
          plan_version_id: target.plan_version_id,
          rule_chip_id: target.line.chip_id,
          rule_version: target.rule_version,
          currency: target.currency ?? DEFAULT_CURRENCY,
          triggering_domain_event_id: triggeringDomainEventId,
          ...row,
          trace: tracedWith(row.trace, cause, booking.recomputedFor),
        }),
      );
    });
    // Every row to retire was read live under the rep's lock and its period's share lock: none can have moved.
    const checked = <T extends RowStatus>(moved: { retired: T[]; written: T[] }) => {
      countEarningsRows(moved.written.map((row) => row.status));
      if (moved.retired.length !== retire.length) {
        throw new Error(`earnings of org ${orgId} moved while their lines were locked for evaluation`);
      }
      return moved;
    };
    const announcements = new EarningAnnouncements(tx, orgId, booking.endpoints);
    let moved: { retired: RowStatus[]; written: RowStatus[] };
    // Rows no endpoint hears of come back as their ids and statuses only: nothing more is read of them.
    if (announcements.silent) moved = checked(await earningsWrites.retireAndWriteUnlisted(tx, orgId, retire, writes));
    else {
      const records = checked(await earningsWrites.retireAndWrite(tx, orgId, retire, writes));
      await announcements.statusChanged(records.retired, (earning) => rowsById.get(earning.id)?.status ?? 'pending');
      await announcements.created(records.written);
      moved = records;
    }
    const { retired, written } = moved;
    return {
      lines_evaluated: targets.length,
      rows_written: written.length,
      rows_superseded: retired.filter((row) => row.status === 'superseded').length,
      rows_reversed: retired.filter((row) => row.status === 'reversed').length,
    };
  }
}
