import type { LeaverRule } from '../domain/earnings/leavers.ts';
import type { Assignee, PeriodKind, PlanDraw } from '../domain/plans/types.ts';
import { sql, type Transaction } from './transaction.ts';

// The plans as the ledger and the statements read them, in plain SQL inside their transactions: the plans' states,
// the draw chips the ledger ensures, and the plans a statement shows.

/** A plan's state as an evaluation reads it (in plain SQL, inside the evaluating transaction): which version is in force, if it is active. */
export interface PlanState {
  plan_id: string;
  status: 'active' | 'archived';
  version_id: string;
}

/** The org's plans (all, or those named), active or archived, oldest first. */
export async function planStates(tx: Transaction, orgId: string, planIds?: readonly string[]): Promise<PlanState[]> {
  const statement = planIds
    ? sql`SELECT id AS plan_id, status, current_version_id AS version_id FROM plans
          WHERE org_id = ${orgId} AND id = ANY(${[...planIds]}::text[]) AND current_version_id IS NOT NULL
          ORDER BY created_at, id`
    : sql`SELECT id AS plan_id, status, current_version_id AS version_id FROM plans
          WHERE org_id = ${orgId} AND current_version_id IS NOT NULL ORDER BY created_at, id`;
  return tx.query<PlanState>(statement);
}

/**
 * Creates the chips a plan's draw lines name, once: they are not chips of the plan file, so no plan
 * version lists them, but every earning row names a chip.
 */
export async function ensureDrawChips(
  tx: Transaction,
  orgId: string,
  planId: string,
  chips: ReadonlyArray<{ id: string; key: string }>,
) {
  for (const chip of chips) {
    await tx.query(
      sql`INSERT INTO chips (id, org_id, plan_id, key) VALUES (${chip.id}, ${orgId}, ${planId}, ${chip.key})
          ON CONFLICT DO NOTHING`,
    );
  }
}

/** A plan as a statement shows it. */
export interface ReportPlan {
  id: string;
  key: string;
  name: string;
  status: 'active' | 'archived';
  period: PeriodKind;
  quota_cents: number | null;
  /** ISO 4217: the plan's currency, else the org's default. */
  currency: string;
  /** `all`, or the assignees of the plan's current version (owner_external_id values or dated assignments). */
  assignees: 'all' | Assignee[];
  /** The current version's draw; null when it has none. */
  draw: PlanDraw | null;
  /** The current version's ramp; null when it has none. */
  ramp: number[] | null;
  /** The current version's leaver rule (leavers.ts); null: the default. */
  leaver_rule: LeaverRule | null;
}

/** The org's plans with their current version's assignees, oldest first, as a statement shows them (plain SQL). */
export async function listForStatements(tx: Transaction, orgId: string): Promise<ReportPlan[]> {
  const rows = await tx.query<Omit<ReportPlan, 'quota_cents'> & { quota_cents: number | bigint | null }>(
    sql`SELECT p.id, p.key, p.name, p.status, p.period, p.quota_cents,
               COALESCE(v.definition -> 'assignees', '"all"'::jsonb) AS assignees,
               v.definition -> 'draw' AS draw, v.definition -> 'ramp' AS ramp,
               v.definition ->> 'leaver_rule' AS leaver_rule,
               COALESCE(v.definition ->> 'currency', o.default_currency) AS currency
        FROM plans p
        JOIN plan_versions v ON v.org_id = p.org_id AND v.id = p.current_version_id
        JOIN orgs o ON o.id = p.org_id
        WHERE p.org_id = ${orgId} ORDER BY p.created_at, p.id`,
  );
  return rows.map((row) => ({
    ...row,
    quota_cents: row.quota_cents === null ? null : Number(row.quota_cents),
    draw: row.draw ?? null,
    ramp: row.ramp ?? null,
    leaver_rule: row.leaver_rule ?? null,
  }));
}
