import { applyEvent } from '../../domain/deals/projection.ts';
import { newId } from '../../lib/ids.ts';
import type { DealRecord, StoredSplit } from '../../repositories/deals.ts';
import * as dealsBulk from '../../repositories/dealsBulk.ts';
import * as sourceEvents from '../../repositories/sourceEvents.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import * as users from '../../repositories/users.ts';
import type { DealChange } from '../dealChanges.ts';
import type { OrgConfigCache } from '../orgConfig.ts';
import {
  type AppliedType,
  type ApplySteps,
  appliedEventOf,
  currentOf,
  endOfRun,
  type IngestRequest,
  type IngestResult,
  lockDeal,
  type PreparedEvents,
  replay,
} from './applyStep.ts';
import { repOf, repsNamedBy } from './reps.ts';

/** How many events of an import's batch have their rows written by one statement per table. */
const BULK_RUN_EVENTS = 10_000;

/** An event of a run, ready for dealsBulk.applyEvents. */
interface ToApply {
  index: number;
  event: dealsBulk.BulkAppliedEvent;
  before: DealRecord | null;
  opened: Extract<sourceEvents.RecordedInBulk, { recorded: true }>;
  config: Awaited<ReturnType<OrgConfigCache['at']>>;
}

/**
 * A batch's rows for events sent without a key or a request (an import), in runs of events of different deals and
 * dedup keys (at most BULK_RUN_EVENTS): each run's source events and the locks of the deals the org has in one
 * statement (sourceEvents.recordAndLockDeals), its domain events, the new deals in their final state and the others'
 * new versions in another (dealsBulk.applyEvents), as the apply step would write them one by one. A new deal that
 * another transaction created meanwhile is locked and the event applied to it, as the single event's step would.
 * The reps the events name exist already (ensureRepsOfEvents). Pushes each event's result and returns the changes,
 * in the order applied.
 */
export async function applyInBulk(
  steps: ApplySteps,
  tx: Transaction,
  { requests, dedupKeys, digests, applied }: PreparedEvents,
  results: IngestResult[],
  created: string[],
): Promise<DealChange[]> {
  const first = requests[0] as IngestRequest;
  const orgId = first.orgId;
  const named = [...new Set(requests.flatMap((request) => repsNamedBy(request.event)))];
  const userIds = await users.idsByExternalIds(tx, orgId, named);
  const userOf = async (externalId: string) => {
    const found = userIds.get(externalId);
    if (found) return found;
    const id = await repOf(tx, orgId, externalId, created);
    userIds.set(externalId, id);
    return id;
  };
  /** The event applied to its deal as it is (null: none yet, created as `newDealId`). */
  const prepare = async (
    index: number,
    sourceEventId: string,
    open: ToApply['opened'],
    deal: DealRecord | null,
    newDealId: string,
  ): Promise<ToApply> => {
    const { event } = requests[index] as IngestRequest;
    const owner = event.patch.standard.owner_external_id ?? null;
    const ownerUserId = owner === null ? null : await userOf(owner);
    const before = deal === null || deal.version === 0 ? null : deal;
    const dealId = deal?.id ?? newDealId;
    const config = await steps.configs.at(tx, orgId, open.configVersion);
    const transition = applyEvent(before && currentOf(before), event, open.stages, config.defaultCurrency);
    const domainEventId = newId('de');
    if (transition.stale) {
      return {
        index,
        before,
        opened: open,
        config,
        event: {
          stale: true,
          dealId,
          domainEventId,
          sourceEventId,
          eventTypeHint: event.eventType,
          occurredAt: event.occurredAt as Date,
        },
      };
    }
    let splits: StoredSplit[] | null = null;
    if (transition.splits !== null) {
      const known = new Map((deal?.splits ?? []).map((split) => [split.owner_external_id, split.user_id]));
      splits = [];
      for (const { owner_external_id, share_bps } of transition.splits) {
        splits.push({
          owner_external_id,
          share_bps,
          user_id: known.get(owner_external_id) ?? (await userOf(owner_external_id)),
        });
      }
    }
    const ownerNamed = event.patch.standard.owner_external_id !== undefined;
    return {
      index,
      before,
      opened: open,
      config,
      event: {
        stale: false,
        dealId,
        newExternalId: deal === null ? event.externalId : null,
        ...appliedEventOf(
          event,
          transition,
          { domainEventId, sourceEventId },
          splits,
          ownerNamed ? ownerUserId : (deal?.user_id ?? null),
        ),
      },
    };
  };
  const changes: DealChange[] = [];
  for (let start = 0; start < requests.length; ) {
    const end = endOfRun(requests, dedupKeys, start, BULK_RUN_EVENTS);
    const run = requests.slice(start, end);
    const sourceEventIds = run.map(() => newId('se'));
    const opened = await sourceEvents.recordAndLockDeals(
      tx,
      orgId,
      run.map((request, offset) => ({
        id: sourceEventIds[offset] as string,
        dedupKey: dedupKeys[start + offset] as string,
        externalId: request.event.externalId,
        rawBody: request.rawBody,
        bodyDigest: digests[start + offset] as string,
        receivedAt: request.receivedAt,
      })),
    );
    const answered: Array<IngestResult | null> = [];
    let toApply: ToApply[] = [];
    for (const [offset, open] of opened.entries()) {
      const index = start + offset;
      if (!open.recorded) {
        answered.push(await replay(tx, orgId, dedupKeys[index] as string, digests[index] as string));
        continue;
      }
      answered.push(null);
      toApply.push(await prepare(index, sourceEventIds[offset] as string, open, open.deal, newId('deal')));
    }
    // In the rare case a new deal was created by another transaction between the two statements, its event is
    // applied to that deal, now locked, in a second round.
    while (toApply.length > 0) {
      const written = await dealsBulk.applyEvents(
        tx,
        orgId,
        toApply.map((entry) => entry.event),
      );
      const again: ToApply[] = [];
      for (const [position, entry] of toApply.entries()) {
        const outcome = written[position] as dealsBulk.BulkApplied;
        if ('taken' in outcome) {
          const { event } = requests[entry.index] as IngestRequest;
          const deal = await lockDeal(tx, orgId, event.externalId);
          again.push(await prepare(entry.index, entry.event.sourceEventId, entry.opened, deal, deal.id));
          continue;
        }
        answered[entry.index - start] = {
          kind: 'accepted',
          ids: {
            source_event_id: entry.event.sourceEventId,
            domain_event_id: entry.event.domainEventId,
            deal_id: entry.event.dealId,
          },
        };
        if (entry.event.stale) {
          (applied[entry.index] as AppliedType).domainEventType = 'stale';
          continue;
        }
        (applied[entry.index] as AppliedType).domainEventType = entry.event.type;
        changes.push({
          org: { id: orgId, stages: entry.opened.stages, config: entry.config },
          before: entry.before,
          after: outcome.deal as DealRecord,
          domainEvent: outcome.domainEvent,
        });
      }
      toApply = again;
    }
    results.push(...(answered as IngestResult[]));
    start = end;
  }
  return changes;
}
