import { sql, type Transaction } from './transaction.ts';

// Which plans an evaluation runs, read in plain SQL inside the evaluating transaction (the plans themselves are
// written by the plans repository).

/** A plan's state as an evaluation reads it: which version is in force, if it is active. */
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
