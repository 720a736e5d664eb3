import type { RateChange } from '../domain/earnings/rateChange.ts';
import type { TraceReplacement } from '../domain/earnings/types.ts';
import { Refusal } from '../domain/refusal.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import type { EarningsEngine } from './earnings/ledgerKeeper.ts';
import type { AdjustmentChange, QuotaChange, RecomputeProgress, RecomputeSummary } from './earnings/planRecompute.ts';

/**
 * Where recomputes run: the server recomputes on its deals pool, two reps at a time; the CLI on a small pool of
 * its own, with a progress bar on a terminal.
 */
export interface RecomputeCapacity {
  pool: Transactor;
  /** Reps recomputed at once, each in its own transaction on its own connection. */
  concurrency: number;
  /** A progress report for one run, or none. */
  progress?: () => RecomputeProgressReport | undefined;
}

export interface RecomputeProgressReport {
  update(progress: RecomputeProgress): void;
  /** The run ended, done or failed. */
  done(): void;
}

export interface RecomputeInput {
  orgId: string;
  /** Only these plans; all of the org's when absent. A plan the org does not have is `not_found`. */
  planIds?: readonly string[];
  /** Why rows are replaced, in their traces: see RecomputeRequest. */
  reason?: TraceReplacement;
  /** Only the override lines of these reps (user ids), in locked periods too: see RecomputeRequest. */
  hierarchyChange?: { userIds: readonly string[] };
  /** An exchange rate that was set: the lines it moves, in locked periods too: see RecomputeRequest. */
  rateChange?: RateChange;
  /** Reps' quotas or start dates that changed: their quota-reading lines, in locked periods too: see RecomputeRequest. */
  quotaChange?: QuotaChange;
  /** Adjustments counting toward attainment added or voided: their reps' counting lines there, locked too. */
  adjustmentChange?: AdjustmentChange;
  /** Only these reps (user ids), in open periods: see RecomputeRequest. */
  userIds?: readonly string[];
}

/**
 * Recomputing an org's earnings in open periods, as `quotient recompute` asks for it and as the admin use cases
 * that change what earnings depend on (a plan, an exchange rate, the rep hierarchy) do once their change has
 * committed. Safe to repeat: lines already right are left alone.
 */
export class EarningsRecompute {
  readonly #engine: EarningsEngine;
  readonly #capacity: RecomputeCapacity;

  readonly #statements: Transaction;

  constructor(db: Transactor, engine: EarningsEngine, capacity: RecomputeCapacity) {
    this.#engine = engine;
    this.#capacity = capacity;
    this.#statements = db.statements;
  }

  async run(input: RecomputeInput): Promise<RecomputeSummary> {
    const { orgId, planIds } = input;
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
    const report = this.#capacity.progress?.();
    try {
      const summary = await this.#engine.recompute(this.#capacity.pool, {
        orgId,
        concurrency: this.#capacity.concurrency,
        ...(planIds === undefined ? {} : { planIds }),
        ...(input.reason ? { reason: input.reason } : {}),
        ...(input.hierarchyChange ? { hierarchyChange: input.hierarchyChange } : {}),
        ...(input.rateChange ? { rateChange: input.rateChange } : {}),
        ...(input.quotaChange ? { quotaChange: input.quotaChange } : {}),
        ...(input.adjustmentChange ? { adjustmentChange: input.adjustmentChange } : {}),
        ...(input.userIds ? { userIds: input.userIds } : {}),
        ...(report ? { onProgress: (progress: RecomputeProgress) => report.update(progress) } : {}),
      });
      const missing = (planIds ?? []).filter((planId) => !summary.plan_ids.includes(planId));
      if (missing.length > 0) throw new Refusal('not_found', `org ${orgId} has no plan ${missing.join(', ')}`);
      return summary;
    } finally {
      report?.done();
    }
  }
}
