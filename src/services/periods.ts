import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { periodReopened } from '../domain/earnings/ledger.ts';
import { isPeriodId, periodBounds } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import * as adjustments from '../repositories/adjustments.ts';
import * as audit from '../repositories/audit.ts';
import * as earningsByPeriod from '../repositories/earningsByPeriod.ts';
import type { PeriodTotal } from '../repositories/earningsOverview.ts';
import * as earningsOverview from '../repositories/earningsOverview.ts';
import * as orgs from '../repositories/orgs.ts';
import type { PaymentRequestRecord } from '../repositories/paymentRequests.ts';
import * as paymentRequests from '../repositories/paymentRequests.ts';
import type { ReopenRequestRecord } from '../repositories/periodReopenRequests.ts';
import * as reopenRequests from '../repositories/periodReopenRequests.ts';
import type { PeriodRecord } from '../repositories/periods.ts';
import * as periods from '../repositories/periods.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import type { EarningsRecompute } from './adminRecompute.ts';
import type { StatementApprovals } from './approvals.ts';
import type { PayoutReader } from './payouts.ts';
import type { PeriodChangeListener } from './periodChanges.ts';
import { reopenPeriod } from './periodReopening.ts';

export interface PeriodChangeResult {
  period: PeriodRecord;
  /** False when the period already had the status asked for. */
  changed: boolean;
  /** Earnings rows the change moved: pending → approved on lock, approved → paid on mark-paid. */
  rows_moved: number;
  /**
   * Four-eyes payment: the request waiting for a second admin's confirmation (the first admin's mark-paid made it,
   * and nothing else changed); null otherwise.
   */
  payment_request?: PaymentRequestRecord | null;
  /**
   * Four-eyes reopening: the request waiting for a second admin's confirmation (the first admin's reopen made it,
   * and nothing else changed); null otherwise.
   */
  reopen_request?: ReopenRequestRecord | null;
}

/** A period with its standing rows' totals by status and currency, and its manual adjustments' by currency. */
export interface PeriodWithTotals extends PeriodRecord {
  totals: PeriodTotal[];
  adjustments: Array<{ currency: string; count: number; amount_cents: number }>;
  /** The four-eyes requests waiting for a second admin; null when there is none. */
  payment_request: PaymentRequestRecord | null;
  reopen_request: ReopenRequestRecord | null;
}

export interface PeriodAdminOptions {
  /** Today's UTC date (`YYYY-MM-DD`): a period that ends on or after it has not ended. */
  today?: () => string;
  /** Books a reopened period's lines again once the reopening commits; absent (a service built alone), nothing is. */
  recompute?: EarningsRecompute;
}

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * How long the transaction of a lock or a mark-paid may run: 15 minutes, where Prisma's default for an interactive
 * transaction is 5 seconds. The change moves every earnings row of the period (pending → approved, approved → paid)
 * with its `earning.status_changed` webhook messages in one transaction, so it grows with the period: an org whose
 * period holds hundreds of thousands of rows needs far more than 5 s, and with the default its lock failed ("A query
 * cannot be executed on an expired transaction") and rolled back. The bound stays finite so that a wedged change
 * still ends and frees the period's row lock. It bounds the transaction as a whole; each statement keeps the
 * statement timeout of the connection it runs on (none for admin commands; `QUOTIENT_DB_STATEMENT_TIMEOUT_MS` on
 * the server's).
 */
export const PERIOD_CHANGE_TRANSACTION_TIMEOUT_MS = 15 * 60_000;

/** A lock's, a reopening's or a mark-paid's transaction, with PERIOD_CHANGE_TRANSACTION_TIMEOUT_MS as its bound. */
export function inPeriodChangeTransaction<T>(db: Transactor, work: (tx: Transaction) => Promise<T>): Promise<T> {
  return db.run(work, { timeout: PERIOD_CHANGE_TRANSACTION_TIMEOUT_MS });
}

/**
 * Admin operations on periods: open → locked → paid, and locked → open again when an admin reopens it with a
 * reason; a paid period never moves again. Each change is one transaction with its audit entry and the
 * period-change listener (the ledger's status moves), so a period never moves without both.
 */
export class PeriodAdmin {
  private readonly db: Transactor;
  private readonly listener: PeriodChangeListener;

  readonly #statements: Transaction;
  readonly #payouts: PayoutReader;
  readonly #approvals: StatementApprovals;
  readonly #today: () => string;
  readonly #recompute: EarningsRecompute | undefined;

  constructor(
    db: Transactor,
    listener: PeriodChangeListener,
    payouts: PayoutReader,
    approvals: StatementApprovals,
    options: PeriodAdminOptions = {},
  ) {
    this.#today = options.today ?? todayUtc;
    this.#recompute = options.recompute;
    this.#payouts = payouts;
    this.#approvals = approvals;
    this.db = db;
    this.listener = listener;
    this.#statements = db.statements;
  }

  async list(orgId: string): Promise<PeriodRecord[]> {
    await this.requireOrg(orgId);
    return periods.listForOrg(this.#statements, orgId);
  }

  /**
   * The periods with, per period, the count and sum of its standing earnings rows by status and currency, and of its
   * manual adjustments by currency.
   */
  async listWithTotals(orgId: string): Promise<PeriodWithTotals[]> {
    await this.requireOrg(orgId);
    const [found, totals, adjusted, payments, reopenings] = await Promise.all([
      periods.listForOrg(this.#statements, orgId),
      earningsOverview.periodTotalsByStatus(this.#statements, orgId),
      adjustments.totalsByPeriod(this.#statements, orgId),
      paymentRequests.listOfOrg(this.#statements, orgId),
      reopenRequests.listOfOrg(this.#statements, orgId),
    ]);
    return found.map((period) => ({
      ...period,
      totals: totals.filter((total) => total.period_id === period.id),
      adjustments: adjusted.filter((total) => total.period_id === period.id),
      payment_request: payments.find((request) => request.period_id === period.id) ?? null,
      reopen_request: reopenings.find((request) => request.period_id === period.id) ?? null,
    }));
  }

  /**
   * Locks an open period: its amounts are frozen and later changes go to the next open period. A period with
   * no row yet is created locked, so a month can be closed before anything was booked in it. Locking a locked
   * period changes nothing; a paid period cannot be locked again.
   *
   * Under an approval policy, an open period whose statements are not all approved is refused, listing those still
   * waiting, unless `overrideReason` says why it is locked anyway (audited with the statements it overrode).
   * The check is read before the lock's transaction: a statement that changes in between is paid as it stands.
   *
   * A period that has not ended yet (it ends today or later) is refused the same way, unless `overrideReason` says why
   * it is locked early (audited as `period.locked_early`).
   */
  async lock(
    orgId: string,
    periodId: string,
    actor: AdminActor = CLI_ACTOR,
    options: { overrideReason?: string } = {},
  ): Promise<PeriodChangeResult> {
    this.requirePeriodId(periodId);
    await this.requireOrg(orgId);
    const override = options.overrideReason?.trim();
    if (options.overrideReason !== undefined && !override) {
      throw new Refusal('invalid_body', 'override_reason: must not be empty');
    }
    const existing = await periods.findSummary(this.#statements, orgId, periodId);
    const moves = existing?.status !== 'locked' && existing?.status !== 'paid';
    const { ends_on } = periodBounds(periodId);
    const early = moves && ends_on >= this.#today();
    const waiting = moves ? await this.#approvals.waiting(orgId, periodId) : [];
    if ((early || waiting.length > 0) && !override) {
      // One refusal names every reason the lock needs an override, so the admin sees them all at once.
      const reasons = [
        ...(early ? [`period ${periodId} has not ended (its last day is ${ends_on})`] : []),
        ...(waiting.length > 0
          ? [
              `period ${periodId} has ${waiting.length} statement(s) waiting for approval: ${waiting.map((view) => `${view.user_external_id} (${view.state})`).join(', ')}`,
            ]
          : []),
      ];
      throw new Refusal(
        'invalid_state',
        `${reasons.join('; ')}; ${early && waiting.length === 0 ? 'lock it with a reason to lock it early' : 'lock with an override reason to lock anyway'}`,
        {
          details: {
            ...(early ? { ends_on } : {}),
            ...(waiting.length > 0
              ? {
                  waiting: waiting.map((view) => ({
                    user_id: view.user_id,
                    user_external_id: view.user_external_id,
                    state: view.state,
                  })),
                }
              : {}),
          },
        },
      );
    }
    return inPeriodChangeTransaction(this.db, async (tx) => {
      await this.listener.beforePeriodLocked?.(tx, { orgId, periodId });
      const created = await periods.ensurePeriods(tx, orgId, [periodId]);
      const current = (await periods.lockForUpdate(tx, orgId, periodId)) as PeriodRecord;
      if (current.status === 'locked') return { period: current, changed: false, rows_moved: 0 };
      if (current.status === 'paid') {
        throw new Refusal(
          'invalid_state',
          `period ${periodId} is paid (since ${current.paid_at?.toISOString()}); it cannot be locked again`,
        );
      }
      const period = await periods.markLocked(tx, orgId, periodId, new Date());
      const pendingBefore = await earningsByPeriod.countOfPeriodWithStatus(tx, orgId, periodId, 'pending');
      await this.listener.onPeriodLocked(tx, { orgId, period, existedBefore: created.length === 0 });
      const rowsMoved =
        pendingBefore - (await earningsByPeriod.countOfPeriodWithStatus(tx, orgId, periodId, 'pending'));
      await audit.insertMany(tx, [
        adminAuditEntry(orgId, 'period.locked', { period_id: periodId, rows_moved: rowsMoved }, actor),
        ...(waiting.length > 0
          ? [
              adminAuditEntry(
                orgId,
                'period.lock_overridden',
                {
                  period_id: periodId,
                  reason: override ?? '',
                  waiting: waiting.map((view) => ({ user_id: view.user_id, state: view.state })),
                },
                actor,
              ),
            ]
          : []),
        ...(early
          ? [
              adminAuditEntry(
                orgId,
                'period.locked_early',
                { period_id: periodId, ends_on, reason: override ?? '' },
                actor,
              ),
            ]
          : []),
      ]);
      return { period, changed: true, rows_moved: rowsMoved };
    });
  }

  /**
   * Reopens a locked, unpaid period with the admin's reason (see reopenPeriod): its approved rows become pending,
   * its approvals are reset, and once that commits its reps' lines are booked again, so that what was carried into
   * a later open period while it was locked comes back into it.
   */
  async reopen(
    orgId: string,
    periodId: string,
    reason: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<PeriodChangeResult> {
    this.requirePeriodId(periodId);
    await this.requireOrg(orgId);
    const result = await reopenPeriod(this.db, this.listener, { orgId, periodId, reason, actor });
    if (result.changed)
      await this.#recompute?.run({ orgId, userIds: result.userIds, reason: periodReopened(periodId) });
    return result;
  }

  /**
   * Marks a locked period paid. Marking a paid period changes nothing; an open period must be locked first. With
   * four-eyes payment on, the first admin's call only requests it (`payment_request`) and a second, different
   * admin's call pays; the same admin (or `cli` twice) is refused.
   */
  async markPaid(orgId: string, periodId: string, actor: AdminActor = CLI_ACTOR): Promise<PeriodChangeResult> {
    this.requirePeriodId(periodId);
    await this.requireOrg(orgId);
    return inPeriodChangeTransaction(this.db, async (tx) => {
      const current = await periods.lockForUpdate(tx, orgId, periodId);
      if (!current) throw new Refusal('not_found', `org ${orgId} has no period ${periodId}`);
      if (current.status === 'paid') return { period: current, changed: false, rows_moved: 0, payment_request: null };
      if (current.status === 'open') {
        throw new Refusal(
          'invalid_state',
          `period ${periodId} is open; lock it first (quotient periods lock ${periodId} --org ${orgId})`,
        );
      }
      const settings = await orgs.paySettings(tx, orgId);
      let confirms: PaymentRequestRecord | null = null;
      if (settings?.four_eyes_payment) {
        const request = await paymentRequests.find(tx, orgId, periodId);
        const actorId = actor.kind === 'admin' ? actor.adminId : null;
        const actorName = actor.kind === 'admin' ? actor.email : 'cli';
        if (!request) {
          const made = await paymentRequests.insert(tx, orgId, {
            period_id: periodId,
            requested_by: actorName,
            requested_by_id: actorId,
          });
          await audit.insertMany(tx, [
            adminAuditEntry(orgId, 'period.payment_requested', { period_id: periodId }, actor),
          ]);
          return { period: current, changed: false, rows_moved: 0, payment_request: made };
        }
        if (request.requested_by_id === actorId && request.requested_by === actorName) {
          throw new Refusal(
            'invalid_state',
            `${actorName} requested the payment of ${periodId}; four-eyes payment needs a second, different admin to confirm it`,
          );
        }
        confirms = request;
      }
      const period = await periods.markPaid(tx, orgId, periodId, new Date());
      // A reopening asked for and not confirmed lapses: a paid period never reopens.
      await reopenRequests.remove(tx, orgId, periodId);
      const approvedBefore = await earningsByPeriod.countOfPeriodWithStatus(tx, orgId, periodId, 'approved');
      await this.listener.onPeriodPaid(tx, { orgId, period, existedBefore: true });
      const rowsMoved =
        approvedBefore - (await earningsByPeriod.countOfPeriodWithStatus(tx, orgId, periodId, 'approved'));
      await audit.insertMany(tx, [
        adminAuditEntry(
          orgId,
          'period.paid',
          {
            period_id: periodId,
            rows_moved: rowsMoved,
            ...(confirms
              ? { requested_by: confirms.requested_by, requested_at: confirms.requested_at.toISOString() }
              : {}),
          },
          actor,
        ),
      ]);
      return { period, changed: true, rows_moved: rowsMoved };
    });
  }

  /**
   * Every rep's payout of a locked or paid period, for payroll: the same sums as `GET /v1/payouts`. An open
   * period has nothing approved yet and is refused.
   */
  async payouts(orgId: string, periodId: string): ReturnType<PayoutReader['all']> {
    this.requirePeriodId(periodId);
    await this.requireOrg(orgId);
    try {
      return await this.#payouts.all(orgId, periodId);
    } catch (error) {
      if (!(error instanceof Refusal) || (error.code !== 'not_found' && error.code !== 'period_open')) throw error;
      throw new Refusal(
        error.code === 'not_found' ? 'not_found' : 'invalid_state',
        error.code === 'not_found'
          ? `org ${orgId} has no period ${periodId}`
          : `period ${periodId} is open; lock it first (quotient periods lock ${periodId} --org ${orgId})`,
      );
    }
  }

  private requirePeriodId(periodId: string): void {
    if (!isPeriodId(periodId)) {
      throw new Refusal(
        'invalid_body',
        `${JSON.stringify(periodId)} is not a period id: use YYYY-MM (a month) or YYYY-Qn (a quarter)`,
      );
    }
  }

  private async requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }
}
