import type { Transaction } from '../repositories/transaction.ts';
/** A plan version came into force: a new version was applied, or an archived plan was applied again. */
export interface PlanVersionApplied {
  orgId: string;
  planId: string;
  /** The version now in force. */
  versionId: string;
  versionNumber: number;
  /** The version in force before; null for a new plan. */
  previousVersionId: string | null;
  /** False when an archived plan was re-activated with unchanged content (same version). */
  newVersion: boolean;
  /** The plan was archived before this apply. */
  reactivated: boolean;
  /** Chip ids by what happened to them in this version. */
  chips: { added: string[]; changed: string[]; unchanged: string[]; removed: string[] };
}

/** A plan was archived: it is no longer evaluated. */
export interface PlanArchived {
  orgId: string;
  planId: string;
  /** The version in force when it was archived. */
  versionId: string;
}

/**
 * Called inside the transaction of `plans apply` / `plans archive`, after the plan rows are written and with the
 * plan key locked, only when something changed (never for a no-op). What it writes commits or rolls back with
 * the plan change; if it throws, the command fails and nothing is kept. PlanRollout plugs in here: it notes the
 * plans changed, and once the change has committed recomputes their lines in open periods (an archived plan's
 * projected rows are reversed).
 */
export interface PlanChangeListener {
  onPlanVersionApplied(tx: Transaction, change: PlanVersionApplied): Promise<void>;
  onPlanArchived(tx: Transaction, change: PlanArchived): Promise<void>;
}
