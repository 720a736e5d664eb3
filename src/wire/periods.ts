import type { components } from '../../generated/openapi.ts';
import type { components as admin } from '../../generated/openapi-admin.ts';
import type { PeriodTotal } from '../repositories/earningsOverview.ts';
import type { PeriodRecord } from '../repositories/periods.ts';

// A period on the wire. The webhooks' period names the period and its status; the admin API's adds when it was
// locked and paid (what `quotient periods` prints) and its totals per status.

export type WirePeriod = components['schemas']['Period'];
export type WireAdminPeriod = admin['schemas']['Period'];
export type WirePeriodWithTimes = Omit<
  WireAdminPeriod,
  'totals' | 'adjustments' | 'payable' | 'payment_request' | 'reopen_request'
>;

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

/** What the admin API's period carries besides the period: its totals and its four-eyes requests. */
export interface PeriodFigures {
  totals: readonly PeriodTotal[];
  /** The period's manual adjustments per currency. */
  adjustments: ReadonlyArray<{ currency: string; count: number; amount_cents: number }>;
  payment_request: { requested_by: string; requested_at: Date } | null;
  reopen_request: { reason: string; requested_by: string; requested_at: Date } | null;
}

const NO_FIGURES: PeriodFigures = { totals: [], adjustments: [], payment_request: null, reopen_request: null };

/**
 * The admin API's period, with the count and sum of its standing rows per status and currency, of its manual
 * adjustments per currency, and what it pays per currency: rows that pay (pending, approved, paid) and adjustments,
 * which is what its payroll file adds up to once it is locked; and the four-eyes requests waiting for a second admin.
 */
export function toWireAdminPeriod(period: PeriodRecord, figures: PeriodFigures = NO_FIGURES): WireAdminPeriod {
  const { totals, adjustments, payment_request, reopen_request } = figures;
  const payable = new Map<string, number>();
  const add = (currency: string, cents: number) => payable.set(currency, (payable.get(currency) ?? 0) + cents);
  for (const total of totals) if (total.status !== 'projected') add(total.currency, total.amount_cents);
  for (const total of adjustments) add(total.currency, total.amount_cents);
  return {
    ...toWirePeriodWithTimes(period),
    totals: totals.map((total) => ({
      status: total.status as WireAdminPeriod['totals'][number]['status'],
      currency: total.currency,
      rows: total.rows,
      amount_cents: total.amount_cents,
    })),
    adjustments: adjustments.map((total) => ({
      currency: total.currency,
      count: total.count,
      amount_cents: total.amount_cents,
    })),
    payable: [...payable.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([currency, amount_cents]) => ({ currency, amount_cents })),
    payment_request: payment_request
      ? { requested_by: payment_request.requested_by, requested_at: payment_request.requested_at.toISOString() }
      : null,
    reopen_request: reopen_request
      ? {
          reason: reopen_request.reason,
          requested_by: reopen_request.requested_by,
          requested_at: reopen_request.requested_at.toISOString(),
        }
      : null,
  };
}
