import type { components } from '../../generated/openapi.ts';
import { csvFile } from '../domain/csvFile.ts';
import type { PayoutRow } from '../repositories/payoutSums.ts';

export type Payout = components['schemas']['Payout'];

/** The contract's payout: one rep's sums, with the total payroll pays. */
export function toWirePayout(row: PayoutRow): Payout {
  return {
    user_id: row.user_id,
    user_external_id: row.user_external_id,
    currency: row.currency,
    approved_cents: row.approved_cents,
    paid_cents: row.paid_cents,
    clawback_cents: row.clawback_cents,
    draw_cents: row.draw_cents,
    adjustment_cents: row.adjustment_cents,
    total_cents: row.approved_cents + row.paid_cents,
    held_pending_acceptance_cents: row.held_pending_acceptance_cents,
  };
}

const PAYOUT_COLUMNS = [
  'user_id',
  'user_external_id',
  'currency',
  'approved_cents',
  'paid_cents',
  'clawback_cents',
  'draw_cents',
  'adjustment_cents',
  'total_cents',
  // Last, so a payroll import reading columns by position is not shifted: not paid, and not in total_cents.
  'held_pending_acceptance_cents',
] as const;

/**
 * The payroll file (`quotient periods export`, `GET /admin/v1/periods/{id}/payroll-export`; csvFile.ts): a header,
 * one row per rep and currency.
 */
export function payoutsCsv(payouts: ReadonlyArray<Record<(typeof PAYOUT_COLUMNS)[number], string | number>>): string {
  return csvFile(
    PAYOUT_COLUMNS,
    payouts.map((payout) => PAYOUT_COLUMNS.map((column) => payout[column])),
  );
}
