import type { StoredTrace } from '../domain/earnings/storedTrace.ts';
import type { EarningStatus } from '../domain/earnings/types.ts';
import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import {
  type EarningRecord,
  type EarningWithStoredTrace,
  type RecordRow,
  toRecord,
  wireColumnsOf,
} from './earnings.ts';
import { named, statementParameters, type Transaction } from './transaction.ts';
import { repIdByExternalId, repRanges } from './users.ts';

// The API's reads of the earnings rows: a page of the list after a keyset position, and one row with its trace.

export interface EarningListFilters {
  userId?: string;
  userExternalId?: string;
  periodId?: string;
  dealId?: string;
  planId?: string;
  statuses?: EarningStatus[];
  createdSince?: Date;
}
/**
 * Up to `limit` rows after `position` in (created_at, id) order with every filter applied. The text names
 * only the filters given, so that a generic plan still picks a fitting index: each filter has an index that returns
 * its rows in (created_at, id) order (docs/query-plans.md), so a page reads about as many rows as it returns. A rep
 * named by external id is looked up once (the rep index then serves it); several statuses are read one status at a
 * time, each from its own ordered range, and merged (so are a rep token's reps); the reps' external ids are read
 * for the page's rows only.
 */
export async function listAfter(
  tx: Transaction,
  orgId: string,
  filters: EarningListFilters,
  position: KeysetPosition,
  limit: number,
  visibleUserIds: readonly string[] | null = null,
): Promise<EarningRecord[]> {
  const { values, param } = statementParameters();
  const org = param(orgId);
  const where = [`e.org_id = ${org}`];
  // A rep token sees its rep and their reports: without a rep filter, each one's rows are a range of their own,
  // merged like the statuses' (a filter on the whole org's rows would read the org's history to fill a page).
  const byRep = repRanges(visibleUserIds, filters.userId !== undefined || filters.userExternalId !== undefined);
  if (byRep.length === 0) return [];
  if (visibleUserIds !== null && byRep[0] === undefined) {
    where.push(`e.user_id = ANY(${param(visibleUserIds)}::text[])`);
  }
  if (filters.userId !== undefined) where.push(`e.user_id = ${param(filters.userId)}`);
  if (filters.userExternalId !== undefined) {
    where.push(`e.user_id = ${repIdByExternalId(org, param(filters.userExternalId))}`);
  }
  if (filters.periodId !== undefined) where.push(`e.period_id = ${param(filters.periodId)}`);
  if (filters.dealId !== undefined) where.push(`e.deal_id = ${param(filters.dealId)}`);
  if (filters.planId !== undefined) where.push(`e.plan_id = ${param(filters.planId)}`);
  if (filters.createdSince !== undefined) where.push(`e.created_at >= ${param(filters.createdSince)}::timestamptz`);
  if (position) {
    where.push(`(e.created_at, e.id) > (${param(position.at)}::timestamptz, ${param(position.id)})`);
  }
  const statuses = filters.statuses === undefined ? [undefined] : [...new Set(filters.statuses)];
  const max = param(limit);
  const ranges = byRep.flatMap((userId) => {
    const rep = userId === undefined ? [] : [`e.user_id = ${param(userId)}`];
    return statuses.map(
      (status) =>
        `(SELECT e.* FROM earnings e
          WHERE ${[...where, ...rep, ...(status === undefined ? [] : [`e.status = ${param(status)}`])].join(' AND ')}
          ORDER BY e.created_at, e.id LIMIT ${max})`,
    );
  });
  const rows = await tx.query<RecordRow>({
    text: `SELECT ${wireColumnsOf(org)} FROM (${ranges.join(' UNION ALL ')}) e
           ORDER BY e.created_at, e.id LIMIT ${max}`,
    values,
  });
  return rows.map(toRecord);
}

/**
 * One row with its trace as stored; null when the org has no such row, or when it is not of one of `visibleUserIds` (null:
 * any rep's).
 */
export async function findWithTrace(
  tx: Transaction,
  orgId: string,
  id: string,
  visibleUserIds: readonly string[] | null = null,
): Promise<EarningWithStoredTrace | null> {
  const { values, param } = statementParameters(orgId, id);
  const visible = visibleUserIds === null ? '' : ` AND e.user_id = ANY(${param(visibleUserIds)}::text[])`;
  const rows = await tx.query<RecordRow & { trace: StoredTrace }>(
    named(visibleUserIds === null ? 'earnings_find_with_trace' : 'earnings_find_visible_with_trace', {
      text: `SELECT ${wireColumnsOf('$1')}, e.trace FROM earnings e WHERE e.org_id = $1 AND e.id = $2${visible}`,
      values,
    }),
  );
  const row = rows[0];
  return row ? { ...toRecord(row), trace: row.trace } : null;
}
