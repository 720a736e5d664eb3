import { cutFeedPage, type DealListFilters } from '../domain/deals/feed.ts';
import { keysetCursor, keysetFingerprint } from '../domain/lists/keysetCursor.ts';
import { type Viewer, visibleUserIdsOf } from '../domain/viewer.ts';
import type { DealRecord } from '../repositories/deals.ts';
import * as deals from '../repositories/deals.ts';
import type { Transactor } from '../repositories/transaction.ts';
import { feedHorizon } from './feedHorizon.ts';

export interface DealPage {
  deals: DealRecord[];
  nextCursor: string | null;
}

export const DEAL_CURSOR = keysetCursor({ idPrefix: 'deal', timeMember: 'u' });

/** What a deals cursor is bound to: the org and every filter. */
export function dealListFingerprint(orgId: string, filters: DealListFilters): string {
  return keysetFingerprint(orgId, {
    status: filters.status ?? null,
    stage: filters.stage ?? null,
    owner: filters.ownerExternalId ?? null,
    external_id: filters.externalId ?? null,
    updated_since: filters.updatedSince?.toISOString() ?? null,
    include_deleted: filters.includeDeleted,
  });
}

/** Reading deals: keyset pages in (updated_at, id) order that together form a change feed missing nothing. */
export class DealReader {
  private readonly pool: Transactor;

  constructor(pool: Transactor) {
    this.pool = pool;
  }

  /** Refuses (`invalid_body`) a cursor that is malformed or was issued for other filters or another org. */
  async listPage(
    viewer: Viewer,
    query: { filters: DealListFilters; limit: number; cursor?: string },
  ): Promise<DealPage> {
    const { orgId } = viewer;
    const fingerprint = dealListFingerprint(orgId, query.filters);
    const from = query.cursor === undefined ? null : DEAL_CURSOR.decode(query.cursor, fingerprint);
    // The horizon first, the rows in a later statement: see feedHorizon.
    const horizon = await feedHorizon(this.pool, orgId);
    const rows = await deals.listAfter(
      this.pool.statements,
      orgId,
      query.filters,
      from,
      query.limit + 1,
      visibleUserIdsOf(viewer),
    );
    const page = cutFeedPage(rows, { from, limit: query.limit, ...horizon });
    return {
      deals: page.items,
      nextCursor: page.more ? DEAL_CURSOR.encode(page.position, fingerprint) : null,
    };
  }
}
