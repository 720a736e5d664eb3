import type { Transaction } from '../../repositories/transaction.ts';
import type { DealChange } from '../dealChanges.ts';
import {
  type AppliedType,
  type ApplySteps,
  applyOpened,
  endOfRun,
  type IngestRequest,
  type IngestResult,
  type PreparedEvents,
  recordEvent,
} from './applyStep.ts';

/** How many events of a batch have their first statements sent together. */
const PIPELINED_EVENTS = 64;

/**
 * A batch's events (sent with a key or a request) in the order given, each through the one apply step: the first
 * statements of up to PIPELINED_EVENTS events of different deals and dedup keys go out together, each event's next
 * ones once its first answered, all in the transaction's order, so a batch costs a few round trips per run of events
 * rather than two per event. A revoked key stops the events (the rest are answered `key_revoked`). Pushes each
 * event's result and returns the changes, in the order applied, for the listener to take at once.
 */
export async function applyPipelined(
  steps: ApplySteps,
  tx: Transaction,
  { requests, dedupKeys, digests, applied }: PreparedEvents,
  results: IngestResult[],
  created: string[],
): Promise<DealChange[]> {
  const changes: Array<Promise<DealChange>> = [];
  for (let start = 0; start < requests.length; ) {
    const end = endOfRun(requests, dedupKeys, start, PIPELINED_EVENTS);
    const recorded = requests.slice(start, end).map((request, offset) => {
      const first = recordEvent(tx, request, dedupKeys[start + offset] as string, digests[start + offset] as string);
      first.opened.catch(() => {});
      return first;
    });
    for (const [offset, { sourceEventId, opened }] of recorded.entries()) {
      const index = start + offset;
      const result = await applyOpened(
        steps,
        tx,
        requests[index] as IngestRequest,
        dedupKeys[index] as string,
        digests[index] as string,
        applied[index] as AppliedType,
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
  return Promise.all(changes);
}
