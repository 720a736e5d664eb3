import type { CalendarDate } from '../../domain/periods.ts';
import type { Transaction, Transactor } from '../../repositories/transaction.ts';
import type { DealChange, DealChangeListener } from '../dealChanges.ts';
import type { PeriodChangeListener, PeriodStatusChange } from '../periodChanges.ts';
import type { EvaluationContext } from './context.ts';
import { evaluateDealChanges } from './dealEvaluation.ts';
import { settleDrawsOfPeriod } from './draws.ts';
import { EnginePlanVersions } from './engineAdapter.ts';
import { approvePendingRows, payApprovedRows, reopenApprovedRows } from './periodMoves.ts';
import { type RecomputeRequest, type RecomputeSummary, recomputePlans } from './planRecompute.ts';

// The earnings ledger wired to the database (docs/plans-and-earnings.md, Earnings). The pure engine decides
// (src/domain/earnings): which lines a change can affect, each line's target, and how a line's rows must move
// to meet it. This service loads what the engine needs, holds the locks that keep concurrent evaluations
// apart, and writes the rows and their webhooks in one transaction:
//
// - a deal event (the ingestion transaction): exactly the set docs/plans-and-earnings.md ("When lines are
//   evaluated") names and src/domain/earnings/scopeEvaluation.ts computes: the credited reps' lines of the deal,
//   their lines that share a period with it, managers' override lines, the deal's lines on reps it no longer
//   credits, and draw lines;
// - a period lock or payment: the period's draws are settled (draws.ts), then its pending rows become approved,
//   approved ones paid;
// - a plan change: recomputed after it commits in one transaction per rep (`recompute`, which PlanRollout runs),
//   because a plan of 100,000 deals would otherwise hold one transaction for a minute.
//
// Locks, always in this order: the deal row (ingestion) → the rep's evaluation lock → the periods booked into
// or out of, FOR SHARE → earnings rows. A period lock takes its period FOR UPDATE and then only rows of that
// period, which nobody touches without holding the period FOR SHARE, so nothing can wait in a circle.
//
// A deal event reads the plans in force in the statement that takes its reps' locks (an org without plans
// takes none). A plan change that commits meanwhile is not missed: its recompute first waits for every deal
// event in progress, then evaluates each rep under the rep's lock, seeing the new plan and the event's deal.

export interface EarningsOptions {
  /** Today's UTC date: open deals without a close date are projected in its period. */
  today?: () => CalendarDate;
}

function todayUtc(): CalendarDate {
  return new Date().toISOString().slice(0, 10);
}

/**
 * Evaluates earnings lines and keeps the ledger in step with deals, plans and periods. One instance serves a
 * process; it caches plan versions, which never change once written.
 */
export class EarningsEngine implements DealChangeListener, PeriodChangeListener {
  readonly #context: EvaluationContext;

  constructor(options: EarningsOptions = {}) {
    this.#context = { versions: new EnginePlanVersions(), today: options.today ?? todayUtc };
  }

  /**
   * In the ingestion transaction, with the deal row locked: for each active plan, the lines the change can
   * affect for the reps the deal credits before and after, evaluated and booked (see evaluateDealChange).
   */
  onDealChanged(tx: Transaction, change: DealChange): Promise<void> {
    return evaluateDealChanges(tx, [change], this.#context);
  }

  /**
   * The changes of a batch's transaction, evaluated together: each affected rep's lines once, booked once (see
   * evaluateDealChanges). What it leaves is what onDealChanged after each change would have left.
   */
  onDealsChanged(tx: Transaction, changes: readonly DealChange[]): Promise<void> {
    return evaluateDealChanges(tx, changes, this.#context);
  }

  /**
   * An import's deferred evaluation (src/services/pendingEvaluations.ts): as onDealsChanged, but every period in
   * scope is evaluated in full from the deals as they are now, never from the running totals.
   */
  evaluateDeferred(tx: Transaction, changes: readonly DealChange[]): Promise<void> {
    return evaluateDealChanges(tx, changes, this.#context, { inFull: true });
  }

  /** Before a period is locked: the draws of the period are settled (see settleDrawsOfPeriod). */
  beforePeriodLocked(tx: Transaction, change: { orgId: string; periodId: string }): Promise<void> {
    return settleDrawsOfPeriod(tx, change.orgId, change.periodId, this.#context);
  }

  /** The period is locked (FOR UPDATE) and now `locked`: its pending rows become approved, amounts frozen. */
  onPeriodLocked(tx: Transaction, change: PeriodStatusChange): Promise<void> {
    return approvePendingRows(tx, change);
  }

  /** The period is locked (FOR UPDATE) and now `paid`: its approved rows become paid. */
  onPeriodPaid(tx: Transaction, change: PeriodStatusChange): Promise<void> {
    return payApprovedRows(tx, change);
  }

  /** The period is locked (FOR UPDATE) and now `open` again: its approved rows become pending. */
  onPeriodReopened(tx: Transaction, change: PeriodStatusChange): Promise<void> {
    return reopenApprovedRows(tx, change);
  }

  /** Recomputes the plans' lines in open periods, one rep per transaction: see recomputePlans. */
  recompute(pool: Transactor, request: RecomputeRequest): Promise<RecomputeSummary> {
    return recomputePlans(pool, request, this.#context);
  }
}
