import assert from 'node:assert/strict';
import { repsReadBy, scopeOfDealChange } from '../../src/domain/earnings/changeScope.ts';
import { creditedReps } from '../../src/domain/earnings/credit.ts';
import { dealPeriodMoved } from '../../src/domain/earnings/dealPeriods.ts';
import { EMPTY_HIERARCHY, type RepHierarchy } from '../../src/domain/earnings/hierarchy.ts';
import {
  type LedgerRow,
  lockPeriod,
  markPeriodPaid,
  type PeriodTransition,
  reconcileLine,
} from '../../src/domain/earnings/ledger.ts';
import { parseLineKey } from '../../src/domain/earnings/lineKeys.ts';
import { quotaMovesFrom } from '../../src/domain/earnings/planYear.ts';
import { chipReadsQuota } from '../../src/domain/earnings/proration.ts';
import type { RepQuotas } from '../../src/domain/earnings/quotas.ts';
import { evaluateScope } from '../../src/domain/earnings/scopeEvaluation.ts';
import { type EvaluationRequest, evaluateLines } from '../../src/domain/earnings/targets.ts';
import type {
  DealSnapshot,
  EarningTrace,
  EnginePlanVersion,
  LineTarget,
  PeriodStatus,
  Rep,
} from '../../src/domain/earnings/types.ts';
import { type PeriodId, periodBounds } from '../../src/domain/periods.ts';
import { testId } from '../factories/earnings.ts';
import { assertValidTrace } from './earningTraceSchema.ts';

// An in-memory stand-in for the earnings table and the deal projection, driving the pure engine the
// way the ingestion transaction will: evaluate the lines a change can affect, reconcile each line,
// apply the changes. Every row it writes has its trace checked against the contract.

export interface StoredRow extends LedgerRow {
  line_key: string;
  supersedes_id: string | null;
  trace: EarningTrace;
}

export class InMemoryLedger {
  readonly rows: StoredRow[] = [];
  readonly periods = new Map<PeriodId, PeriodStatus>();
  #written = 0;

  rowsOf(lineKey: string): StoredRow[] {
    return this.rows.filter((row) => row.line_key === lineKey);
  }

  live(): StoredRow[] {
    return this.rows.filter((row) => row.status === 'pending' || row.status === 'projected');
  }

  apply(targets: readonly LineTarget[]): void {
    for (const target of targets) {
      const changes = reconcileLine(target, this.rowsOf(target.line.line_key), this.periods);
      for (const retirement of changes.retire) {
        const row = this.rows.find((candidate) => candidate.id === retirement.id);
        assert.ok(row && (row.status === 'pending' || row.status === 'projected'), 'only live rows are retired');
        row.status = retirement.status;
      }
      for (const write of changes.write) {
        assertValidTrace(write.trace);
        if (write.status === 'pending') assert.equal(this.periods.get(write.period_id) ?? 'open', 'open');
        this.#written += 1;
        this.rows.push({ id: testId('earn', this.#written), line_key: target.line.line_key, ...write });
      }
    }
  }

  #transition(periodId: PeriodId, transition: PeriodTransition): void {
    assert.ok(transition.ok, transition.ok ? '' : transition.reason);
    this.periods.set(periodId, transition.period_status);
    for (const change of transition.changes) {
      const row = this.rows.find((candidate) => candidate.id === change.id);
      assert.ok(row && row.status === change.from);
      row.status = change.to;
    }
  }

  lock(periodId: PeriodId): void {
    this.#transition(periodId, lockPeriod(periodId, this.periods.get(periodId) ?? 'open', this.rows));
  }

  markPaid(periodId: PeriodId): void {
    this.#transition(periodId, markPeriodPaid(periodId, this.periods.get(periodId) ?? 'open', this.rows));
  }
}

/** The deal projection plus the ledger, updated the way an ingested event updates them. */
export class EarningsWorld {
  readonly ledger = new InMemoryLedger();
  readonly deals = new Map<string, DealSnapshot>();

  readonly plan: EnginePlanVersion;
  readonly reps: readonly Rep[];
  readonly today: string;
  /** The org's default currency and exchange rates; absent, every deal is in the plan's currency. */
  money: EvaluationRequest['money'];
  /** The rep hierarchy that override chips read; see changeHierarchy. */
  hierarchy: RepHierarchy;
  /** The reps' quota tables under the plan and start dates (by user id); see changeQuotas. */
  quotas = new Map<string, RepQuotas>();

  constructor(plan: EnginePlanVersion, reps: readonly Rep[], today: string, hierarchy = EMPTY_HIERARCHY) {
    this.plan = plan;
    this.reps = reps;
    this.today = today;
    this.hierarchy = hierarchy;
  }

  /** Applies a deal's new state, evaluating only the lines `scopeOfDealChange` names. */
  change(after: DealSnapshot): void {
    const before = this.deals.get(after.id) ?? null;
    this.deals.set(after.id, after);
    // As the ingestion does: reps with standing rows of the deal that it no longer credits, when its period moved.
    const former = dealPeriodMoved(before, after, this.today) ? this.#repsWithRowsOf(after.id) : [];
    for (const scope of scopeOfDealChange(this.plan, before, after, this.today, former, this.hierarchy)) {
      const rep = this.reps.find((candidate) => candidate.external_id === scope.rep_external_id);
      if (!rep) continue;
      const read = repsReadBy(this.plan, rep.external_id, this.hierarchy);
      const evaluation = evaluateScope({
        plan: this.plan,
        rep,
        scope,
        changed: after,
        deals: [...this.deals.values()].filter((deal) => creditedReps(deal).some((credited) => read.has(credited))),
        today: this.today,
        ...(this.money ? { money: this.money } : {}),
        hierarchy: this.hierarchy,
        ...this.#quotasOf(rep),
      });
      assert.deepEqual(evaluation.problems, []);
      this.ledger.apply(evaluation.targets);
    }
  }

  /**
   * A change of a rep's quota table or start date, as the quota admin books it (planRecompute's quotaChange): every
   * line of the rep evaluated over every deal and the given periods, booked when its period is open, its deal open,
   * it still has a live row, or it reads the quota in a period that ends on or after `from` (in a locked or paid
   * period, the ledger books the difference in the next open one).
   */
  changeQuotas(rep: Rep, quotas: RepQuotas, from: string, periods: readonly PeriodId[]): void {
    this.quotas.set(rep.user_id, quotas);
    const readsQuota = new Set(this.plan.chips.filter(chipReadsQuota).map((chip) => chip.id));
    const isOpen = (periodId: string) => (this.ledger.periods.get(periodId) ?? 'open') === 'open';
    const live = new Set(this.ledger.live().map((row) => row.line_key));
    const evaluation = evaluateLines({
      plan: this.plan,
      rep,
      deals: [...this.deals.values()],
      periods,
      today: this.today,
      ...(this.money ? { money: this.money } : {}),
      hierarchy: this.hierarchy,
      quotas,
    });
    assert.deepEqual(evaluation.problems, []);
    this.ledger.apply(
      evaluation.targets.filter(
        (target) =>
          isOpen(target.period_id) ||
          target.trace.deal?.status === 'open' ||
          live.has(target.line.line_key) ||
          (readsQuota.has(target.line.chip_id) &&
            periodBounds(target.period_id).ends_on >= quotaMovesFrom(this.plan, from)),
      ),
    );
  }

  #quotasOf(rep: Rep): { quotas?: RepQuotas } {
    const quotas = this.quotas.get(rep.user_id);
    return quotas ? { quotas } : {};
  }

  /**
   * A change of the rep hierarchy, as the hierarchy admin books it: the reps whose override lines it can move are
   * evaluated over every deal and the given periods (locked ones too: the ledger books the difference in the next
   * open period).
   */
  changeHierarchy(hierarchy: RepHierarchy, moved: Iterable<string>, periods: readonly PeriodId[]): void {
    this.hierarchy = hierarchy;
    for (const externalId of moved) {
      const rep = this.reps.find((candidate) => candidate.external_id === externalId);
      if (!rep) continue;
      const evaluation = evaluateLines({
        plan: this.plan,
        rep,
        deals: [...this.deals.values()],
        periods,
        today: this.today,
        ...(this.money ? { money: this.money } : {}),
        hierarchy,
        ...this.#quotasOf(rep),
      });
      assert.deepEqual(evaluation.problems, []);
      this.ledger.apply(evaluation.targets);
    }
  }

  #repsWithRowsOf(dealId: string): string[] {
    const userIds = new Set(
      this.ledger.rows
        .filter((row) => row.status !== 'superseded' && row.status !== 'reversed')
        .map((row) => parseLineKey(row.line_key))
        .filter((line) => line.deal_id === dealId)
        .map((line) => line.user_id),
    );
    return this.reps.filter((rep) => userIds.has(rep.user_id)).map((rep) => rep.external_id);
  }

  /** Every line of every rep, evaluated from scratch over all deals and the given periods. */
  everyTarget(periods: readonly PeriodId[]): LineTarget[] {
    return this.reps.flatMap(
      (rep) =>
        evaluateLines({
          plan: this.plan,
          rep,
          deals: [...this.deals.values()],
          periods,
          today: this.today,
          ...(this.money ? { money: this.money } : {}),
          hierarchy: this.hierarchy,
          ...this.#quotasOf(rep),
        }).targets,
    );
  }
}
