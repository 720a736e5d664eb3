import { createHash } from 'node:crypto';
import { type AdminActor, adminAuditEntry } from '../audit/adminEntries.ts';
import type { Assignee } from '../domain/plans/types.ts';
import * as audit from '../repositories/audit.ts';
import type { PlanAcceptanceRecord } from '../repositories/planAcceptances.ts';
import * as planAcceptances from '../repositories/planAcceptances.ts';
import * as planSnapshots from '../repositories/planSnapshots.ts';
import * as repQuotas from '../repositories/repQuotas.ts';
import { sql, type Transaction } from '../repositories/transaction.ts';
import { toWirePlanAcceptance } from '../wire/planAcceptances.ts';
import type { PlanVersionApplied } from './planChanges.ts';
import type { PlanDocuments } from './planDocuments.ts';
import { enqueueWebhookEvent } from './webhookOutbox.ts';

// Asking reps to accept a plan version: each assigned rep's own document generated and kept with the request, the
// new-rep document kept with the version, each request audited and announced (`plan.acceptance_requested`).

export function documentSha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Asks the reps the version is assigned to (only those of `newReps`, reps just created, when given), each with their
 * own document; the number asked.
 */
export async function requestAcceptancesOfVersion(
  tx: Transaction,
  planDocuments: PlanDocuments,
  now: () => Date,
  change: Pick<PlanVersionApplied, 'orgId' | 'planId' | 'versionId' | 'versionNumber'>,
  actor: AdminActor,
  newReps?: ReadonlySet<string>,
): Promise<number> {
  const snapshot = await planSnapshots.snapshot(tx, change.orgId, change.planId, change.versionId);
  if (!snapshot) return 0;
  // Each rep is shown their own document: their quota per period and ramp (docs/plan-documents.md). Reps with the
  // same quota table and start date under the plan share one, generated once.
  const documents = new Map<string, { text: string; sha256: string } | null>();
  const documentOf = async (quotas: ReturnType<typeof repQuotas.quotasUnder>) => {
    const key = JSON.stringify(quotas);
    if (!documents.has(key)) {
      const document = await planDocuments.modelIn(tx, change.orgId, change.planId, change.versionId, quotas);
      const text = document === null ? null : JSON.stringify(document);
      documents.set(key, text === null ? null : { text, sha256: documentSha256(text) });
    }
    return documents.get(key) ?? null;
  };
  // The document of a rep with no quota table and no start date, kept with the version: what a rep who comes to
  // be after this apply is asked to accept, in the transaction that creates them (newRepAcceptances.ts).
  if (newReps === undefined) {
    const newRepDocument = await documentOf(repQuotas.quotasUnder(undefined, change.planId));
    if (newRepDocument) await planAcceptances.keepNewRepDocument(tx, change.orgId, change.versionId, newRepDocument);
  }
  const reps = (await assignedReps(tx, change.orgId, snapshot.definition.assignees ?? 'all')).filter(
    (rep) => newReps === undefined || newReps.has(rep.user_id),
  );
  if (reps.length === 0) return 0;
  const books = await repQuotas.booksOfReps(
    tx,
    change.orgId,
    reps.map((rep) => rep.user_id),
  );
  let asked = 0;
  const at = now();
  for (const rep of reps) {
    const kept = await documentOf(repQuotas.quotasUnder(books.get(rep.user_id), change.planId));
    if (!kept) return asked;
    const { text, sha256 } = kept;
    const id = await planAcceptances.insertRequest(tx, change.orgId, {
      userId: rep.user_id,
      planId: change.planId,
      planVersionId: change.versionId,
      planVersion: change.versionNumber,
      document: text,
      documentSha256: sha256,
      at,
    });
    if (!id) continue;
    asked += 1;
    const acceptance = (await planAcceptances.find(tx, change.orgId, id)) as PlanAcceptanceRecord;
    await audit.insertMany(tx, [
      adminAuditEntry(
        change.orgId,
        'plan_acceptance.requested',
        {
          plan_acceptance_id: id,
          user_id: rep.user_id,
          plan_id: change.planId,
          plan_version: change.versionNumber,
          ...(newReps === undefined ? {} : { reason: 'new_rep' }),
        },
        actor,
      ),
    ]);
    await enqueueWebhookEvent(
      tx,
      change.orgId,
      'plan.acceptance_requested',
      { plan_acceptance: toWirePlanAcceptance(acceptance) },
      { timestamp: at },
    );
  }
  return asked;
}

/** The org's reps a version's assignees name: every rep for `all`, else the listed reps that exist. */
async function assignedReps(
  tx: Transaction,
  orgId: string,
  assignees: 'all' | readonly Assignee[],
): Promise<Array<{ user_id: string }>> {
  if (assignees === 'all') {
    return tx.query<{ user_id: string }>(
      sql`SELECT id AS user_id FROM users WHERE org_id = ${orgId} AND role = 'rep' ORDER BY external_id`,
    );
  }
  const externalIds = [
    ...new Set(assignees.map((entry) => (typeof entry === 'string' ? entry : entry.owner_external_id))),
  ];
  return tx.query<{ user_id: string }>(
    sql`SELECT id AS user_id FROM users WHERE org_id = ${orgId} AND role = 'rep'
          AND external_id = ANY(${externalIds}::text[]) ORDER BY external_id`,
  );
}
