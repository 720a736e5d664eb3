import type { KeysetPosition } from '../lists/keysetCursor.ts';

// One page of the deals change feed. Rows come in (updated_at, id) order, one more than the limit, read after
// the horizon was taken. Only rows updated strictly before the horizon are safe to hand out: a transaction
// still in progress can commit a row stamped at or after the horizon, never before it. So the page stops at
// the horizon, and the cursor stays open while something may still appear behind it.

export const DEAL_LIST_STATUSES = ['open', 'won', 'lost', 'deleted'] as const;

/** The filters of GET /v1/deals; a cursor is valid only with the filters it was issued for. */
export interface DealListFilters {
  status?: (typeof DEAL_LIST_STATUSES)[number];
  stage?: string;
  ownerExternalId?: string;
  externalId?: string;
  updatedSince?: Date;
  includeDeleted: boolean;
}

export interface FeedRow {
  id: string;
  updated_at: Date;
}

export interface FeedPage<Row extends FeedRow> {
  items: Row[];
  /** Where the next page starts: the last item, or where this page started when it is empty. */
  position: KeysetPosition;
  /** More rows exist or may still appear: hand out a cursor. */
  more: boolean;
}

export function cutFeedPage<Row extends FeedRow>(
  rows: readonly Row[],
  options: { from: KeysetPosition; limit: number; horizon: Date; writesInFlight: boolean },
): FeedPage<Row> {
  const settled = rows.filter((row) => row.updated_at.getTime() < options.horizon.getTime());
  const items = settled.slice(0, options.limit);
  const last = items.at(-1);
  return {
    items,
    position: last ? { at: last.updated_at, id: last.id } : options.from,
    more: rows.length > items.length || options.writesInFlight,
  };
}
