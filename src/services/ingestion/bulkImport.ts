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

/**
 * A batch's rows for events sent without a key or a request (an import), in runs of events of different deals and
 * dedup keys (at most BULK_RUN_EVENTS): each run's source events, new deals and the locks of the others in one
 * statement (sourceEvents.recordAndOpenDeals), its domain events and the deals' new versions in another
 * (dealsBulk.applyEvents), as the apply step would write them one by one. The reps the events name exist already
 * (ensureRepsOfEvents). Pushes each event's result and returns the changes, in the order applied.
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
  const changes: DealChange[] = [];
  for (let start = 0; start < requests.length; ) {
    const end = endOfRun(requests, dedupKeys, start, BULK_RUN_EVENTS);
    const run = requests.slice(start, end);
    const sourceEventIds = run.map(() => newId('se'));
    const opened = await sourceEvents.recordAndOpenDeals(
      tx,
      orgId,
      run.map((request, offset) => ({
        event: {
          id: sourceEventIds[offset] as string,
          dedupKey: dedupKeys[start + offset] as string,
          externalId: request.event.externalId,
          rawBody: request.rawBody,
          bodyDigest: digests[start + offset] as string,
          receivedAt: request.receivedAt,
        },
        newDealId: newId('deal'),
      })),
    );
    const toApply: Array<{
      index: number;
      event: dealsBulk.BulkAppliedEvent;
      before: DealRecord | null;
      opened: Extract<sourceEvents.OpenedDeal, { recorded: true }>;
      config: Awaited<ReturnType<OrgConfigCache['at']>>;
    }> = [];
    const answered: Array<IngestResult | null> = [];
    for (const [offset, request] of run.entries()) {
      const index = start + offset;
      const open = opened[offset] as sourceEvents.OpenedDeal;
      if (!open.recorded) {
        answered.push(await replay(tx, orgId, dedupKeys[index] as string, digests[index] as string));
        continue;
      }
      const { event } = request;
      const deal = open.deal ?? (await lockDeal(tx, orgId, event.externalId));
      const owner = event.patch.standard.owner_external_id ?? null;
      const ownerUserId = owner === null ? null : await userOf(owner);
      const before = deal.version === 0 ? null : deal;
      const config = await steps.configs.at(tx, orgId, open.configVersion);
      const transition = applyEvent(before && currentOf(before), event, open.stages, config.defaultCurrency);
      const domainEventId = newId('de');
      const sourceEventId = sourceEventIds[offset] as string;
      answered.push({
        kind: 'accepted',
        ids: { source_event_id: sourceEventId, domain_event_id: domainEventId, deal_id: deal.id },
      });
      if (transition.stale) {
        toApply.push({
          index,
          before,
          opened: open,
          config,
          event: {
            stale: true,
            dealId: deal.id,
            domainEventId,
            sourceEventId,
            eventTypeHint: event.eventType,
            occurredAt: event.occurredAt as Date,
          },
        });
        continue;
      }
      let splits: StoredSplit[] | null = null;
      if (transition.splits !== null) {
        const known = new Map((deal.splits ?? []).map((split) => [split.owner_external_id, split.user_id]));
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
      toApply.push({
        index,
        before,
        opened: open,
        config,
        event: {
          stale: false,
          dealId: deal.id,
          ...appliedEventOf(
            event,
            transition,
            { domainEventId, sourceEventId },
            splits,
            ownerNamed ? ownerUserId : deal.user_id,
          ),
        },
      });
    }
    const written = await dealsBulk.applyEvents(
      tx,
      orgId,
      toApply.map((entry) => entry.event),
    );
    for (const [position, entry] of toApply.entries()) {
      const { deal, domainEvent } = written[position] as (typeof written)[number];
      if (entry.event.stale) {
        (applied[entry.index] as AppliedType).domainEventType = 'stale';
        continue;
      }
      (applied[entry.index] as AppliedType).domainEventType = entry.event.type;
      changes.push({
        org: { id: orgId, stages: entry.opened.stages, config: entry.config },
        before: entry.before,
        after: deal as DealRecord,
        domainEvent,
      });
    }
    results.push(...(answered as IngestResult[]));
    start = end;
  }
  return changes;
}
