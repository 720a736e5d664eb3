import { cutFeedPage } from '../../domain/deals/feed.ts';
import { keysetCursor, keysetFingerprint } from '../../domain/lists/keysetCursor.ts';
import { type Viewer, visibleUserIdsOf } from '../../domain/viewer.ts';
import type { EarningRecord, EarningWithTrace } from '../../repositories/earnings.ts';
import type { EarningListFilters } from '../../repositories/earningsList.ts';
import * as earningsList from '../../repositories/earningsList.ts';
import type { Transactor } from '../../repositories/transaction.ts';
import { feedHorizon } from '../feedHorizon.ts';
import { withServedTraces } from './servedTraces.ts';

export interface EarningPage {
  earnings: EarningRecord[];
  nextCursor: string | null;
}

export interface EarningPageQuery {
  filters: EarningListFilters;
  limit: number;
  cursor?: string;
}

export const EARNING_CURSOR = keysetCursor({ idPrefix: 'earn', timeMember: 'c' });

/** What an earnings cursor is bound to: the org and every filter. */
export function earningListFingerprint(orgId: string, filters: EarningListFilters): string {
  return keysetFingerprint(orgId, {
    user_id: filters.userId ?? null,
    period_id: filters.periodId ?? null,
    deal_id: filters.dealId ?? null,
    plan_id: filters.planId ?? null,
    // The same statuses in another order or repeated select the same rows.
    status: filters.statuses ? [...new Set(filters.statuses)].sort() : null,
    created_since: filters.createdSince?.toISOString() ?? null,
    // Only when given, so that cursors issued before this filter existed stay valid.
    ...(filters.userExternalId === undefined ? {} : { user_external_id: filters.userExternalId }),
  });
}

/**
 * Reading earnings: keyset pages in (created_at, id) order. Rows are stamped when their transaction writes
 * them, so a page stops at the org's feed horizon (as the deals feed does): a row still being written can
 * never appear behind a cursor already handed out.
 */
export class EarningReader {
  readonly #pool: Transactor;

  constructor(pool: Transactor) {
    this.#pool = pool;
  }

  /** Refuses (`invalid_body`) a cursor that is malformed or was issued for other filters or another org. */
  async listPage(viewer: Viewer, query: EarningPageQuery): Promise<EarningPage> {
    const { orgId } = viewer;
    const fingerprint = earningListFingerprint(orgId, query.filters);
    const from = query.cursor === undefined ? null : EARNING_CURSOR.decode(query.cursor, fingerprint);
    const horizon = await feedHorizon(this.#pool, orgId);
    const rows = await earningsList.listAfter(
      this.#pool.statements,
      orgId,
      query.filters,
      from,
      query.limit + 1,
      visibleUserIdsOf(viewer),
    );
    const page = cutFeedPage(
      rows.map((row) => ({ row, id: row.id, updated_at: row.created_at })),
      { from, limit: query.limit, ...horizon },
    );
    return {
      earnings: page.items.map((item) => item.row),
      nextCursor: page.more ? EARNING_CURSOR.encode(page.position, fingerprint) : null,
    };
  }

  /** Null when the viewer's org has no such row or the viewer may not see it. */
  async find(viewer: Viewer, id: string): Promise<EarningWithTrace | null> {
    const tx = this.#pool.statements;
    const row = await earningsList.findWithTrace(tx, viewer.orgId, id, visibleUserIdsOf(viewer));
    if (!row) return null;
    const [served] = await withServedTraces(tx, viewer.orgId, [row]);
    return served ?? null;
  }
}
