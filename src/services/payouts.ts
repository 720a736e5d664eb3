import type { components } from '../../generated/openapi.ts';
import { type KeysetPosition, keysetCursor, keysetFingerprint } from '../domain/lists/keysetCursor.ts';
import { LedgerReportRepository, type PayoutRow, type PeriodRow } from '../repositories/ledgerReports.ts';
import type { Transaction } from '../repositories/transaction.ts';

type Payout = components['schemas']['Payout'];

/** Why payouts cannot be listed: the org has no such period, or it is still open. */
export class PayoutsUnavailable extends Error {
  readonly code: 'not_found' | 'period_open';

  constructor(code: 'not_found' | 'period_open', message: string) {
    super(message);
    this.name = 'PayoutsUnavailable';
    this.code = code;
  }
}

export interface PayoutPage {
  period: PeriodRow;
  payouts: Payout[];
  nextCursor: string | null;
}

/** The contract's payout: one rep's sums, with the total payroll pays. */
export function toWirePayout(row: PayoutRow): Payout {
  return {
    user_id: row.user_id,
    user_external_id: row.user_external_id,
    approved_cents: row.approved_cents,
    paid_cents: row.paid_cents,
    clawback_cents: row.clawback_cents,
    total_cents: row.approved_cents + row.paid_cents,
  };
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
  readonly #reports = new LedgerReportRepository();

  /** `tx` runs single read statements: the pool's for the API, Prisma's for the CLI. */
  constructor(tx: Transaction) {
    this.#tx = tx;
  }

  /** Throws PayoutsUnavailable for an unknown or open period, InvalidCursor for a bad cursor. */
  async page(orgId: string, periodId: string, query: { limit: number; cursor?: string }): Promise<PayoutPage> {
    const period = await this.#lockedPeriod(orgId, periodId);
    const fingerprint = keysetFingerprint(orgId, { payouts_of: periodId });
    const from = query.cursor === undefined ? null : PAYOUT_CURSOR.decode(query.cursor, fingerprint);
    const rows = await this.#reports.payoutsAfter(this.#tx, orgId, periodId, from, query.limit + 1);
    const page = PAYOUT_CURSOR.page(rows, query.limit, fingerprint, (row) => ({
      at: row.user_created_at,
      id: row.user_id,
    }));
    return { period, payouts: page.items.map(toWirePayout), nextCursor: page.nextCursor };
  }

  /** Every payout of the period, for an export. */
  async all(orgId: string, periodId: string): Promise<{ period: PeriodRow; payouts: Payout[] }> {
    const period = await this.#lockedPeriod(orgId, periodId);
    const payouts: Payout[] = [];
    let position: KeysetPosition = null;
    for (;;) {
      const rows = await this.#reports.payoutsAfter(this.#tx, orgId, periodId, position, EXPORT_PAGE);
      payouts.push(...rows.map(toWirePayout));
      const last = rows.at(-1);
      if (rows.length < EXPORT_PAGE || !last) return { period, payouts };
      position = { at: last.user_created_at, id: last.user_id };
    }
  }

  async #lockedPeriod(orgId: string, periodId: string): Promise<PeriodRow> {
    const period = await this.#reports.findPeriod(this.#tx, orgId, periodId);
    if (!period) throw new PayoutsUnavailable('not_found', `no period ${periodId}`);
    if (period.status === 'open') {
      throw new PayoutsUnavailable(
        'period_open',
        `period ${periodId} is open: payouts exist once an admin has locked it`,
      );
    }
    return period;
  }
}
