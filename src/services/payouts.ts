import { type KeysetPosition, keysetCursor, keysetFingerprint } from '../domain/lists/keysetCursor.ts';
import { Refusal } from '../domain/refusal.ts';
import { type Viewer, visibleUserIdsOf } from '../domain/viewer.ts';
import type { PayoutRow } from '../repositories/payoutSums.ts';
import * as payoutSums from '../repositories/payoutSums.ts';
import type { PeriodSummary } from '../repositories/periods.ts';
import * as periods from '../repositories/periods.ts';
import type { Transaction } from '../repositories/transaction.ts';
import { type Payout, toWirePayout } from '../wire/payouts.ts';

export interface PayoutPage {
  period: PeriodSummary;
  payouts: Payout[];
  nextCursor: string | null;
}

const EXPORT_PAGE = 500;

/** Payouts are one per rep, in the reps' (created_at, id) order. */
export const PAYOUT_CURSOR = keysetCursor({ idPrefix: 'user', timeMember: 'c' });

/**
 * Payouts of a locked period for payroll, one per rep: the API's `GET /v1/payouts` pages and the CLI's
 * `periods export` read the same sums through the same statement.
 */
export class PayoutReader {
  readonly #tx: Transaction;

  /** `tx` runs single read statements: the pool's for the API, Prisma's for the CLI. */
  constructor(tx: Transaction) {
    this.#tx = tx;
  }

  /** Refuses an unknown period (`not_found`), an open one (`period_open`) and a bad cursor (`invalid_body`). */
  /** A rep principal's page holds only the payouts of the reps they may see. */
  async page(viewer: Viewer, periodId: string, query: { limit: number; cursor?: string }): Promise<PayoutPage> {
    const { orgId } = viewer;
    const period = await this.#lockedPeriod(orgId, periodId);
    const fingerprint = keysetFingerprint(orgId, { payouts_of: periodId });
    const from = query.cursor === undefined ? null : PAYOUT_CURSOR.decode(query.cursor, fingerprint);
    const rows = await payoutSums.payoutsAfter(
      this.#tx,
      orgId,
      periodId,
      from,
      query.limit + 1,
      visibleUserIdsOf(viewer),
    );
    // `limit` counts reps; a rep paid in several currencies has a payout per currency, all on one page.
    const page = PAYOUT_CURSOR.page(byRep(rows), query.limit, fingerprint, (rep) => ({
      at: rep.user_created_at,
      id: rep.user_id,
    }));
    return { period, payouts: page.items.flatMap((rep) => rep.rows.map(toWirePayout)), nextCursor: page.nextCursor };
  }

  /** Every payout of the period, for an export. */
  async all(orgId: string, periodId: string): Promise<{ period: PeriodSummary; payouts: Payout[] }> {
    const period = await this.#lockedPeriod(orgId, periodId);
    const payouts: Payout[] = [];
    let position: KeysetPosition = null;
    for (;;) {
      const rows = await payoutSums.payoutsAfter(this.#tx, orgId, periodId, position, EXPORT_PAGE);
      payouts.push(...rows.map(toWirePayout));
      const last = rows.at(-1);
      if (new Set(rows.map((row) => row.user_id)).size < EXPORT_PAGE || !last) return { period, payouts };
      position = { at: last.user_created_at, id: last.user_id };
    }
  }

  async #lockedPeriod(orgId: string, periodId: string): Promise<PeriodSummary> {
    const period = await periods.findSummary(this.#tx, orgId, periodId);
    if (!period) throw new Refusal('not_found', `no period ${periodId}`);
    if (period.status === 'open') {
      throw new Refusal('period_open', `period ${periodId} is open: payouts exist once an admin has locked it`);
    }
    return period;
  }
}

/** The rows of each rep together (they come ordered by rep), in that order. */
function byRep(rows: readonly PayoutRow[]): Array<{ user_id: string; user_created_at: Date; rows: PayoutRow[] }> {
  const reps: Array<{ user_id: string; user_created_at: Date; rows: PayoutRow[] }> = [];
  for (const row of rows) {
    const last = reps.at(-1);
    if (last?.user_id === row.user_id) last.rows.push(row);
    else reps.push({ user_id: row.user_id, user_created_at: row.user_created_at, rows: [row] });
  }
  return reps;
}
