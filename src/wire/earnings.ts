import type { components } from '../../generated/openapi.ts';
import type { EarningRecord } from '../repositories/earnings.ts';

export type WireEarning = components['schemas']['EarningListItem'];

/** The contract's earning list item: an allow-list of the row's fields, amounts as numbers, times in ms. */
export function toWireEarning(earning: EarningRecord): WireEarning {
  return {
    id: earning.id,
    user_id: earning.user_id,
    user_external_id: earning.user_external_id,
    period_id: earning.period_id,
    deal_id: earning.deal_id,
    plan_id: earning.plan_id,
    plan_version_id: earning.plan_version_id,
    rule_chip_id: earning.rule_chip_id,
    rule_version: earning.rule_version,
    amount_cents: earning.amount_cents,
    status: earning.status,
    supersedes_id: earning.supersedes_id,
    status_reason: earning.status_reason,
    triggering_domain_event_id: earning.triggering_domain_event_id,
    created_at: earning.created_at.toISOString(),
  };
}
