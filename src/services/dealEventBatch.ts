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
 * Many deal events through the one pipeline of `DealIngestion`, in one transaction (`ingestMany`): each event's rows
 * under a savepoint of its own and idempotent on its own dedup key, then every affected rep's lines evaluated and
 * booked once for all of them. An event refused for its content never reaches here (the route answers it), so one
 * bad event never refuses the others; the events' earnings are readable once the batch is answered.
 *
 * Events that must be applied in order — those of one deal, and those sharing a dedup key — form one lane, applied
 * in the batch's order; lanes are applied one after another, ordered by the least deal id they name, so that two
 * batches at once lock their deals in one order and cannot wait for each other in a circle.
 *
 * The result has one member per event, in order. A revoked key stops the batch: the events not yet applied are
 * answered `key_revoked`. Any other failure (the database) stops it too and is thrown once the events before it are
 * committed; the dedup keys make a retry replay those and apply the rest.
 */
export class DealEventBatch {
  private readonly ingestion: DealIngestion;

  constructor(ingestion: DealIngestion) {
    this.ingestion = ingestion;
  }

  async ingestAll(request: BatchRequest): Promise<IngestResult[]> {
    const events = request.events.map(({ event }) => event);
    const order = lanesOf(events)
      .map((lane) => ({ lane, first: lane.map((index) => (events[index] as DealEvent).externalId).sort()[0] ?? '' }))
      .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0))
      .flatMap(({ lane }) => lane);
    let auditWritten = false;
    const auditEntry = request.auditEntry;
    // Each event's write reads the key itself (a revoked key comes back as its result); the request's audit entry
    // rides on the first accepted event's statements.
    const guard: WriteGuard | undefined = auditEntry && {
      settle: () => {},
      auditEntry: () => {
        if (auditWritten) return null;
        auditWritten = true;
        return auditEntry();
      },
    };
    const { results, failure } = await this.ingestion.ingestMany(
      order.map((index) => {
        const { event, body } = request.events[index] as BatchEvent;
        return {
          orgId: request.orgId,
          keyId: request.keyId,
          event,
          body,
          rawBody: JSON.stringify(body),
          receivedAt: request.receivedAt,
          ...(guard ? { guard } : {}),
        };
      }),
    );
    if (failure !== undefined) throw failure;
    const answered = new Array<IngestResult>(request.events.length);
    order.forEach((index, position) => {
      answered[index] = results[position] ?? { kind: 'key_revoked' };
    });
    return answered;
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
