import { type AdminActor, adminAuditEntry } from '../audit/adminEntries.ts';
import { newId } from '../lib/ids.ts';
import type { AuditEntryInput } from '../repositories/audit.ts';
import * as audit from '../repositories/audit.ts';
import type { PlanAcceptanceRecord } from '../repositories/planAcceptances.ts';
import * as planAcceptances from '../repositories/planAcceptances.ts';
import type { Transaction } from '../repositories/transaction.ts';
import * as webhookEndpoints from '../repositories/webhookEndpoints.ts';
import { toWirePlanAcceptance } from '../wire/planAcceptances.ts';
import { enqueueWebhookEvent } from './webhookOutbox.ts';

// A rep who comes to be after a plan version was applied is asked to accept it (docs/plan-acceptance.md, "When a
// rep is asked"): in the transaction that creates the rep (their first deal event, a batch, an import, a manager
// set for them), by plain SQL, so on either driver's transaction. It runs only when a statement actually created a
// user: an existing rep costs no statement. The document asked is the version's new-rep document, kept when the
// version was applied (a new rep has no quota table and no start date of their own yet).

/** Who the requests are audited as made by: the API key that sent the event, or an admin (an import, the CLI). */
export type NewRepRequester = { keyId: string } | { admin: AdminActor };

/**
 * Asks the reps just created (user ids) to accept the current version of every active plan assigned to them, as
 * applying it would have: one request each, audited (`plan_acceptance.requested`, `reason: new_rep`) and announced
 * (`plan.acceptance_requested`) in the caller's transaction. Idempotent: a request made already is not made again.
 * The requests made.
 */
export async function requestOfNewReps(
  tx: Transaction,
  orgId: string,
  userIds: readonly string[],
  requester: NewRepRequester,
  at: Date = new Date(),
): Promise<PlanAcceptanceRecord[]> {
  if (userIds.length === 0) return [];
  const due = await planAcceptances.newRepRequestsDue(tx, orgId, userIds);
  if (due.length === 0) return [];
  const asked = await planAcceptances.insertNewRepRequests(tx, orgId, due, at);
  if (asked.length === 0) return [];
  await audit.insertMany(
    tx,
    asked.map((acceptance) => auditEntryOf(orgId, acceptance, requester, at)),
  );
  const endpointIds = await webhookEndpoints.subscribedEndpoints(tx, orgId, 'plan.acceptance_requested', null);
  if (endpointIds.length > 0) {
    // One message per request, sent together (the transaction pipelines them).
    await Promise.all(
      asked.map((acceptance) =>
        enqueueWebhookEvent(
          tx,
          orgId,
          'plan.acceptance_requested',
          { plan_acceptance: toWirePlanAcceptance(acceptance) },
          { timestamp: at, endpointIds },
        ),
      ),
    );
  }
  return asked;
}

function auditEntryOf(
  orgId: string,
  acceptance: PlanAcceptanceRecord,
  requester: NewRepRequester,
  at: Date,
): AuditEntryInput {
  const details = {
    plan_acceptance_id: acceptance.id,
    user_id: acceptance.user_id,
    plan_id: acceptance.plan_id,
    plan_version: acceptance.plan_version,
    reason: 'new_rep',
  };
  if ('admin' in requester) return adminAuditEntry(orgId, 'plan_acceptance.requested', details, requester.admin);
  return {
    id: newId('aud'),
    org_id: orgId,
    occurred_at: at,
    actor_type: 'api_key',
    actor: null,
    key_id: requester.keyId,
    action: 'plan_acceptance.requested',
    details,
  };
}
