import type { components } from '../../generated/openapi.ts';
import type { PaymentRecord } from '../repositories/payments.ts';

export type WirePayment = components['schemas']['Payment'];

/** The contract's payment (`POST`, `GET` and `DELETE /v1/payments`). */
export function toWirePayment(record: PaymentRecord): WirePayment {
  return {
    id: record.id,
    external_id: record.external_id,
    deal_id: record.deal_id,
    deal_external_id: record.deal_external_id,
    amount_cents: Number(record.amount_cents),
    currency: record.currency,
    received_on: record.received_on,
    status: record.voided_at === null ? 'recorded' : 'voided',
    voided_at: record.voided_at === null ? null : new Date(record.voided_at).toISOString(),
    created_at: new Date(record.created_at).toISOString(),
  };
}
