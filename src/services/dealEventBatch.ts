import type { AdminActor } from '../audit/adminEntries.ts';
import type { DealEvent } from '../domain/deals/event.ts';
import type { AuditEntryInput } from '../repositories/audit.ts';
import type { DealIngestion, IngestRequest, IngestResult } from './ingestion.ts';
import { type AuditRide, auditRide } from './writeGuard.ts';

/** One event of a batch, already parsed: the event and the body its digest is taken of. */
export interface BatchEvent {
  event: DealEvent;
  body: unknown;
}

export interface BatchRequest {
  orgId: string;
  keyId: string | null;
  events: readonly BatchEvent[];
  receivedAt: Date;
  /**
   * The request's audit entry: written in the transaction of the first event that is accepted, and only there (so
   * it is recorded exactly when an event's result is `accepted`).
   */
  auditEntry?: AuditEntryInput;
  /** Who sends the events when no key does (an import's admin): see IngestRequest.actor. */
  actor?: AdminActor;
  /**
   * An import's chunk (events without a key): the events' earnings are not evaluated in the batch's transaction;
   * their deals are recorded as pending (src/services/pendingEvaluations.ts). Applied one by one after a failure,
   * they are evaluated as single events are.
   */
  deferEvaluation?: boolean;
}

/** Events applied at once when a batch falls back to one transaction per event. */
export const BATCH_CONCURRENCY = 4;

/**
 * Many deal events through the one pipeline of `DealIngestion`, in one transaction (`ingestMany`): each event's rows
 * as the single endpoint writes them, each idempotent on its own dedup key, then every affected rep's lines
 * evaluated and booked once for all of them, so that the events' earnings are readable once the batch is answered.
 * An event refused for its content never reaches here (the route answers it). When the transaction fails (the
 * database refused a statement, two batches deadlocked), nothing of it is kept and the events are applied again
 * each in a transaction of its own, as before batches were grouped: so one event's failure is never the others'.
 *
 * Events that must be applied in order — those of one deal, and those sharing a dedup key — form one lane, applied
 * in the batch's order; lanes are applied one after another, ordered by the least deal id they name, so that two
 * batches at once lock their deals in one order and cannot wait for each other in a circle.
 *
 * The result has one member per event, in order. A revoked key stops the batch: the events not yet applied are
 * answered `key_revoked`. Any other failure of the events applied one by one stops them too and is thrown; what was
 * applied stays applied, and the dedup keys make a retry replay it and apply the rest.
 */
export class DealEventBatch {
  private readonly ingestion: DealIngestion;

  constructor(ingestion: DealIngestion) {
    this.ingestion = ingestion;
  }

  async ingestAll(request: BatchRequest): Promise<IngestResult[]> {
    const events = request.events.map(({ event }) => event);
    const lanes = lanesOf(events);
    const order = lanes
      .map((lane) => ({ lane, first: lane.map((index) => (events[index] as DealEvent).externalId).sort()[0] ?? '' }))
      .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0))
      .flatMap(({ lane }) => lane);
    // Each event's write reads the key itself (a revoked key comes back as its result); the request's audit entry
    // rides on the first accepted event's statements.
    const { auditEntry } = request;
    const requestsOf = (audit: AuditRide | undefined) =>
      order.map((index): IngestRequest => {
        const { event, body } = request.events[index] as BatchEvent;
        return {
          orgId: request.orgId,
          keyId: request.keyId,
          event,
          body,
          rawBody: JSON.stringify(body),
          receivedAt: request.receivedAt,
          ...(audit ? { audit } : {}),
          ...(request.actor ? { actor: request.actor } : {}),
        };
      });
    const requests = requestsOf(auditEntry && auditRide(auditEntry));
    let results: IngestResult[];
    try {
      results = await this.ingestion.ingestMany(
        requests,
        request.deferEvaluation && request.keyId === null ? { deferEvaluation: true } : {},
      );
    } catch {
      // Nothing of the batch was kept. Applied one by one, a failure is only its own event's (or, when the database
      // is down, the first one's, which is thrown). The audit entry rides again, on the first event accepted now.
      const position = new Map(order.map((index, at) => [index, at]));
      results = await this.ingestEach(
        requestsOf(auditEntry && auditRide(auditEntry)),
        lanes.map((lane) => lane.map((index) => position.get(index) as number)),
      );
    }
    const answered = new Array<IngestResult>(request.events.length);
    order.forEach((index, position) => {
      answered[index] = results[position] as IngestResult;
    });
    return answered;
  }

  /**
   * The events each in a transaction of its own (`DealIngestion.ingest`), lanes side by side (BATCH_CONCURRENCY)
   * and each lane's events in order. A revoked key stops them: the events not yet applied are answered
   * `key_revoked`. Any other failure stops them too and is thrown once every lane has stopped.
   */
  private async ingestEach(requests: readonly IngestRequest[], lanes: readonly number[][]): Promise<IngestResult[]> {
    const results = new Array<IngestResult>(requests.length);
    let stopped: { failure: unknown } | 'key_revoked' | null = null;
    const runLane = async (lane: readonly number[]) => {
      for (const index of lane) {
        // After a failure the results are not answered (the failure is thrown); after a revoked key they are.
        if (stopped !== null) {
          results[index] = { kind: 'key_revoked' };
          continue;
        }
        try {
          const result = await this.ingestion.ingest(requests[index] as IngestRequest);
          if (result.kind === 'key_revoked') stopped ??= 'key_revoked';
          results[index] = result;
        } catch (failure) {
          stopped = { failure };
        }
      }
    };
    let next = 0;
    const worker = async () => {
      while (next < lanes.length) await runLane(lanes[next++] as number[]);
    };
    await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, lanes.length) }, worker));
    if (stopped !== null && stopped !== 'key_revoked') throw (stopped as { failure: unknown }).failure;
    return results;
  }
}

/**
 * The batch's events grouped into lanes, each a list of indexes in the batch's order: two events share a lane when
 * they name the same deal or the same dedup key, directly or through other events. Lanes are ordered by their
 * first event.
 */
export function lanesOf(events: readonly DealEvent[]): number[][] {
  const parent = events.map((_, index) => index);
  const root = (index: number): number => {
    let current = index;
    while (parent[current] !== current) {
      const up = parent[current] as number;
      parent[current] = parent[up] as number;
      current = up;
    }
    return current;
  };
  const firstByKey = new Map<string, number>();
  events.forEach((event, index) => {
    const keys = [`deal:${event.externalId}`];
    if (event.dedupKey !== undefined) keys.push(`dedup:${event.dedupKey}`);
    for (const key of keys) {
      const first = firstByKey.get(key);
      if (first === undefined) firstByKey.set(key, index);
      else {
        const [a, b] = [root(first), root(index)];
        if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
  });
  const lanes = new Map<number, number[]>();
  events.forEach((_, index) => {
    const lane = root(index);
    const members = lanes.get(lane);
    if (members) members.push(index);
    else lanes.set(lane, [index]);
  });
  return [...lanes.values()];
}
