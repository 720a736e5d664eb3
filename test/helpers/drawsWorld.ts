import assert from 'node:assert/strict';
import { advanceDrawTarget, planDrawTargets } from '../../src/domain/earnings/advanceDraws.ts';
import { assignmentWindows, windowsOverlapPeriod } from '../../src/domain/earnings/assignments.ts';
import { dealPeriodId } from '../../src/domain/earnings/dealPeriods.ts';
import {
  DRAW_CHIP_KEY,
  DRAW_RECOVERY_CHIP_KEY,
  drawChipId,
  earnedByPeriod,
  readPlanDraw,
} from '../../src/domain/earnings/draws.ts';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { DealSnapshot, LineTarget, Rep } from '../../src/domain/earnings/types.ts';
import { nextPeriodId, type PeriodId } from '../../src/domain/periods.ts';
import { EarningsWorld } from './earningsLedger.ts';

// The EarningsWorld with a plan's draw settled the way src/services/earnings/draws.ts settles it: at a period's
// lock for every rep, and after a change to a locked period's deals, from that period through every locked
// period after it, the balance before it read off the ledger. A draw paid in advance also books, at a period's
// lock, the advance of the period after it when that one is open.

export class DrawsWorld extends EarningsWorld {
  /** Locked or paid periods, in order: those whose draws are settled. */
  settled(): PeriodId[] {
    return [...this.ledger.periods]
      .filter(([, status]) => status !== 'open')
      .map(([periodId]) => periodId)
      .sort();
  }

  /** The draw lines of a rep from `from` over `periods`, as the service derives them. */
  drawTargetsFrom(rep: Rep, from: PeriodId, periods: readonly PeriodId[], opening?: bigint): LineTarget[] {
    const { draw } = readPlanDraw(this.plan);
    assert.ok(draw, 'the plan has a draw');
    const chosen = periods.filter((periodId) => periodId >= from);
    if (chosen.length === 0) return [];
    const deals = [...this.deals.values()].filter((deal) =>
      chosen.includes(dealPeriodId(deal, this.plan.period, this.today)),
    );
    const chips = evaluateLines({ plan: this.plan, rep, deals, periods: chosen, today: this.today }).targets;
    return planDrawTargets(
      this.plan,
      rep,
      draw,
      earnedByPeriod(chips, chosen),
      opening ?? this.balanceBefore(rep, from),
    );
  }

  /** The recoverable balance before `periodId`, from the standing rows of the draw lines of earlier settled periods. */
  balanceBefore(rep: Rep, periodId: PeriodId): bigint {
    const settled = this.settled();
    const advance = drawChipId(this.plan.plan_id, DRAW_CHIP_KEY);
    const recovery = drawChipId(this.plan.plan_id, DRAW_RECOVERY_CHIP_KEY);
    return this.ledger.rows
      .filter(
        (row) =>
          ['pending', 'approved', 'paid'].includes(row.status) &&
          row.trace.period.id < periodId &&
          settled.includes(row.trace.period.id) &&
          row.line_key.includes(rep.user_id) &&
          (row.trace.chip.id === recovery || row.trace.chip.id === advance) &&
          row.trace.chip.definition.recoverable === true,
      )
      .reduce((sum, row) => sum + BigInt(row.amount_cents), 0n);
  }

  override change(after: DealSnapshot): void {
    const before = this.deals.get(after.id) ?? null;
    super.change(after);
    const settled = this.settled();
    const touched = [before, after]
      .flatMap((deal) => (deal === null ? [] : [dealPeriodId(deal, this.plan.period, this.today)]))
      .filter((periodId) => settled.includes(periodId))
      .sort();
    const from = touched[0];
    if (from === undefined) return;
    for (const rep of this.reps) this.ledger.apply(this.drawTargetsFrom(rep, from, settled));
  }

  /** Settles the period's draws for every rep, then locks it; a period locked already changes nothing. */
  lock(periodId: PeriodId): void {
    if ((this.ledger.periods.get(periodId) ?? 'open') !== 'open') return;
    const settled = [...this.settled(), periodId].sort();
    for (const rep of this.reps) this.ledger.apply(this.drawTargetsFrom(rep, periodId, settled));
    this.ledger.apply(this.nextAdvances(periodId));
    this.ledger.lock(periodId);
  }

  /** Paid in advance: the advance lines of the period after `periodId`, when it is open. */
  nextAdvances(periodId: PeriodId): LineTarget[] {
    const { draw } = readPlanDraw(this.plan);
    const next = nextPeriodId(periodId);
    if (!draw?.in_advance || (this.ledger.periods.get(next) ?? 'open') !== 'open') return [];
    return this.reps
      .filter((rep) => windowsOverlapPeriod(assignmentWindows(this.plan, rep.external_id), next))
      .map((rep) => advanceDrawTarget(this.plan, rep, draw, next));
  }

  /** Every draw line of every rep, from scratch over every settled period, from a balance of 0. */
  everyDrawTarget(): LineTarget[] {
    const settled = this.settled();
    const first = settled[0];
    if (first === undefined) return [];
    return [
      ...this.reps.flatMap((rep) => this.drawTargetsFrom(rep, first, settled, 0n)),
      ...settled.flatMap((periodId) => this.nextAdvances(periodId)),
    ];
  }

  /** What the rep is paid in a period: the standing rows booked in it. */
  payable(rep: Rep, periodId: PeriodId): number {
    return this.ledger.rows
      .filter(
        (row) =>
          row.period_id === periodId &&
          row.line_key.includes(rep.user_id) &&
          ['pending', 'approved', 'paid'].includes(row.status),
      )
      .reduce((sum, row) => sum + row.amount_cents, 0);
  }
}
