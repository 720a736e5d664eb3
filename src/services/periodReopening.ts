import { type AdminActor, adminAuditEntry } from '../audit/adminEntries.ts';
import { lastClosedMonth } from '../domain/accounting/closes.ts';
import { Refusal } from '../domain/refusal.ts';
import * as books from '../repositories/accounting.ts';
import * as audit from '../repositories/audit.ts';
import * as earningsByPeriod from '../repositories/earningsByPeriod.ts';
import * as orgs from '../repositories/orgs.ts';
import * as paymentRequests from '../repositories/paymentRequests.ts';
import * as reopenRequests from '../repositories/periodReopenRequests.ts';
import * as periods from '../repositories/periods.ts';
import type { Transactor } from '../repositories/transaction.ts';
import type { PeriodChangeListener } from './periodChanges.ts';
import { inPeriodChangeTransaction, type PeriodChangeResult } from './periods.ts';

export interface ReopenCommand {
  orgId: string;
  periodId: string;
  reason: string;
  actor: AdminActor;
}

/**
 * locked → open, with the admin's reason (docs/pay-workflow.md, "Reopening a period"), in one transaction:
 *
 * - an open period changes nothing; a paid period never reopens; nor does one whose last month the accounting book
 *   has closed (its commissions were capitalised in a month whose figures never change);
 * - under four-eyes payment the first admin's reopen only records a request with its reason, and a second,
 *   different admin's reopen carries it out;
 * - the period's approved rows become pending (`earning.status_changed`), `period.reopened` is announced, the
 *   period's approvals stop standing (they were of the statements before the reopening), its payment request and
 *   reopen request go, and the reopening is audited with its reason.
 *
 * Returns the reps whose lines the caller books again once this commits.
 */
export async function reopenPeriod(
  db: Transactor,
  listener: PeriodChangeListener,
  { orgId, periodId, reason, actor }: ReopenCommand,
): Promise<PeriodChangeResult & { userIds: string[] }> {
  const why = reason.trim();
  if (!why) throw new Refusal('invalid_body', 'reason: must not be empty');
  return inPeriodChangeTransaction(db, async (tx) => {
    // A month close of the accounting book waits for this (and this for it), so neither reads the other half-done.
    await books.lockBooks(tx, orgId);
    const current = await periods.lockForUpdate(tx, orgId, periodId);
    if (!current) throw new Refusal('not_found', `org ${orgId} has no period ${periodId}`);
    if (current.status === 'open') return { period: current, changed: false, rows_moved: 0, userIds: [] };
    if (current.status === 'paid') {
      throw new Refusal(
        'invalid_state',
        `period ${periodId} is paid (since ${current.paid_at?.toISOString()}); a paid period never reopens: book a correction as an adjustment in an open period`,
      );
    }
    const closedThrough = lastClosedMonth(await books.closes(tx, orgId));
    const lastMonth = current.ends_on.slice(0, 7);
    if (closedThrough !== null && lastMonth <= closedThrough) {
      throw new Refusal(
        'invalid_state',
        `period ${periodId} was capitalised in ${lastMonth}, which the accounting book has closed (through ${closedThrough}); a closed month's figures never change, so the period cannot be reopened`,
      );
    }
    const settings = await orgs.paySettings(tx, orgId);
    const actorId = actor.kind === 'admin' ? actor.adminId : null;
    const actorName = actor.kind === 'admin' ? actor.email : 'cli';
    const request = settings?.four_eyes_payment ? await reopenRequests.find(tx, orgId, periodId) : null;
    if (settings?.four_eyes_payment && !request) {
      const made = await reopenRequests.insert(tx, orgId, {
        period_id: periodId,
        reason: why,
        requested_by: actorName,
        requested_by_id: actorId,
      });
      await audit.insertMany(tx, [
        adminAuditEntry(orgId, 'period.reopen_requested', { period_id: periodId, reason: why }, actor),
      ]);
      return { period: current, changed: false, rows_moved: 0, reopen_request: made, userIds: [] };
    }
    if (request && request.requested_by_id === actorId && request.requested_by === actorName) {
      throw new Refusal(
        'invalid_state',
        `${actorName} requested the reopening of ${periodId}; four-eyes needs a second, different admin to confirm it`,
      );
    }
    const userIds = await earningsByPeriod.repsWithLinesOfPeriod(tx, orgId, periodId);
    const period = await periods.markReopened(tx, orgId, periodId, new Date());
    const approvedBefore = await earningsByPeriod.countOfPeriodWithStatus(tx, orgId, periodId, 'approved');
    await listener.onPeriodReopened?.(tx, { orgId, period, existedBefore: true, reason: request?.reason ?? why });
    const rowsMoved =
      approvedBefore - (await earningsByPeriod.countOfPeriodWithStatus(tx, orgId, periodId, 'approved'));
    await paymentRequests.remove(tx, orgId, periodId);
    await reopenRequests.remove(tx, orgId, periodId);
    await audit.insertMany(tx, [
      adminAuditEntry(
        orgId,
        'period.reopened',
        {
          period_id: periodId,
          reason: why,
          rows_moved: rowsMoved,
          ...(request
            ? {
                requested_by: request.requested_by,
                requested_at: request.requested_at.toISOString(),
                requested_reason: request.reason,
              }
            : {}),
        },
        actor,
      ),
    ]);
    return { period, changed: true, rows_moved: rowsMoved, reopen_request: null, userIds };
  });
}
