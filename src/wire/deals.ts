import type { components } from '../../generated/openapi.ts';
import type { DealRecord } from '../repositories/deals.ts';

type Deal = components['schemas']['Deal'];

/**
 * Allow-lists the wire fields of a deal; internal columns (won_at, last_occurred_at, org_id, the user ids of
 * split reps) stay inside.
 */
export function toWireDeal(deal: DealRecord): Deal {
  return {
    id: deal.id,
    external_id: deal.external_id,
    state: {
      amount_cents: deal.state.amount_cents,
      stage: deal.state.stage,
      close_date: deal.state.close_date,
      owner_external_id: deal.state.owner_external_id,
      custom: deal.state.custom,
    },
    splits:
      deal.splits === null
        ? null
        : deal.splits.map(({ owner_external_id, share_bps }) => ({ owner_external_id, share_bps })),
    currency: deal.currency,
    status: deal.status,
    user_id: deal.user_id,
    version: deal.version,
    last_domain_event_id: deal.last_domain_event_id as string,
    created_at: deal.created_at.toISOString(),
    updated_at: deal.updated_at.toISOString(),
  };
}
