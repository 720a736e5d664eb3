import { REP_LOCK_CLASS } from './evaluationLocks.ts';
import { named, sql, type Transaction } from './transaction.ts';

// Which plans an evaluation runs, read in plain SQL inside the evaluating transaction (the plans themselves are
// written by PlanRepository).

/** A plan's state as an evaluation reads it: which version is in force, if it is active. */
export interface PlanState {
  plan_id: string;
  status: 'active' | 'archived';
  version_id: string;
}

export class PlanStateRepository {
  /**
   * The org's active plans with the version in force, oldest plan first (what an evaluation runs), and whether
   * the org has any webhook endpoint at all (without one, nothing needs announcing). When there is an active
   * plan, the same statement takes the reps' evaluation locks (lockRepsForEvaluation), in the order given; an
   * org without plans locks nothing. Reading the plans before the locks is safe because a recompute first waits
   * for every deal event already in progress (waitForDealWritersBefore).
   */
  async plansInForceLockingReps(
    tx: Transaction,
    orgId: string,
    userIds: readonly string[],
  ): Promise<{ plans: PlanState[]; hasWebhookEndpoints: boolean }> {
    const rows = await tx.query<PlanState & { has_webhook_endpoints: boolean }>(
      named('earnings_plans_in_force_locking_reps', {
        text: `WITH active AS (
                 SELECT id AS plan_id, status, current_version_id AS version_id, created_at FROM plans
                 WHERE org_id = $1 AND status = 'active' AND current_version_id IS NOT NULL
               ), locked AS (
                 SELECT pg_advisory_xact_lock($2::int, hashtext($1 || '/' || rep.user_id))::text AS locked
                 FROM unnest($3::text[]) AS rep(user_id)
                 WHERE EXISTS (SELECT 1 FROM active)
               )
               SELECT a.plan_id, a.status, a.version_id, (SELECT count(*) FROM locked) AS reps_locked,
                      EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.org_id = $1) AS has_webhook_endpoints
               FROM active a ORDER BY a.created_at, a.plan_id`,
        values: [orgId, REP_LOCK_CLASS, [...new Set(userIds)].sort()],
      }),
    );
    return {
      plans: rows.map(({ plan_id, status, version_id }) => ({ plan_id, status, version_id })),
      hasWebhookEndpoints: rows[0]?.has_webhook_endpoints ?? false,
    };
  }

  /** The org's plans (all, or those named), active or archived, oldest first. */
  async planStates(tx: Transaction, orgId: string, planIds?: readonly string[]): Promise<PlanState[]> {
    const statement = planIds
      ? sql`SELECT id AS plan_id, status, current_version_id AS version_id FROM plans
            WHERE org_id = ${orgId} AND id = ANY(${[...planIds]}::text[]) AND current_version_id IS NOT NULL
            ORDER BY created_at, id`
      : sql`SELECT id AS plan_id, status, current_version_id AS version_id FROM plans
            WHERE org_id = ${orgId} AND current_version_id IS NOT NULL ORDER BY created_at, id`;
    return tx.query<PlanState>(statement);
  }
}
