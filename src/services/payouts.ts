import type { components } from '../../generated/openapi.ts';
import { decodeKeysetCursor, encodeKeysetCursor, keysetFingerprint } from '../domain/lists/keysetCursor.ts';
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
    currency: row.currency,
    approved_cents: row.approved_cents,
    paid_cents: row.paid_cents,
    clawback_cents: row.clawback_cents,
    total_cents: row.approved_cents + row.paid_cents,
  };
}

const EXPORT_PAGE = 500;

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
    const from = query.cursor === undefined ? null : decodeKeysetCursor(query.cursor, fingerprint, 'user');
    const rows = await this.#reports.payoutsAfter(this.#tx, orgId, periodId, from, query.limit + 1);
    // `limit` counts reps; a rep paid in several currencies has a payout per currency, all on one page.
    const reps = [...new Set(rows.map((row) => row.user_id))];
    const kept = new Set(reps.slice(0, query.limit));
    const page = rows.filter((row) => kept.has(row.user_id));
    const last = page.at(-1);
    return {
      period,
      payouts: page.map(toWirePayout),
      nextCursor:
        reps.length > query.limit && last
          ? encodeKeysetCursor({ at: last.user_created_at, id: last.user_id }, fingerprint)
          : null,
    };
  }

  /** Every payout of the period, for an export. */
  async all(orgId: string, periodId: string): Promise<{ period: PeriodRow; payouts: Payout[] }> {
    const period = await this.#lockedPeriod(orgId, periodId);
    const payouts: Payout[] = [];
    let position: { at: Date; id: string } | null = null;
    for (;;) {
      const rows = await this.#reports.payoutsAfter(this.#tx, orgId, periodId, position, EXPORT_PAGE);
      payouts.push(...rows.map(toWirePayout));
      const last = rows.at(-1);
      if (new Set(rows.map((row) => row.user_id)).size < EXPORT_PAGE || !last) return { period, payouts };
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
