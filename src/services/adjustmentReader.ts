import { keysetCursor, keysetFingerprint } from '../domain/lists/keysetCursor.ts';
import { type Viewer, visibleUserIdsOf } from '../domain/viewer.ts';
import type { AdjustmentFilters, AdjustmentRecord } from '../repositories/adjustments.ts';
import * as adjustments from '../repositories/adjustments.ts';
import type { Transaction } from '../repositories/transaction.ts';

// Reading adjustments: keyset pages in (created_at, id) order, for integrators (`GET /v1/adjustments`) and admins.

export interface AdjustmentPage {
  adjustments: AdjustmentRecord[];
  nextCursor: string | null;
}

export const ADJUSTMENT_CURSOR = keysetCursor({ idPrefix: 'adj', timeMember: 'c' });

/** Reading adjustments for integrators (`GET /v1/adjustments`): keyset pages in (created_at, id) order. */
export class AdjustmentReader {
  readonly #tx: Transaction;

  constructor(tx: Transaction) {
    this.#tx = tx;
  }

  /** The adjustments the viewer may see: an API key's whole org, a rep token's rep and their reports. */
  listPage(
    viewer: Viewer,
    query: { filters: AdjustmentFilters; limit: number; cursor?: string },
  ): Promise<AdjustmentPage> {
    return adjustmentPage(this.#tx, viewer.orgId, query, visibleUserIdsOf(viewer));
  }
}

export async function adjustmentPage(
  tx: Transaction,
  orgId: string,
  query: { filters: AdjustmentFilters; limit: number; cursor?: string },
  visibleUserIds: readonly string[] | null = null,
): Promise<AdjustmentPage> {
  const { filters } = query;
  const fingerprint = keysetFingerprint(orgId, {
    period_id: filters.periodId ?? null,
    user_id: filters.userId ?? null,
    user_external_id: filters.userExternalId ?? null,
    category: filters.category ?? null,
  });
  const from = query.cursor === undefined ? null : ADJUSTMENT_CURSOR.decode(query.cursor, fingerprint);
  const rows = await adjustments.listAfter(tx, orgId, filters, from, query.limit + 1, visibleUserIds);
  const page = ADJUSTMENT_CURSOR.page(rows, query.limit, fingerprint, (row) => ({ at: row.created_at, id: row.id }));
  return { adjustments: page.items, nextCursor: page.nextCursor };
}
