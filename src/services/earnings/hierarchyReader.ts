import { repsReadBy } from '../../domain/earnings/changeScope.ts';
import { type RepHierarchy, repHierarchyOf } from '../../domain/earnings/hierarchy.ts';
import type { DealSnapshot, EnginePlanVersion, Rep } from '../../domain/earnings/types.ts';
import * as dealSnapshots from '../../repositories/dealSnapshots.ts';
import * as repManagers from '../../repositories/repManagers.ts';
import type { Transaction } from '../../repositories/transaction.ts';

/** The org's rep hierarchy for the engine, and the reps it names by external id (with their user ids). */
export interface OrgHierarchy {
  hierarchy: RepHierarchy;
  reps: Map<string, Rep>;
}

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

/** The rep's deals in the span and, under plans with override chips, those of the rep's reports (see repsReadBy). */
export async function dealsReadBy(
  tx: Transaction,
  orgId: string,
  rep: Rep,
  plans: readonly EnginePlanVersion[],
  org: OrgHierarchy,
  span: { from: string; to: string },
): Promise<DealSnapshot[]> {
  const readFor = new Set(plans.flatMap((plan) => [...repsReadBy(plan, rep.external_id, org.hierarchy)]));
  const userIds = [rep.user_id, ...[...readFor].flatMap((externalId) => org.reps.get(externalId)?.user_id ?? [])];
  // Issued together (and so in the transaction's order, right after whatever the caller issued before this call).
  const read = await Promise.all(
    [...new Set(userIds)].map((userId) => dealSnapshots.dealsOfRepAround(tx, orgId, userId, span)),
  );
  const byId = new Map<string, DealSnapshot>();
  for (const deal of read.flat()) byId.set(deal.id, deal);
  return [...byId.values()];
}
