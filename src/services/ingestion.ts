import { randomBytes } from 'node:crypto';
import type { DealEvent, DealSplit } from '../domain/deals/event.ts';
import { applyEvent, type CurrentDeal } from '../domain/deals/projection.ts';
import { canonicalDigest } from '../domain/json.ts';
import { newId } from '../lib/ids.ts';
import { countIngestedEvent } from '../lib/operationsMetrics.ts';
import type { DealRecord, StoredSplit } from '../repositories/deals.ts';
import * as deals from '../repositories/deals.ts';
import * as domainEvents from '../repositories/domainEvents.ts';
import * as sourceEvents from '../repositories/sourceEvents.ts';
import { inRolledBackTransaction, inTransaction, type SqlPool, type Transaction } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import { type DealChange, type DealChangeListener, dealsChanged } from './dealChanges.ts';
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

/** What `ingestMany` made of each event, in order; `failure`: the database failed, nothing of the event kept. */
export interface ManyIngested {
  results: Array<IngestResult | undefined>;
  /** The failure that stopped the events, which were left without a result from the failed one on. */
  failure?: unknown;
}

/**
 * The deal-event pipeline. Each event is one READ COMMITTED transaction: source event (claiming the dedup key)
 * → domain event → projection → the deal-change listener (the earnings engine). Concurrent events for one deal
 * queue on the deal's row lock, so none is lost and versions count 1..n; concurrent requests with one dedup
 * key queue on the key's unique index, so exactly one is applied and the others replay it.
 */
export class DealIngestion {
  private readonly pool: SqlPool;
  private readonly listener: DealChangeListener;
  private readonly configs = new OrgConfigCache();

  constructor(pool: SqlPool, listener: DealChangeListener) {
    this.pool = pool;
    this.listener = listener;
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
   * domain event) under a savepoint of its own, each idempotent on its own dedup key as `ingest` makes it, then
   * the deal-change listener once for every event applied (`onDealsChanged`: the earnings engine evaluates each
   * affected rep's lines once, not once per event). A revoked key stops the events (the rest are answered
   * `key_revoked`); a failure of the database while one event is written rolls that event back to its savepoint
   * and stops there: the events before it are evaluated and committed, and the failure is handed back with them.
   * A failure of the listener rolls everything back and is thrown.
   *
   * The caller orders the events so that concurrent batches take deals' locks in one order (see DealEventBatch).
   */
  async ingestMany(requests: readonly IngestRequest[]): Promise<ManyIngested> {
    const applied: Array<{ domainEventType?: string }> = requests.map(() => ({}));
    const outcome = await inTransaction(this.pool, async (tx) => {
      const results: Array<IngestResult | undefined> = requests.map(() => undefined);
      const changes: DealChange[] = [];
      let failure: unknown;
      let released: Promise<unknown> = Promise.resolve();
      for (const [index, request] of requests.entries()) {
        const dedupKey = request.event.dedupKey ?? generatedDedupKey(request.event.externalId, request.receivedAt);
        // The savepoint goes out with the event's first statement, and its release with the next event's.
        const saved = tx.query({ text: 'SAVEPOINT batch_event', values: [] });
        const changesBefore = changes.length;
        try {
          const result = await this.apply(
            tx,
            request,
            dedupKey,
            canonicalDigest(request.body),
            applied[index] as { domainEventType?: string },
            changes,
          );
          await saved;
          await released;
          results[index] = result;
          released = tx.query({ text: 'RELEASE SAVEPOINT batch_event', values: [] });
          if (result.kind === 'key_revoked') {
            for (let rest = index + 1; rest < requests.length; rest++) results[rest] = { kind: 'key_revoked' };
            break;
          }
        } catch (error) {
          await saved.catch(() => {});
          await released.catch(() => {});
          await tx.query({ text: 'ROLLBACK TO SAVEPOINT batch_event', values: [] });
          changes.length = changesBefore;
          applied[index] = {};
          failure = error;
          break;
        }
      }
      await released;
      await dealsChanged(this.listener, tx, changes);
      return { results, failure };
    });
    for (const [index, result] of outcome.results.entries()) {
      const type = applied[index]?.domainEventType;
      if (result?.kind === 'accepted' && type) countIngestedEvent(type);
    }
    return outcome.failure === undefined ? { results: outcome.results } : outcome;
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
    /** When given, the change is collected here for the listener to see later (`ingestMany`), not handed on now. */
    deferred?: DealChange[],
  ): Promise<IngestResult> {
    const { orgId, event } = request;
    const sourceEventId = newId('se');
    const owner = event.patch.standard.owner_external_id ?? null;
    const opened = await sourceEvents.recordAndOpenDeal(
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
    request.guard?.settle(opened.recorded || !opened.keyRevoked);
    // Nothing was written, so committing the transaction keeps the promise of no side effects.
    if (!opened.recorded) {
      return opened.keyRevoked ? { kind: 'key_revoked' } : this.replay(tx, orgId, dedupKey, digest);
    }

    const deal = opened.deal ?? (await this.lockDeal(tx, orgId, event.externalId));
    const ownerUserId = owner === null ? null : (opened.ownerUserId ?? (await users.ensureRep(tx, orgId, owner)));
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
    const splits = await this.splitsWithReps(tx, orgId, transition.splits, deal.splits);
    const appliedEvent = await deals.applyEvent(
      tx,
      orgId,
      deal.id,
      {
        domainEventId,
        sourceEventId,
        type: transition.type,
        eventTypeHint: event.eventType,
        changes: transition.changes,
        occurredAt: event.occurredAt ?? null,
        state: transition.state,
        splits,
        currency: transition.currency,
        status: transition.status,
        userId: ownerNamed ? ownerUserId : deal.user_id,
        lastOccurredAt: transition.lastOccurredAt,
        becameWon: transition.becameWon,
      },
      audit,
    );
    const change: DealChange = {
      org: { id: orgId, stages: opened.stages, config },
      before,
      after: appliedEvent.deal,
      domainEvent: appliedEvent.domainEvent,
    };
    if (deferred) deferred.push(change);
    else await this.listener.onDealChanged(tx, change);
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
  ): Promise<StoredSplit[] | null> {
    if (splits === null) return null;
    const known = new Map((current ?? []).map((split) => [split.owner_external_id, split.user_id]));
    for (const owner of splits.map((split) => split.owner_external_id).sort()) {
      if (!known.has(owner)) known.set(owner, await users.ensureRep(tx, orgId, owner));
    }
    return splits.map(({ owner_external_id, share_bps }) => ({
      owner_external_id,
      share_bps,
      user_id: known.get(owner_external_id) as string,
    }));
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
