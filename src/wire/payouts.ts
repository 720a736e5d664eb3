import type { components } from '../../generated/openapi.ts';
import type { PayoutRow } from '../repositories/earnings.ts';

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
  };
}
