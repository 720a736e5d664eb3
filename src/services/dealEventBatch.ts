import type { DealEvent } from '../domain/deals/event.ts';
import type { AuditEntryInput } from '../repositories/audit.ts';
import type { DealIngestion, IngestResult } from './ingestion.ts';
import type { WriteGuard } from './writeGuard.ts';

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
  /** The request's audit entry: written in the transaction of the first event that is accepted, and only there. */
  auditEntry?: () => AuditEntryInput;
}

/**
 * Events applied at once by one batch, each in its own transaction on its own connection. Events for different
 * deals run side by side; the database queues those that meet on a rep's lock, as it does concurrent requests.
 */
export const BATCH_CONCURRENCY = 4;

/**
 * Many deal events through the one pipeline of `DealIngestion.ingest`: each event in a transaction of its own (the
 * ledger's rule: an accepted event's earnings are readable when it is answered, and no event's failure or lock wait
 * is another's), each idempotent on its own dedup key. Events that must be applied in order — those of one deal,
 * and those sharing a dedup key — form one lane, applied in the batch's order; lanes run side by side.
 *
 * The result has one member per event, in order. A revoked key stops the batch: the events not yet applied are
 * answered `key_revoked`. Any other failure (the database) stops it too and is thrown once every lane has stopped;
 * what was applied stays applied, and the dedup keys make a retry replay it.
 */
export class DealEventBatch {
  private readonly ingestion: DealIngestion;

  constructor(ingestion: DealIngestion) {
    this.ingestion = ingestion;
  }

  async ingestAll(request: BatchRequest): Promise<IngestResult[]> {
    const results = new Array<IngestResult>(request.events.length);
    const lanes = lanesOf(request.events.map(({ event }) => event));
    let auditWritten = false;
    const auditEntry = request.auditEntry;
    // Each event's write reads the key itself (a revoked key comes back as its result); the request's audit entry
    // rides on the first accepted event's transaction.
    const guard: WriteGuard | undefined = auditEntry && {
      settle: () => {},
      auditEntry: () => {
        if (auditWritten) return null;
        auditWritten = true;
        return auditEntry();
      },
    };
    let stopped: { failure: unknown } | 'key_revoked' | null = null;

    const runLane = async (lane: readonly number[]) => {
      for (const index of lane) {
        // After a failure the results are not answered (the failure is thrown); after a revoked key they are.
        if (stopped !== null) {
          results[index] = { kind: 'key_revoked' };
          continue;
        }
        const { event, body } = request.events[index] as BatchEvent;
        try {
          const result = await this.ingestion.ingest({
            orgId: request.orgId,
            keyId: request.keyId,
            event,
            body,
            rawBody: JSON.stringify(body),
            receivedAt: request.receivedAt,
            ...(guard ? { guard } : {}),
          });
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
