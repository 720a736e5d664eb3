import { type AdminActor, CLI_ACTOR } from '../audit/adminEntries.ts';
import { limitsOf, type PlanLimits, type PlanRecord } from '../repositories/plans.ts';
import type { Transaction } from '../repositories/transaction.ts';
import type { EarningsRecompute } from './adminRecompute.ts';
import type { RecomputeSummary } from './earnings/planRecompute.ts';
import type { PlanAcceptances } from './planAcceptances.ts';
import type { PlanArchived, PlanChangeListener, PlanVersionApplied } from './planChanges.ts';
import type { ApplyPlanInput, ApplyPlanResult, PlanAdmin, PlanHistory } from './plans.ts';

export type RolledOutApply = ApplyPlanResult & { recompute: RecomputeSummary | null };

export interface RolledOutArchive {
  plan: PlanRecord;
  /** The number of the plan's current version, and the cap and draw it sets. */
  current_version: number;
  current_limits: PlanLimits;
  changed: boolean;
  recompute: RecomputeSummary | null;
}

/**
 * A rollout's plan-change listener: notes, inside the plan's transaction, the plans whose earnings must be
 * recomputed once it has committed (a recompute runs one transaction per rep, too long to hold the plan's).
 */
class PlanChangesToRecompute implements PlanChangeListener {
  readonly #noted: Array<{ orgId: string; planId: string }> = [];

  async onPlanVersionApplied(_tx: Transaction, change: PlanVersionApplied): Promise<void> {
    this.#note(change);
  }

  async onPlanArchived(_tx: Transaction, change: PlanArchived): Promise<void> {
    this.#note(change);
  }

  /** The org and the plans noted, each once; null when nothing changed. */
  noted(): { orgId: string; planIds: string[] } | null {
    const [first] = this.#noted;
    return first ? { orgId: first.orgId, planIds: this.#noted.map((change) => change.planId) } : null;
  }

  #note(change: { orgId: string; planId: string }): void {
    if (!this.#noted.some((noted) => noted.orgId === change.orgId && noted.planId === change.planId)) {
      this.#noted.push({ orgId: change.orgId, planId: change.planId });
    }
  }
}

/**
 * Changing a plan as the console and `quotient plans` do: the change commits with its audit entry, then the
 * earnings of the plans it touched are recomputed in open periods, one transaction per rep (see
 * EarningsEngine.recompute). If the recompute fails, the plan change stands and the error says how to finish.
 */
export class PlanRollout {
  readonly #admin: PlanAdmin;
  readonly #history: PlanHistory;
  readonly #recompute: EarningsRecompute;
  readonly #acceptances: PlanAcceptances | undefined;

  /** With `acceptances`, a new version asks its reps to accept it (docs/plan-acceptance.md), in the apply's transaction. */
  constructor(admin: PlanAdmin, history: PlanHistory, recompute: EarningsRecompute, acceptances?: PlanAcceptances) {
    this.#admin = admin;
    this.#history = history;
    this.#recompute = recompute;
    this.#acceptances = acceptances;
  }

  async apply(input: ApplyPlanInput, actor: AdminActor = CLI_ACTOR): Promise<RolledOutApply> {
    const changes = new PlanChangesToRecompute();
    const listener = this.#acceptances ? both(changes, this.#acceptances.listener(actor)) : changes;
    const applied = await this.#admin.apply(input, listener, actor);
    return { ...applied, recompute: await this.#recomputeNoted(changes) };
  }

  /** Archives the plan; its projected rows are reversed by the recompute that follows. */
  async archive(orgId: string, planId: string, actor: AdminActor = CLI_ACTOR): Promise<RolledOutArchive> {
    const changes = new PlanChangesToRecompute();
    const archived = await this.#admin.archive(orgId, planId, changes, actor);
    const recompute = await this.#recomputeNoted(changes);
    const history = await this.#history.of(orgId, planId);
    const current = history?.versions.find((version) => version.id === archived.plan.current_version_id);
    return {
      ...archived,
      current_version: current?.number ?? 1,
      current_limits: limitsOf(current?.definition ?? {}),
      recompute,
    };
  }

  /** The org's plans, active and archived. */
  list(orgId: string): ReturnType<PlanAdmin['list']> {
    return this.#admin.list(orgId);
  }

  async #recomputeNoted(changes: PlanChangesToRecompute): Promise<RecomputeSummary | null> {
    const noted = changes.noted();
    if (!noted) return null;
    const { orgId, planIds } = noted;
    try {
      return await this.#recompute.run({ orgId, planIds });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `the plan change is saved, but recomputing its earnings failed (${reason}); finish it with ` +
          `quotient recompute --org ${orgId}${planIds.length === 1 ? ` --plan ${planIds[0]}` : ''}`,
      );
    }
  }
}

/** Two plan-change listeners, one after the other, in the same transaction. */
function both(first: PlanChangeListener, second: PlanChangeListener): PlanChangeListener {
  return {
    async onPlanVersionApplied(tx, change) {
      await first.onPlanVersionApplied(tx, change);
      await second.onPlanVersionApplied(tx, change);
    },
    async onPlanArchived(tx, change) {
      await first.onPlanArchived(tx, change);
      await second.onPlanArchived(tx, change);
    },
  };
}
