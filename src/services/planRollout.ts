import type { Database } from '../db/prisma.ts';
import { limitsOf, type PlanLimits, type PlanRecord } from '../repositories/plans.ts';
import { type AdminActor, CLI_ACTOR } from './adminAudit.ts';
import { EarningsEngine } from './earnings/engine.ts';
import type { RecomputeSummary } from './earnings/recompute.ts';
import { type ApplyPlanInput, type ApplyPlanResult, PlanAdmin, PlanHistory } from './plans.ts';

/**
 * How a plan change's recompute runs: on whose pool, how many reps at once, with what progress report. The
 * admin API recomputes on its server's pool; `quotient plans` on a pool of its own, with a bar on a terminal.
 */
export type RecomputeRunner = (
  engine: EarningsEngine,
  orgId: string,
  planIds: readonly string[],
) => Promise<RecomputeSummary>;

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
 * Changing a plan as the console and `quotient plans` do: the change commits with its audit entry, then the
 * earnings of the plans it touched are recomputed in open periods, one transaction per rep (see
 * EarningsEngine.recompute). If the recompute fails, the plan change stands and the error says how to finish.
 */
export class PlanRollout {
  readonly #db: Database;
  readonly #recompute: RecomputeRunner;
  readonly #actor: AdminActor;

  constructor(db: Database, recompute: RecomputeRunner, actor: AdminActor = CLI_ACTOR) {
    this.#db = db;
    this.#recompute = recompute;
    this.#actor = actor;
  }

  async apply(input: ApplyPlanInput): Promise<RolledOutApply> {
    const engine = new EarningsEngine(this.#db);
    const applied = await new PlanAdmin(this.#db, engine, this.#actor).apply(input);
    return { ...applied, recompute: await this.#recomputeNoted(engine) };
  }

  /** Archives the plan; its projected rows are reversed by the recompute that follows. */
  async archive(orgId: string, planId: string): Promise<RolledOutArchive> {
    const engine = new EarningsEngine(this.#db);
    const archived = await new PlanAdmin(this.#db, engine, this.#actor).archive(orgId, planId);
    const recompute = await this.#recomputeNoted(engine);
    const history = await new PlanHistory(this.#db).of(orgId, planId);
    const current = history?.versions.find((version) => version.id === archived.plan.current_version_id);
    return {
      ...archived,
      current_version: current?.number ?? 1,
      current_limits: limitsOf(current?.definition ?? {}),
      recompute,
    };
  }

  async #recomputeNoted(engine: EarningsEngine): Promise<RecomputeSummary | null> {
    const noted = engine.takeNotedPlanChanges();
    const [first] = noted;
    if (!first) return null;
    const planIds = noted.map((change) => change.planId);
    try {
      return await this.#recompute(engine, first.orgId, planIds);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `the plan change is saved, but recomputing its earnings failed (${reason}); finish it with ` +
          `quotient recompute --org ${first.orgId}${planIds.length === 1 ? ` --plan ${planIds[0]}` : ''}`,
      );
    }
  }
}
