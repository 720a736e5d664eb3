import { type RepHierarchy, repHierarchyOf } from '../../domain/earnings/hierarchy.ts';
import type { Rep } from '../../domain/earnings/types.ts';
import { RepManagerRepository } from '../../repositories/repManagers.ts';
import type { Transaction } from '../../repositories/transaction.ts';

/** The org's rep hierarchy for the engine, and the reps it names by external id (with their user ids). */
export interface OrgHierarchy {
  hierarchy: RepHierarchy;
  reps: Map<string, Rep>;
}

const repManagers = new RepManagerRepository();

export async function loadHierarchy(tx: Transaction, orgId: string): Promise<OrgHierarchy> {
  const entries = await repManagers.entriesOfOrg(tx, orgId);
  const reps = new Map<string, Rep>();
  for (const entry of entries) {
    reps.set(entry.rep_external_id, { user_id: entry.rep_user_id, external_id: entry.rep_external_id });
    if (entry.manager_user_id !== null && entry.manager_external_id !== null) {
      reps.set(entry.manager_external_id, { user_id: entry.manager_user_id, external_id: entry.manager_external_id });
    }
  }
  return {
    hierarchy: repHierarchyOf(
      entries.map((entry) => ({
        rep_external_id: entry.rep_external_id,
        manager_external_id: entry.manager_external_id,
        from: entry.from,
      })),
    ),
    reps,
  };
}
