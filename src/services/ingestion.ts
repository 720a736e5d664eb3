import { randomBytes } from 'node:crypto';
import { type AdminActor, CLI_ACTOR } from '../audit/adminEntries.ts';
import type { DealEvent, DealSplit } from '../domain/deals/event.ts';
import { applyEvent, type CurrentDeal, type Transition } from '../domain/deals/projection.ts';
import { canonicalDigest } from '../domain/json.ts';
import { newId } from '../lib/ids.ts';
import { countIngestedEvent } from '../lib/operationsMetrics.ts';
import type { AppliedEvent, DealRecord, StoredSplit } from '../repositories/deals.ts';
import * as deals from '../repositories/deals.ts';
import * as domainEvents from '../repositories/domainEvents.ts';
import * as sourceEvents from '../repositories/sourceEvents.ts';
import { inRolledBackTransaction, inTransaction, type SqlPool, type Transaction } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import { type DealChange, type DealChangeListener, dealsChanged } from './dealChanges.ts';
import { type NewRepRequester, requestOfNewReps } from './newRepAcceptances.ts';
import { OrgConfigCache } from './orgConfig.ts';
import type { WriteGuard } from './writeGuard.ts';

export interface IngestRequest {
  orgId: string;
  keyId: string | null;
  event: DealEvent;
  /** The parsed body, for the digest that replays are compared by. */
  body: unknown;
  /** The body as received, kept with the source event. */
  rawBody: string;
  receivedAt: Date;
  /**
   * The request's key confirmation: settled with what the event's first statement found of `keyId`, and the
   * request's audit entry written in the event's transaction, so an accepted event is never without it. Replays
   * and conflicts write nothing and are audited as reads.
   */
  guard?: WriteGuard;
  /**
   * Who sent the event when no key did (`keyId` null): the admin of an import (else the CLI). The actor of what a
   * rep's first event sets off: their requests to accept their plans (docs/plan-acceptance.md).
   */
  actor?: AdminActor;
}

export interface EventIds {
  source_event_id: string;
  domain_event_id: string;
  deal_id: string;
}

export type IngestResult =
  | { kind: 'accepted'; ids: EventIds }
  /** The dedup key was used before with the same body: the original ids, nothing written. */
  | { kind: 'replayed'; ids: EventIds }
  /** The dedup key was used before with another body: nothing written. */
  | { kind: 'conflict'; dedupKey: string }
  /** The request's key (`keyId`) is revoked, as the event's first statement found it: nothing written. */
  | { kind: 'key_revoked' };

/** How many events of a batch have their first statements sent together (see ingestMany). */
const PIPELINED_EVENTS = 64;

/** How many events of an import's batch have their rows written by one statement per table (see applyInBulk). */
const BULK_RUN_EVENTS = 10_000;

/**
 * The deal-event pipeline. Each event is one READ COMMITTED transaction: source event (claiming the dedup key)
 * → domain event → projection → the deal-change listener (the earnings engine). Concurrent events for one deal
 * queue on the deal's row lock, so none is lost and versions count 1..n; concurrent requests with one dedup
 * key queue on the key's unique index, so exactly one is applied and the others replay it.
 */
export class DealIngestion {
  private readonly pool: SqlPool;
  private readonly listener: DealChangeListener;
  /** The listener of an import's chunks (ingestMany with `deferEvaluation`): records the changes as pending. */
  private readonly deferred: DealChangeListener;
  private readonly configs = new OrgConfigCache();

  constructor(pool: SqlPool, listener: DealChangeListener, deferred: DealChangeListener) {
    this.pool = pool;
    this.listener = listener;
    this.deferred = deferred;
  }

  async ingest(request: IngestRequest): Promise<IngestResult> {
    const dedupKey = request.event.dedupKey ?? generatedDedupKey(request.event.externalId, request.receivedAt);
    const digest = canonicalDigest(request.body);
    const applied: { domainEventType?: string } = {};
    const result = await inTransaction(this.pool, (tx) => this.apply(tx, request, dedupKey, digest, applied));
    if (applied.domainEventType) countIngestedEvent(applied.domainEventType);
    return result;
  }

  /**
   * Several events in one READ COMMITTED transaction, in the order given: each event's rows (source event, deal,
   * domain event) as `ingest` writes them, each idempotent on its own dedup key, then the deal-change listener once
   * for every event applied (`onDealsChanged`: the earnings engine evaluates each affected rep's lines once, not
   * once per event). The first statements of up to PIPELINED_EVENTS events of different deals and dedup keys go out
   * together, so a batch costs a few round trips per run of events rather than two per event. A revoked key stops
   * the events (the rest are answered `key_revoked`). Any failure rolls every event back and is thrown: the caller
   * then applies them one by one (DealEventBatch), so that no event's failure is another's.
   *
   * The caller orders the events so that concurrent batches take deals' locks in one order (see DealEventBatch).
   *
   * With `deferEvaluation` (an import, whose events are sent without a key), the changes go to the deferred
   * listener instead (src/services/pendingEvaluations.ts): `deal.updated` is announced and each changed deal
   * recorded as pending, its earnings evaluated once the import's last chunk is in.
   */
  async ingestMany(
    requests: readonly IngestRequest[],
    options: { deferEvaluation?: boolean } = {},
  ): Promise<IngestResult[]> {
    const applied: Array<{ domainEventType?: string }> = requests.map(() => ({}));
    const dedupKeys = requests.map(
      (request) => request.event.dedupKey ?? generatedDedupKey(request.event.externalId, request.receivedAt),
    );
    const digests = requests.map((request) => canonicalDigest(request.body));
    // Events sent without a key or a request (an import): their rows written a run of events at a time.
    const bulk = requests.every((request) => request.keyId === null && request.guard === undefined);
    const results = await inTransaction(this.pool, async (tx) => {
      const results: IngestResult[] = [];
      const changes: Array<Promise<DealChange>> = [];
      // The reps the batch created: asked to accept their plans once its events are applied.
      const created: string[] = [];
      // The reps the events would create, created first in one statement in external-id order: two batches at once
      // then create their new reps in one order, never in a circle. An event whose dedup key an earlier one of the
      // batch uses writes nothing, nor creates a rep.
      const first = requests[0];
      if (first) {
        const seen = new Set<string>();
        const events = requests.flatMap((request, index) => {
          const dedupKey = dedupKeys[index] as string;
          if (seen.has(dedupKey)) return [];
          seen.add(dedupKey);
          return [{ dedupKey, reps: repsNamedBy(request.event) }];
        });
        // One key per batch: the request's.
        created.push(...(await users.ensureRepsOfEvents(tx, first.orgId, first.keyId, events)));
      }
      // The batch's changes to their listener (the deferred one for an import), then the new reps' requests.
      const settled = async (batchChanges: DealChange[]) => {
        await dealsChanged(options.deferEvaluation ? this.deferred : this.listener, tx, batchChanges);
        if (first) await requestOfNewReps(tx, first.orgId, created, requesterOf(first));
      };
      if (bulk) {
        await settled(await this.applyInBulk(tx, requests, dedupKeys, digests, applied, results, created));
        return results;
      }
      for (let start = 0; start < requests.length; ) {
        // A run of events of different deals and dedup keys: their first statements go out together, each event's
        // next ones once its first answered, all in one transaction's order.
        const deals = new Set<string>();
        const keys = new Set<string>();
        let end = start;
        while (end < requests.length && end - start < PIPELINED_EVENTS) {
          const externalId = (requests[end] as IngestRequest).event.externalId;
          const key = dedupKeys[end] as string;
          if (deals.has(externalId) || keys.has(key)) break;
          deals.add(externalId);
          keys.add(key);
          end++;
        }
        const recorded = requests.slice(start, end).map((request, offset) => {
          const first = this.record(
            tx,
            request,
            dedupKeys[start + offset] as string,
            digests[start + offset] as string,
          );
          first.opened.catch(() => {});
          return first;
        });
        for (const [offset, { sourceEventId, opened }] of recorded.entries()) {
          const index = start + offset;
          const request = requests[index] as IngestRequest;
          const result = await this.applyOpened(
            tx,
            request,
            dedupKeys[index] as string,
            digests[index] as string,
            applied[index] as { domainEventType?: string },
            sourceEventId,
            await opened,
            created,
            changes,
          );
          results.push(result);
          if (result.kind === 'key_revoked') {
            while (results.length < requests.length) results.push({ kind: 'key_revoked' });
            break;
          }
        }
        if (results.length === requests.length) break;
        start = end;
      }
      await settled(await Promise.all(changes));
      return results;
    });
    for (const [index, result] of results.entries()) {
      const type = applied[index]?.domainEventType;
      if (result.kind === 'accepted' && type) countIngestedEvent(type);
    }
    return results;
  }

  /**
   * ingestMany's rows for events sent without a key or a request (an import), in runs of events of different deals
   * and dedup keys (at most BULK_RUN_EVENTS): each run's source events, new deals and the locks of the others in one
   * statement (sourceEvents.recordAndOpenDeals), its domain events and the deals' new versions in another
   * (deals.applyEvents), as `ingest` would write them one by one. The reps the events name exist already
   * (ensureRepsOfEvents). Pushes each event's result and returns the changes, in the order applied.
   */
  private async applyInBulk(
    tx: Transaction,
    requests: readonly IngestRequest[],
    dedupKeys: readonly string[],
    digests: readonly string[],
    applied: Array<{ domainEventType?: string }>,
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
      const id = await this.repOf(tx, orgId, externalId, created);
      userIds.set(externalId, id);
      return id;
    };
    const changes: DealChange[] = [];
    for (let start = 0; start < requests.length; ) {
      const deals_ = new Set<string>();
      const keys = new Set<string>();
      let end = start;
      while (end < requests.length && end - start < BULK_RUN_EVENTS) {
        const externalId = (requests[end] as IngestRequest).event.externalId;
        const key = dedupKeys[end] as string;
        if (deals_.has(externalId) || keys.has(key)) break;
        deals_.add(externalId);
        keys.add(key);
        end++;
      }
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
        event: deals.BulkAppliedEvent;
        before: DealRecord | null;
        opened: Extract<sourceEvents.OpenedDeal, { recorded: true }>;
        config: Awaited<ReturnType<OrgConfigCache['at']>>;
      }> = [];
      const answered: Array<IngestResult | null> = [];
      for (const [offset, request] of run.entries()) {
        const index = start + offset;
        const open = opened[offset] as sourceEvents.OpenedDeal;
        if (!open.recorded) {
          answered.push(await this.replay(tx, orgId, dedupKeys[index] as string, digests[index] as string));
          continue;
        }
        const { event } = request;
        const deal = open.deal ?? (await this.lockDeal(tx, orgId, event.externalId));
        const owner = event.patch.standard.owner_external_id ?? null;
        const ownerUserId = owner === null ? null : await userOf(owner);
        const before = deal.version === 0 ? null : deal;
        const config = await this.configs.at(tx, orgId, open.configVersion);
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
      const written = await deals.applyEvents(
        tx,
        orgId,
        toApply.map((entry) => entry.event),
      );
      for (const [position, entry] of toApply.entries()) {
        const { deal, domainEvent } = written[position] as (typeof written)[number];
        if (entry.event.stale) {
          (applied[entry.index] as { domainEventType?: string }).domainEventType = 'stale';
          continue;
        }
        (applied[entry.index] as { domainEventType?: string }).domainEventType = entry.event.type;
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

  /**
   * Rehearses one event: `work` runs in a transaction that is always rolled back, and may apply the event there
   * (once), exactly as `ingest` would, with a fresh dedup key, the listener (the earnings engine) included. It
   * sees everything the event writes; nothing of it is kept.
   */
  async rehearse<T>(
    orgId: string,
    keyId: string | null,
    work: (tx: Transaction, apply: (event: DealEvent, body: unknown) => Promise<EventIds>) => Promise<T>,
  ): Promise<T> {
    return inRolledBackTransaction(this.pool, (tx) =>
      work(tx, async (event, body) => {
        const receivedAt = new Date();
        const request = { orgId, keyId, event, body, rawBody: JSON.stringify(body), receivedAt };
        const dedupKey = generatedDedupKey(event.externalId, receivedAt);
        // Rolled back, so not counted as ingested.
        const result = await this.apply(tx, request, dedupKey, canonicalDigest(body), {});
        if (result.kind !== 'accepted') throw new Error(`a rehearsed event of org ${orgId} was not applied`);
        return result.ids;
      }),
    );
  }

  private async apply(
    tx: Transaction,
    request: IngestRequest,
    dedupKey: string,
    digest: string,
    applied: { domainEventType?: string },
  ): Promise<IngestResult> {
    const { sourceEventId, opened } = this.record(tx, request, dedupKey, digest);
    const created: string[] = [];
    const result = await this.applyOpened(tx, request, dedupKey, digest, applied, sourceEventId, await opened, created);
    // A rep's first event: they are asked to accept the plans assigned to them. Nothing more for a known rep.
    if (created.length > 0) await requestOfNewReps(tx, request.orgId, created, requesterOf(request));
    return result;
  }

  /** Issues the event's first statement (recordAndOpenDeal); the caller awaits it when it needs the deal. */
  private record(
    tx: Transaction,
    request: IngestRequest,
    dedupKey: string,
    digest: string,
  ): { sourceEventId: string; opened: Promise<sourceEvents.OpenedDeal> } {
    const { orgId, event } = request;
    const sourceEventId = newId('se');
    const owner = event.patch.standard.owner_external_id ?? null;
    const opened = sourceEvents.recordAndOpenDeal(
      tx,
      orgId,
      {
        id: sourceEventId,
        keyId: request.keyId,
        dedupKey,
        externalId: event.externalId,
        rawBody: request.rawBody,
        bodyDigest: digest,
        receivedAt: request.receivedAt,
      },
      {
        newId: newId('deal'),
        ownerExternalId: owner,
        splitExternalIds: (event.splits ?? []).map((split) => split.owner_external_id),
      },
    );
    return { sourceEventId, opened };
  }

  /**
   * The rest of the event once its first statement answered. With `deferred` (ingestMany), the statement that
   * applies the event is issued and not awaited, and the change it makes is collected there for the listener.
   * The users (reps) the event created are pushed to `created`.
   */
  private async applyOpened(
    tx: Transaction,
    request: IngestRequest,
    dedupKey: string,
    digest: string,
    applied: { domainEventType?: string },
    sourceEventId: string,
    opened: sourceEvents.OpenedDeal,
    created: string[],
    deferred?: Array<Promise<DealChange>>,
  ): Promise<IngestResult> {
    const { orgId, event } = request;
    const owner = event.patch.standard.owner_external_id ?? null;
    request.guard?.settle(opened.recorded || !opened.keyRevoked);
    // Nothing was written, so committing the transaction keeps the promise of no side effects.
    if (!opened.recorded) {
      return opened.keyRevoked ? { kind: 'key_revoked' } : this.replay(tx, orgId, dedupKey, digest);
    }

    created.push(...opened.createdUserIds);
    const deal = opened.deal ?? (await this.lockDeal(tx, orgId, event.externalId));
    const ownerUserId = owner === null ? null : (opened.ownerUserId ?? (await this.repOf(tx, orgId, owner, created)));
    const before = deal.version === 0 ? null : deal;
    const config = await this.configs.at(tx, orgId, opened.configVersion);
    const transition = applyEvent(before && currentOf(before), event, opened.stages, config.defaultCurrency);
    const domainEventId = newId('de');
    const ids: EventIds = { source_event_id: sourceEventId, domain_event_id: domainEventId, deal_id: deal.id };

    // The accepted event's audit entry rides on the statement that records its domain event.
    const audit = request.guard?.auditEntry() ?? null;
    if (transition.stale) {
      await domainEvents.recordStale(
        tx,
        orgId,
        {
          id: domainEventId,
          sourceEventId,
          dealId: deal.id,
          eventTypeHint: event.eventType,
          occurredAt: event.occurredAt as Date,
        },
        audit,
      );
      applied.domainEventType = 'stale';
      return { kind: 'accepted', ids };
    }

    const ownerNamed = event.patch.standard.owner_external_id !== undefined;
    const splits = await this.splitsWithReps(tx, orgId, transition.splits, deal.splits, created);
    const applying = deals.applyEvent(
      tx,
      orgId,
      deal.id,
      appliedEventOf(
        event,
        transition,
        { domainEventId, sourceEventId },
        splits,
        ownerNamed ? ownerUserId : deal.user_id,
      ),
      audit,
    );
    const changeOf = (appliedEvent: Awaited<typeof applying>): DealChange => ({
      org: { id: orgId, stages: opened.stages, config },
      before,
      after: appliedEvent.deal,
      domainEvent: appliedEvent.domainEvent,
    });
    if (deferred) {
      const change = applying.then(changeOf);
      // Awaited with the others once every event is applied; a failure also fails the statements after it.
      change.catch(() => {});
      deferred.push(change);
    } else await this.listener.onDealChanged(tx, changeOf(await applying));
    applied.domainEventType = transition.type;
    return { kind: 'accepted', ids };
  }

  /**
   * The split's reps with their user ids: those the deal already credits keep theirs, new ones are created on
   * first sight like an owner (in external-id order, so two events naming the same new reps queue, not cross).
   */
  private async splitsWithReps(
    tx: Transaction,
    orgId: string,
    splits: readonly DealSplit[] | null,
    current: readonly StoredSplit[] | null,
    created: string[],
  ): Promise<StoredSplit[] | null> {
    if (splits === null) return null;
    const known = new Map((current ?? []).map((split) => [split.owner_external_id, split.user_id]));
    for (const owner of splits.map((split) => split.owner_external_id).sort()) {
      if (!known.has(owner)) known.set(owner, await this.repOf(tx, orgId, owner, created));
    }
    return splits.map(({ owner_external_id, share_bps }) => ({
      owner_external_id,
      share_bps,
      user_id: known.get(owner_external_id) as string,
    }));
  }

  /** The rep's user id, created on first sight (then pushed to `created`). */
  private async repOf(tx: Transaction, orgId: string, externalId: string, created: string[]): Promise<string> {
    const rep = await users.createOrFindRep(tx, orgId, externalId);
    if (rep.created) created.push(rep.id);
    return rep.id;
  }

  /** The dedup key is taken, by a committed event (the insert waited for it to commit): compare the bodies. */
  private async replay(tx: Transaction, orgId: string, dedupKey: string, digest: string): Promise<IngestResult> {
    const original = await sourceEvents.findByDedupKey(tx, orgId, dedupKey);
    if (!original) throw new Error(`dedup key ${dedupKey} of org ${orgId} is taken but its event is not visible`);
    if (original.body_digest !== digest) return { kind: 'conflict', dedupKey };
    const { source_event_id, domain_event_id, deal_id } = original;
    return { kind: 'replayed', ids: { source_event_id, domain_event_id, deal_id } };
  }

  private async lockDeal(tx: Transaction, orgId: string, externalId: string): Promise<DealRecord> {
    const deal = await deals.lockByExternalId(tx, orgId, externalId);
    if (!deal) throw new Error(`deal ${externalId} of org ${orgId} was neither created nor found`);
    return deal;
  }
}

/** Who a new rep's requests to accept their plans are audited as made by: the event's key, else its admin. */
function requesterOf(request: IngestRequest): NewRepRequester {
  return request.keyId === null ? { admin: request.actor ?? CLI_ACTOR } : { keyId: request.keyId };
}

/** The reps an event names: its owner and the reps of its splits. */
function repsNamedBy(event: DealEvent): string[] {
  const owner = event.patch.standard.owner_external_id;
  return [
    ...(owner === undefined || owner === null ? [] : [owner]),
    ...(event.splits ?? []).map((split) => split.owner_external_id),
  ];
}

/** What the deals repository writes for an event that moves its deal: one shape for the single and the bulk path. */
function appliedEventOf(
  event: DealEvent,
  transition: Extract<Transition, { stale: false }>,
  ids: { domainEventId: string; sourceEventId: string },
  splits: StoredSplit[] | null,
  userId: string | null,
): AppliedEvent {
  return {
    ...ids,
    type: transition.type,
    eventTypeHint: event.eventType,
    changes: transition.changes,
    occurredAt: event.occurredAt ?? null,
    state: transition.state,
    splits,
    currency: transition.currency,
    status: transition.status,
    userId,
    lastOccurredAt: transition.lastOccurredAt,
    becameWon: transition.becameWon,
  };
}

function currentOf(deal: DealRecord): CurrentDeal {
  return {
    state: deal.state,
    status: deal.status,
    lastOccurredAt: deal.last_occurred_at,
    splits: deal.splits,
    currency: deal.currency,
  };
}

/** `gen_<external_id>_<received time>_<128 random bits>`: unique without coordination, readable in a log. */
export function generatedDedupKey(externalId: string, receivedAt: Date): string {
  return `gen_${externalId}_${receivedAt.toISOString()}_${randomBytes(16).toString('hex')}`;
}
