import type { components } from '../../generated/openapi.ts';
import type { Transaction } from '../repositories/transaction.ts';
import { toWireDeal } from '../wire/deals.ts';
import type { WireEarning } from '../wire/earnings.ts';
import { toWirePeriod } from '../wire/periods.ts';
import { type DealChange, type DealChangeListener, dealsChanged } from './dealChanges.ts';
import { subscribedEndpoints } from './orgConfig.ts';
import type { PeriodChangeListener, PeriodStatusChange } from './periodChanges.ts';
import { type EnqueuedMessage, enqueueWebhookEvent } from './webhookOutbox.ts';

// What each change announces, and the listeners that announce it inside the change's own transaction. The
// earnings ledger calls announceEarningCreated / announceEarningStatusChanged where it writes and moves rows.

export type EarningStatus = components['schemas']['EarningStatus'];

/** `deal.updated`: the deal as `GET /v1/deals` shows it, and the domain event that changed it. */
export function announceDealUpdated(tx: Transaction, change: DealChange): Promise<EnqueuedMessage | null> {
  return enqueueWebhookEvent(
    tx,
    change.org.id,
    'deal.updated',
    { deal: toWireDeal(change.after), domain_event: { id: change.domainEvent.id, kind: change.domainEvent.type } },
    // The org's endpoints as of the event's first statement (OrgConfigCache), not read again per event.
    { timestamp: change.after.updated_at, endpointIds: subscribedEndpoints(change.org.config, 'deal.updated') },
  );
}

/** `period.locked`, at the time the period was locked. */
export function announcePeriodLocked(tx: Transaction, change: PeriodStatusChange) {
  return enqueueWebhookEvent(
    tx,
    change.orgId,
    'period.locked',
    { period: toWirePeriod(change.period) },
    { timestamp: change.period.locked_at ?? new Date() },
  );
}

/** `period.paid`, at the time the period was marked paid. */
export function announcePeriodPaid(tx: Transaction, change: PeriodStatusChange) {
  return enqueueWebhookEvent(
    tx,
    change.orgId,
    'period.paid',
    { period: toWirePeriod(change.period) },
    { timestamp: change.period.paid_at ?? new Date() },
  );
}

/** `period.reopened`, at the time the period was reopened, with the admin's reason. */
export function announcePeriodReopened(tx: Transaction, change: PeriodStatusChange) {
  return enqueueWebhookEvent(
    tx,
    change.orgId,
    'period.reopened',
    { period: toWirePeriod(change.period), reason: change.reason ?? '' },
    { timestamp: change.period.reopened_at ?? new Date() },
  );
}

/**
 * `earning.created`, for the earnings ledger: call it in the transaction that writes the row, with the row as
 * `GET /v1/earnings` lists it.
 */
export function announceEarningCreated(
  tx: Transaction,
  orgId: string,
  earning: WireEarning,
  endpointIds?: readonly string[],
) {
  return enqueueWebhookEvent(
    tx,
    orgId,
    'earning.created',
    { earning },
    { timestamp: new Date(earning.created_at), ...(endpointIds ? { endpointIds } : {}) },
  );
}

/**
 * `earning.status_changed`, for the earnings ledger: call it in the transaction that moves the row, with the row
 * as it is now (`earning.status` the new status) and the status it had.
 */
export function announceEarningStatusChanged(
  tx: Transaction,
  orgId: string,
  change: { earning: WireEarning; previousStatus: EarningStatus; changedAt: Date },
  endpointIds?: readonly string[],
) {
  return enqueueWebhookEvent(
    tx,
    orgId,
    'earning.status_changed',
    { earning: change.earning, previous_status: change.previousStatus },
    { timestamp: change.changedAt, ...(endpointIds ? { endpointIds } : {}) },
  );
}

/** `inner` (the earnings engine), with `deal.updated` announced first in the same transaction. */
export function withDealWebhooks(inner: DealChangeListener): DealChangeListener {
  return {
    onDealChanged: async (tx, change) => {
      await announceDealUpdated(tx, change);
      await inner.onDealChanged(tx, change);
    },
    onDealsChanged: async (tx, changes) => {
      for (const change of changes) await announceDealUpdated(tx, change);
      await dealsChanged(inner, tx, changes);
    },
  };
}

/** `inner` (the ledger's status moves), with `period.locked` / `period.paid` / `period.reopened` announced first. */
export function withPeriodWebhooks(inner: PeriodChangeListener): PeriodChangeListener {
  return {
    beforePeriodLocked: async (tx, change) => {
      await inner.beforePeriodLocked?.(tx, change);
    },
    onPeriodLocked: async (tx, change) => {
      await announcePeriodLocked(tx, change);
      await inner.onPeriodLocked(tx, change);
    },
    onPeriodPaid: async (tx, change) => {
      await announcePeriodPaid(tx, change);
      await inner.onPeriodPaid(tx, change);
    },
    onPeriodReopened: async (tx, change) => {
      await announcePeriodReopened(tx, change);
      await inner.onPeriodReopened?.(tx, change);
    },
  };
}
