import { type LedgerRow, lockPeriod, markPeriodPaid, reopenPeriod } from '../../domain/earnings/ledger.ts';
import * as earningsByPeriod from '../../repositories/earningsByPeriod.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import type { PeriodStatusChange } from '../periodChanges.ts';
import { EarningAnnouncements } from './announcements.ts';

/** The period is locked (FOR UPDATE) and now `locked`: its pending rows become approved, amounts frozen. */
export function approvePendingRows(tx: Transaction, change: PeriodStatusChange): Promise<void> {
  return movePeriodRows(tx, change, 'pending', change.period.locked_at, (rows) =>
    lockPeriod(change.period.id, 'open', rows),
  );
}

/** The period is locked (FOR UPDATE) and now `paid`: its approved rows become paid. */
export function payApprovedRows(tx: Transaction, change: PeriodStatusChange): Promise<void> {
  return movePeriodRows(tx, change, 'approved', change.period.paid_at, (rows) =>
    markPeriodPaid(change.period.id, 'locked', rows),
  );
}

/** The period is locked (FOR UPDATE) and now `open` again: its approved rows become pending. */
export function reopenApprovedRows(tx: Transaction, change: PeriodStatusChange): Promise<void> {
  return movePeriodRows(tx, change, 'approved', change.period.reopened_at, (rows) =>
    reopenPeriod(change.period.id, 'locked', rows),
  );
}

async function movePeriodRows(
  tx: Transaction,
  change: PeriodStatusChange,
  from: 'pending' | 'approved',
  /** The period's own time of this change (locked_at, paid_at, reopened_at): the rows' status_changed_at. */
  at: Date | null,
  decide: (rows: LedgerRow[]) => ReturnType<typeof lockPeriod>,
): Promise<void> {
  const rows = await earningsByPeriod.rowsOfPeriodWithStatus(tx, change.orgId, change.period.id, from);
  const transition = decide(rows);
  if (!transition.ok) throw new Error(transition.reason);
  const to = transition.changes[0]?.to;
  if (to === undefined) return;
  const moved = await earningsByPeriod.moveRowsOfPeriod(
    tx,
    change.orgId,
    change.period.id,
    transition.changes.map((row) => row.id),
    { from, to, at: at ?? new Date() },
  );
  await new EarningAnnouncements(tx, change.orgId).statusChanged(moved, () => from);
}
