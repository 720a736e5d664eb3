import type { PeriodRecord } from '../repositories/periods.ts';
import type { Transaction } from '../repositories/transaction.ts';

/** A period moved: `open` → `locked`, `locked` → `paid`, or back from `locked` to `open` (reopened). */
export interface PeriodStatusChange {
  orgId: string;
  /** The period as it is now (status, locked_at, paid_at). */
  period: PeriodRecord;
  /** False when `periods lock` created the period (nothing could be booked in it yet). */
  existedBefore: boolean;
  /** A reopening's reason, as the admin gave it. */
  reason?: string;
}

/**
 * Called inside the transaction of `periods lock` / `periods mark-paid`, with the period row locked
 * (`FOR UPDATE`), only when the status changed. What it writes commits or rolls back with the status; if it
 * throws, the command fails and the period keeps its status. The earnings ledger plugs in here: pending rows of
 * the period become approved on `onPeriodLocked`, approved rows become paid on `onPeriodPaid` (and the
 * `period.locked` / `period.paid` webhooks go to the outbox).
 */
export interface PeriodChangeListener {
  /**
   * Called first in the transaction of `periods lock`, before the period row is created or locked, and whether or
   * not it will change: the ledger settles the period's draws here, taking the reps' evaluation locks
   * before any period, as every evaluation does. It must do nothing when the period is not open.
   */
  beforePeriodLocked?(tx: Transaction, change: { orgId: string; periodId: string }): Promise<void>;
  onPeriodLocked(tx: Transaction, change: PeriodStatusChange): Promise<void>;
  onPeriodPaid(tx: Transaction, change: PeriodStatusChange): Promise<void>;
  /** The period was reopened (`locked` → `open`): the ledger returns its approved rows to pending. */
  onPeriodReopened?(tx: Transaction, change: PeriodStatusChange): Promise<void>;
}
