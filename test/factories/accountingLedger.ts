import type { QuotientClient } from '../../sdk/src/index.ts';
import type { Database } from '../../src/db/prisma.ts';
import { testServices } from '../helpers/services.ts';
import { applyPlan } from './plans.ts';

// Earnings booked and locked through the real pipeline, for the accounting integration tests.

/**
 * A 36-month deal won on 2026-01-15 on a 10% plan `core-ae` (a commission of 3,600.00), with January locked; the
 * plan and the deal in `currency` when given, else the org's.
 */
export async function commissionLockedInJanuary(
  db: Database,
  orgId: string,
  client: QuotientClient,
  currency?: string,
): Promise<void> {
  await applyPlan(db, orgId, {
    ...(currency === undefined ? {} : { currency }),
    key: 'core-ae',
    name: 'Core AE',
    period: 'monthly',
    assignees: 'all',
    chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }],
  });
  await client.deals.ingestEvent({
    external_id: 'opp-1',
    ...(currency === undefined ? {} : { currency }),
    state: {
      amount_cents: 3_600_000,
      stage: 'closed_won',
      close_date: '2026-01-15',
      owner_external_id: 'rep-1',
      custom: { contract_months: 36 },
    },
  });
  await testServices({ db }).admin.periods.lock(orgId, '2026-01');
}
