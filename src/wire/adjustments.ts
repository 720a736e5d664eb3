import type { components } from '../../generated/openapi.ts';
import type { components as AdminSchemas } from '../../generated/openapi-admin.ts';
import type { AdjustmentRecord } from '../repositories/adjustments.ts';

export type WireAdjustment = components['schemas']['Adjustment'];
export type WireAdminAdjustment = AdminSchemas['schemas']['AdminAdjustment'];

const STATUS_OF_PERIOD = { open: 'pending', locked: 'approved', paid: 'paid' } as const;

/** The contract's adjustment (`GET /v1/adjustments`, statements, the `adjustment.created` webhook). */
export function toWireAdjustment(record: AdjustmentRecord): WireAdjustment {
  return {
    id: record.id,
    user_id: record.user_id,
    user_external_id: record.user_external_id,
    period_id: record.period_id,
    amount_cents: record.amount_cents,
    currency: record.currency,
    category: record.category,
    reason: record.reason,
    deal_id: record.deal_id,
    status: STATUS_OF_PERIOD[record.period_status],
    voids_id: record.voids_id,
    voided_by_id: record.voided_by_id,
    created_by: { type: record.created_by_type, name: record.created_by },
    created_at: record.created_at.toISOString(),
    counts_toward_attainment: record.counts_toward_attainment,
  };
}

/** The admin API's adjustment: the public one, with the admin's id and the idempotency key. */
export function toWireAdminAdjustment(record: AdjustmentRecord): WireAdminAdjustment {
  const wire = toWireAdjustment(record);
  return {
    ...wire,
    created_by: { ...wire.created_by, admin_id: record.created_by_id },
    idempotency_key: record.idempotency_key,
  };
}
