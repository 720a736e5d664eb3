import { cutFeedPage } from '../../domain/deals/feed.ts';
import {
  decodeEarningCursor,
  type EarningCursorFilters,
  earningFilterFingerprint,
  encodeEarningCursor,
} from '../../domain/earnings/listCursor.ts';
import { DealRepository } from '../../repositories/deals.ts';
import {
  type EarningListFilters,
  type EarningRecord,
  EarningRepository,
  type EarningWithTrace,
} from '../../repositories/earnings.ts';
import { poolStatements, type SqlPool } from '../../repositories/transaction.ts';

export interface EarningPage {
  earnings: EarningRecord[];
  nextCursor: string | null;
}

export interface EarningPageQuery {
  filters: EarningListFilters;
  limit: number;
  cursor?: string;
}

/**
 * Reading earnings: keyset pages in (created_at, id) order. Rows are stamped when their transaction writes
 * them, so a page stops at the org's feed horizon (as the deals feed does): a row still being written can
 * never appear behind a cursor already handed out.
 */
export class EarningReader {
  readonly #pool: SqlPool;
  readonly #earnings = new EarningRepository();
  readonly #deals: DealRepository;

  constructor(pool: SqlPool) {
    this.#pool = pool;
    this.#deals = new DealRepository(pool);
  }

  /** Throws InvalidCursor for a cursor that is malformed or was issued for other filters or another org. */
  async listPage(orgId: string, query: EarningPageQuery): Promise<EarningPage> {
    const fingerprint = earningFilterFingerprint(orgId, query.filters satisfies EarningCursorFilters);
    const from = query.cursor === undefined ? null : decodeEarningCursor(query.cursor, fingerprint);
    const horizon = await this.#deals.changeHorizon(orgId);
    const rows = await this.#earnings.listAfter(
      poolStatements(this.#pool),
      orgId,
      query.filters,
      from,
      query.limit + 1,
    );
    const page = cutFeedPage(
      rows.map((row) => ({ row, id: row.id, updated_at: row.created_at })),
      { from: from && { updatedAt: from.createdAt, id: from.id }, limit: query.limit, ...horizon },
    );
    return {
      earnings: page.items.map((item) => item.row),
      nextCursor: page.more
        ? encodeEarningCursor(
            page.position && { createdAt: page.position.updatedAt, id: page.position.id },
            fingerprint,
          )
        : null,
    };
  }

  find(orgId: string, id: string): Promise<EarningWithTrace | null> {
    return this.#earnings.findWithTrace(poolStatements(this.#pool), orgId, id);
  }
}
