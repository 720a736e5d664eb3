import { CLI_ACTOR } from '../../audit/adminEntries.ts';
import type { DealEvent, DealSplit } from '../../domain/deals/event.ts';
import type { StoredSplit } from '../../repositories/deals.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import * as users from '../../repositories/users.ts';
import type { NewRepRequester } from '../newRepAcceptances.ts';
import type { IngestRequest } from './applyStep.ts';

// Rep resolution: the reps an event names, found by external id or created on first sight.

/** The rep's user id, created on first sight (then pushed to `created`). */
export async function repOf(tx: Transaction, orgId: string, externalId: string, created: string[]): Promise<string> {
  const rep = await users.createOrFindRep(tx, orgId, externalId);
  if (rep.created) created.push(rep.id);
  return rep.id;
}

/**
 * The split's reps with their user ids: those the deal already credits keep theirs, new ones are created on
 * first sight like an owner (in external-id order, so two events naming the same new reps queue, not cross).
 */
export async function splitsWithReps(
  tx: Transaction,
  orgId: string,
  splits: readonly DealSplit[] | null,
  current: readonly StoredSplit[] | null,
  created: string[],
): Promise<StoredSplit[] | null> {
  if (splits === null) return null;
  const known = new Map((current ?? []).map((split) => [split.owner_external_id, split.user_id]));
  for (const owner of splits.map((split) => split.owner_external_id).sort()) {
    if (!known.has(owner)) known.set(owner, await repOf(tx, orgId, owner, created));
  }
  return splits.map(({ owner_external_id, share_bps }) => ({
    owner_external_id,
    share_bps,
    user_id: known.get(owner_external_id) as string,
  }));
}

/** Who a new rep's requests to accept their plans are audited as made by: the event's key, else its admin. */
export function requesterOf(request: IngestRequest): NewRepRequester {
  return request.keyId === null ? { admin: request.actor ?? CLI_ACTOR } : { keyId: request.keyId };
}

/** The reps an event names: its owner and the reps of its splits. */
export function repsNamedBy(event: DealEvent): string[] {
  const owner = event.patch.standard.owner_external_id;
  return [
    ...(owner === undefined || owner === null ? [] : [owner]),
    ...(event.splits ?? []).map((split) => split.owner_external_id),
  ];
}
