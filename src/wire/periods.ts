import type { components } from '../../generated/openapi.ts';
import type { components as admin } from '../../generated/openapi-admin.ts';
import type { PeriodTotal } from '../repositories/earningsOverview.ts';
import type { PeriodRecord } from '../repositories/periods.ts';

// A period on the wire. The webhooks' period names the period and its status; the admin API's adds when it was
// locked and paid (what `quotient periods` prints) and its totals per status.

export type WirePeriod = components['schemas']['Period'];
export type WireAdminPeriod = admin['schemas']['Period'];
export type WirePeriodWithTimes = Omit<WireAdminPeriod, 'totals'>;

/** The period of `period.locked` and `period.paid`: the lock and payment times stay inside. */
export function toWirePeriod(period: PeriodRecord): WirePeriod {
  return {
    id: period.id,
    kind: period.kind,
    starts_on: period.starts_on,
    ends_on: period.ends_on,
    status: period.status,
  };
}

/** The period with when it was locked and paid, as `quotient periods` prints it. */
export function toWirePeriodWithTimes(period: PeriodRecord): WirePeriodWithTimes {
  return {
    ...toWirePeriod(period),
    locked_at: period.locked_at?.toISOString() ?? null,
    paid_at: period.paid_at?.toISOString() ?? null,
    reopened_at: period.reopened_at?.toISOString() ?? null,
  };
}

/** The admin API's period, with the count and sum of its standing rows per status. */
export function toWireAdminPeriod(period: PeriodRecord, totals: readonly PeriodTotal[]): WireAdminPeriod {
  return {
    ...toWirePeriodWithTimes(period),
    totals: totals.map((total) => ({
      status: total.status as WireAdminPeriod['totals'][number]['status'],
      rows: total.rows,
      amount_cents: total.amount_cents,
    })),
  };
}
