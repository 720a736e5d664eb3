import type { components } from '../../generated/openapi.ts';
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
 * The payroll file (`quotient periods export`, `GET /admin/v1/periods/{id}/payroll-export`), RFC 4180: a header,
 * one row per rep and currency; a field with a comma, quote or line break is quoted.
 */
export function payoutsCsv(payouts: ReadonlyArray<Record<(typeof PAYOUT_COLUMNS)[number], string | number>>): string {
  const field = (value: string | number) => {
    const text = String(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [
    PAYOUT_COLUMNS.join(','),
    ...payouts.map((payout) => PAYOUT_COLUMNS.map((column) => field(payout[column])).join(',')),
  ].join('\n');
}
