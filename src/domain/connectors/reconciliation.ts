import type { DealEvent, DealSplit } from '../deals/event.ts';
import { type DealState, type DealStatus, mergeState } from '../deals/projection.ts';
import { jsonEquals } from '../json.ts';

// What a reconciliation poll's read of a CRM record means for the deal Quotient has: nothing (the live channel
// brought it already, or something newer), a repair (the record says what the deal does not), or only new splits
// (which no live channel carries). Pure: the caller reads the deal and applies the event.

/** The deal as it stands, as far as a comparison needs it. */
export interface StandingDeal {
  state: DealState;
  status: DealStatus;
  currency: string;
  splits: readonly DealSplit[] | null;
  last_occurred_at: Date | null;
}

export type Reconciled = 'unchanged' | 'stale' | 'repair' | 'splits';

function sortedSplits(splits: readonly DealSplit[] | null): Array<{ owner_external_id: string; share_bps: number }> {
  return [...(splits ?? [])]
    .map(({ owner_external_id, share_bps }) => ({ owner_external_id, share_bps }))
    .sort((a, b) =>
      a.owner_external_id < b.owner_external_id ? -1 : a.owner_external_id > b.owner_external_id ? 1 : 0,
    );
}

/**
 * The event read by the poll against the deal: `stale` when the deal has a newer change, `unchanged` when it would
 * change nothing, `repair` when a field other than the splits differs (or there is no deal: a creation missed),
 * `splits` when only the splits do.
 */
export function reconcile(standing: StandingDeal | null, event: DealEvent): Reconciled {
  if (standing === null) return event.eventType === 'delete' ? 'unchanged' : 'repair';
  const at = event.occurredAt;
  if (standing.last_occurred_at && at && at.getTime() < standing.last_occurred_at.getTime()) return 'stale';
  if (event.eventType === 'delete') return standing.status === 'deleted' ? 'unchanged' : 'repair';
  if (standing.status === 'deleted') return 'repair';
  const merged = mergeState(standing.state, event.patch);
  const stateChanged = !jsonEquals(merged as never, standing.state as never);
  const currencyChanged = event.currency !== undefined && event.currency !== standing.currency;
  if (stateChanged || currencyChanged) return 'repair';
  if (event.splits === undefined) return 'unchanged';
  return jsonEquals(sortedSplits(event.splits) as never, sortedSplits(standing.splits) as never)
    ? 'unchanged'
    : 'splits';
}
