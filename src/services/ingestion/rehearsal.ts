import type { DealEvent } from '../../domain/deals/event.ts';
import { canonicalDigest } from '../../domain/json.ts';
import type { Transaction, Transactor } from '../../repositories/transaction.ts';
import { type ApplySteps, applyAlone, type EventIds, generatedDedupKey } from './applyStep.ts';

/**
 * Rehearses one event: `work` runs in a transaction that is always rolled back, and may apply the event there
 * (once), exactly as a single event is applied, with a fresh dedup key, the listener (the earnings engine)
 * included. It sees everything the event writes; nothing of it is kept.
 */
export function rehearseEvent<T>(
  steps: ApplySteps,
  pool: Transactor,
  orgId: string,
  keyId: string | null,
  work: (tx: Transaction, apply: (event: DealEvent, body: unknown) => Promise<EventIds>) => Promise<T>,
): Promise<T> {
  return pool.rehearse((tx) =>
    work(tx, async (event, body) => {
      const receivedAt = new Date();
      const request = { orgId, keyId, event, body, rawBody: JSON.stringify(body), receivedAt };
      const dedupKey = generatedDedupKey(event.externalId, receivedAt);
      // Rolled back, so not counted as ingested.
      const result = await applyAlone(steps, tx, request, dedupKey, canonicalDigest(body), {});
      if (result.kind !== 'accepted') throw new Error(`a rehearsed event of org ${orgId} was not applied`);
      return result.ids;
    }),
  );
}
