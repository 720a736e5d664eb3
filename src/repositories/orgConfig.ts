import type { ExchangeRate } from '../domain/earnings/exchange.ts';
import type { PlanState } from './plans.ts';
import { named, type Transaction } from './transaction.ts';

/**
 * What a deal event reads of its org besides the stage lists (which come with the event's first statement): the
 * plans in force and the webhook endpoints, as of `version` (orgs.config_version, bumped by triggers in the
 * transaction of every change to them).
 */
export interface OrgConfig {
  version: number;
  /** Active plans with the version in force, oldest plan first. */
  plansInForce: PlanState[];
  /** Enabled endpoints that are not removed, by id; `events` empty means every kind. */
  endpoints: Array<{ id: string; events: string[] }>;
  /** ISO 4217: the currency of deals and plans that name none. */
  defaultCurrency: string;
  /** Every exchange rate of the org (a few per pair and month at most), for converting deals to plans' currencies. */
  rates: ExchangeRate[];
}

// One statement, so one snapshot: the version and what it stands for are read together.
const LOAD = `
  SELECT o.config_version AS version,
         COALESCE((SELECT json_agg(json_build_object('plan_id', p.id, 'status', p.status,
                                                     'version_id', p.current_version_id)
                                   ORDER BY p.created_at, p.id)
                   FROM plans p
                   WHERE p.org_id = o.id AND p.status = 'active' AND p.current_version_id IS NOT NULL), '[]') AS plans,
         COALESCE((SELECT json_agg(json_build_object('id', w.id, 'events', w.events) ORDER BY w.id)
                   FROM webhook_endpoints w
                   WHERE w.org_id = o.id AND w.enabled AND w.removed_at IS NULL), '[]') AS endpoints,
         o.default_currency,
         COALESCE((SELECT json_agg(json_build_object('from_currency', r.from_currency, 'to_currency', r.to_currency,
                                                     'effective_on', to_char(r.effective_on, 'YYYY-MM-DD'),
                                                     'rate', r.rate)
                                   ORDER BY r.from_currency, r.to_currency, r.effective_on)
                   FROM exchange_rates r WHERE r.org_id = o.id), '[]') AS rates
  FROM orgs o WHERE o.id = $1`;

export async function load(tx: Transaction, orgId: string): Promise<OrgConfig> {
  const rows = await tx.query<{
    version: number;
    plans: PlanState[];
    endpoints: Array<{ id: string; events: string[] }>;
    default_currency: string;
    rates: ExchangeRate[];
  }>(named('org_config_load', { text: LOAD, values: [orgId] }));
  const row = rows[0];
  if (!row) throw new Error(`org ${orgId} does not exist`);
  return {
    version: row.version,
    plansInForce: row.plans,
    endpoints: row.endpoints,
    defaultCurrency: row.default_currency,
    rates: row.rates,
  };
}
