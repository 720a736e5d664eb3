import type { DealEvent } from '../domain/deals/event.ts';
import { canonicalDigest } from '../domain/json.ts';
import { countIngestedEvent } from '../lib/operationsMetrics.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import { type DealChange, type DealChangeListener, dealsChanged } from './dealChanges.ts';
import {
  type AppliedType,
  type ApplySteps,
  dedupKeyOf,
  type EventIds,
  type IngestRequest,
  type IngestResult,
  type PreparedEvents,
} from './ingestion/applyStep.ts';
import { applyInBulk } from './ingestion/bulkImport.ts';
import { applyPipelined } from './ingestion/pipelinedBatch.ts';
import { rehearseEvent } from './ingestion/rehearsal.ts';
import { repsNamedBy, requesterOf } from './ingestion/reps.ts';
import { ingestEvent } from './ingestion/singleEvent.ts';
import { requestOfNewReps } from './newRepAcceptances.ts';
import { OrgConfigCache } from './orgConfig.ts';

export type { EventIds, IngestRequest, IngestResult } from './ingestion/applyStep.ts';
export { findingsOf, generatedDedupKey } from './ingestion/applyStep.ts';

/**
 * The deal-event pipeline. Each event is one READ COMMITTED transaction: source event (claiming the dedup key)
 * → domain event → projection → the deal-change listener (the earnings engine). Concurrent events for one deal
 * queue on the deal's row lock, so none is lost and versions count 1..n; concurrent requests with one dedup
 * key queue on the key's unique index, so exactly one is applied and the others replay it.
 *
 * Each use case has a file of its own under src/services/ingestion/, around the one apply step (applyStep.ts): the
 * single event, the pipelined batch, the bulk import and the rehearsal.
 */
export class DealIngestion {
  private readonly pool: Transactor;
  private readonly steps: ApplySteps;
  /** The listener of an import's chunks (ingestMany with `deferEvaluation`): records the changes as pending. */
  private readonly deferred: DealChangeListener;

  constructor(pool: Transactor, listener: DealChangeListener, deferred: DealChangeListener) {
    this.pool = pool;
    this.steps = { listener, configs: new OrgConfigCache() };
    this.deferred = deferred;
  }

  ingest(request: IngestRequest): Promise<IngestResult> {
    return ingestEvent(this.steps, this.pool, request);
  }

  /**
   * Several events in one READ COMMITTED transaction, in the order given: each event's rows (source event, deal,
   * domain event) as `ingest` writes them, each idempotent on its own dedup key, then the deal-change listener once
   * for every event applied (`onDealsChanged`: the earnings engine evaluates each affected rep's lines once, not
   * once per event). Events sent with a key or a request go through the pipelined batch
   * (ingestion/pipelinedBatch.ts); those of an import, without either, through the bulk import
   * (ingestion/bulkImport.ts). Any failure rolls every event back and is thrown: the caller then applies them one
   * by one (DealEventBatch), so that no event's failure is another's.
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
    const events: PreparedEvents = {
      requests,
      dedupKeys: requests.map(dedupKeyOf),
      digests: requests.map((request) => canonicalDigest(request.body)),
      applied: requests.map((): AppliedType => ({})),
    };
    // Events sent without a key or a request (an import): their rows written a run of events at a time.
    const bulk = requests.every((request) => request.keyId === null && request.audit === undefined);
    const results = await this.pool.run(async (tx) => {
      const results: IngestResult[] = [];
      // The reps the batch created: asked to accept their plans once its events are applied.
      const created = await this.ensureReps(tx, events);
      const changes = await (bulk ? applyInBulk : applyPipelined)(this.steps, tx, events, results, created);
      // The batch's changes to their listener (the deferred one for an import), then the new reps' requests.
      await this.passChanges(tx, changes, options.deferEvaluation === true);
      const first = requests[0];
      if (first) await requestOfNewReps(tx, first.orgId, created, requesterOf(first));
      return results;
    });
    for (const [index, result] of results.entries()) {
      const type = events.applied[index]?.domainEventType;
      if (result.kind === 'accepted' && type) countIngestedEvent(type);
    }
    return results;
  }

  /**
   * Rehearses one event in a transaction that is always rolled back (ingestion/rehearsal.ts): what an estimate
   * reads of an event's effects.
   */
  rehearse<T>(
    orgId: string,
    keyId: string | null,
    work: (tx: Transaction, apply: (event: DealEvent, body: unknown) => Promise<EventIds>) => Promise<T>,
  ): Promise<T> {
    return rehearseEvent(this.steps, this.pool, orgId, keyId, work);
  }

  /**
   * The reps the events would create, created first in one statement in external-id order: two batches at once
   * then create their new reps in one order, never in a circle. An event whose dedup key an earlier one of the
   * batch uses writes nothing, nor creates a rep. One key per batch: the request's.
   */
  private async ensureReps(tx: Transaction, { requests, dedupKeys }: PreparedEvents): Promise<string[]> {
    const first = requests[0];
    if (!first) return [];
    const seen = new Set<string>();
    const events = requests.flatMap((request, index) => {
      const dedupKey = dedupKeys[index] as string;
      if (seen.has(dedupKey)) return [];
      seen.add(dedupKey);
      return [{ dedupKey, reps: repsNamedBy(request.event) }];
    });
    return [...(await users.ensureRepsOfEvents(tx, first.orgId, first.keyId, events))];
  }

  private passChanges(tx: Transaction, changes: DealChange[], deferEvaluation: boolean): Promise<void> {
    return dealsChanged(deferEvaluation ? this.deferred : this.steps.listener, tx, changes);
  }
}
