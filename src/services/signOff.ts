import type { components } from '../../generated/openapi-admin.ts';
import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import type { Statement } from '../domain/earnings/statement.ts';
import { isPeriodId, periodBounds } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import { newId } from '../lib/ids.ts';
import * as audit from '../repositories/audit.ts';
import * as paymentRequests from '../repositories/paymentRequests.ts';
import * as reopenRequests from '../repositories/periodReopenRequests.ts';
import * as periods from '../repositories/periods.ts';
import type { StatementReminderRecord } from '../repositories/statementReminders.ts';
import * as statementReminders from '../repositories/statementReminders.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import * as webhookEndpoints from '../repositories/webhookEndpoints.ts';
import { toWireStatementApproval } from '../wire/approvals.ts';
import type { ApprovalView, StatementApprovals } from './approvals.ts';
import type { PayoutReader } from './payouts.ts';
import { enqueueWebhookEvent } from './webhookOutbox.ts';

type Schemas = components['schemas'];
export type SignOffBoard = Schemas['SignOffBoard'];
export type SignOffReminders = Schemas['SignOffReminders'];
type Person = Schemas['SignOffPerson'];
type Total = Schemas['SignOffTotal'];

/** A statement is reminded at most this often. */
export const REMINDER_INTERVAL_MS = 60 * 60 * 1000;

const WEBHOOK_KIND = 'statement.approval_reminder';

interface Names {
  byId: Map<string, { external_id: string; display_name: string | null }>;
}

/**
 * The sign-off board of a period (docs/pay-workflow.md#the-sign-off-board): every statement that pays something with
 * where its approval stands and who it waits on since when, the four-eyes requests waiting for a second admin, the
 * period's totals with its manual adjustments; and bulk reminders to whoever the statements wait on, recorded,
 * audited and sent as the `statement.approval_reminder` webhook.
 */
export class SignOff {
  readonly #db: Transactor;
  readonly #statements: Transaction;
  readonly #approvals: StatementApprovals;
  readonly #payouts: PayoutReader;
  readonly #now: () => Date;

  constructor(
    db: Transactor,
    approvals: StatementApprovals,
    payouts: PayoutReader,
    options: { now?: () => Date } = {},
  ) {
    this.#db = db;
    this.#statements = db.statements;
    this.#approvals = approvals;
    this.#payouts = payouts;
    this.#now = options.now ?? (() => new Date());
  }

  async board(orgId: string, periodId: string): Promise<SignOffBoard> {
    requirePeriodId(periodId);
    const [settings, found, period, payment, reopen, reminded, names, managersOf] = await Promise.all([
      this.#approvals.settings(orgId),
      this.#approvals.statementsOfPeriod(orgId, periodId),
      this.#period(orgId, periodId),
      paymentRequests.find(this.#statements, orgId, periodId),
      reopenRequests.find(this.#statements, orgId, periodId),
      statementReminders.latestOfPeriod(this.#statements, orgId, periodId),
      this.#names(orgId),
      this.#approvals.managersOfReps(orgId),
    ]);
    const status = period?.status ?? 'open';
    const periodStart = new Date(`${periodBounds(periodId).starts_on}T00:00:00.000Z`);
    const since = period?.reopened_at && period.reopened_at > periodStart ? period.reopened_at : periodStart;
    return {
      period_id: periodId,
      status,
      policy: settings.statement_approval_policy,
      four_eyes_payment: settings.four_eyes_payment,
      payment_request: payment
        ? { requested_by: payment.requested_by, requested_at: payment.requested_at.toISOString() }
        : null,
      reopen_request: reopen
        ? {
            reason: reopen.reason,
            requested_by: reopen.requested_by,
            requested_at: reopen.requested_at.toISOString(),
          }
        : null,
      totals:
        status === 'open'
          ? totalsOfStatements(found.map((each) => each.statement))
          : await this.#payrollTotals(orgId, periodId),
      statements: found.map(({ view, statement }) => ({
        user_id: view.user_id,
        user_external_id: view.user_external_id,
        display_name: statement.user.display_name,
        currencies: statement.by_currency.map((each) => ({
          currency: each.currency,
          payable_cents: each.payable_cents,
        })),
        approval: toWireStatementApproval(view),
        waiting_on: waitingOn(view, names, managersOf(view.user_external_id)),
        waiting_since: waitingSince(view, since)?.toISOString() ?? null,
        last_reminded_at: reminded.get(view.user_id)?.toISOString() ?? null,
      })),
    };
  }

  /**
   * Reminds whoever each named statement (every waiting one when `userIds` is empty) waits on. Only an open period's
   * statements can be approved: a locked or paid one is `invalid_state`; a rep with no statement in the period is
   * `invalid_body`. A statement not waiting, reminded within the hour, or waiting on a manager it has none of, is
   * skipped with why.
   */
  async remind(
    orgId: string,
    periodId: string,
    userIds: readonly string[] = [],
    actor: AdminActor = CLI_ACTOR,
  ): Promise<SignOffReminders> {
    requirePeriodId(periodId);
    const period = await this.#period(orgId, periodId);
    if (period && period.status !== 'open') {
      throw new Refusal(
        'invalid_state',
        `period ${periodId} is ${period.status}: its statements can no longer be approved, so there is nobody to remind`,
      );
    }
    const [found, reminded, names, managersOf] = await Promise.all([
      this.#approvals.statementsOfPeriod(orgId, periodId),
      statementReminders.latestOfPeriod(this.#statements, orgId, periodId),
      this.#names(orgId),
      this.#approvals.managersOfReps(orgId),
    ]);
    const chosen = new Set(userIds);
    const unknown = [...chosen].filter((id) => !found.some((each) => each.view.user_id === id));
    if (unknown.length > 0) {
      throw new Refusal(
        'invalid_body',
        `user_ids: ${unknown.map((id) => JSON.stringify(id)).join(', ')} ${unknown.length === 1 ? 'has' : 'have'} no statement that pays something in ${periodId}`,
      );
    }
    const at = this.#now();
    const result: SignOffReminders = { period_id: periodId, reminded: [], skipped: [], delivered_by_webhook: false };
    const records: Array<Omit<StatementReminderRecord, 'reminded_at'>> = [];
    const sent: Array<{ view: ApprovalView; recipients: Person[] }> = [];
    for (const { view } of found) {
      if (chosen.size > 0 && !chosen.has(view.user_id)) continue;
      if (view.state !== 'waiting_rep' && view.state !== 'waiting_manager') {
        if (chosen.size > 0) result.skipped.push({ user_id: view.user_id, reason: 'not_waiting' });
        continue;
      }
      const last = reminded.get(view.user_id);
      if (last && at.getTime() - last.getTime() < REMINDER_INTERVAL_MS) {
        result.skipped.push({ user_id: view.user_id, reason: 'reminded_recently' });
        continue;
      }
      const recipients = waitingOn(view, names, managersOf(view.user_external_id));
      if (recipients.length === 0) {
        result.skipped.push({ user_id: view.user_id, reason: 'no_recipient' });
        continue;
      }
      records.push({
        id: newId('srm'),
        user_id: view.user_id,
        period_id: periodId,
        state: view.state,
        recipients: recipients.map((person) => ({ user_id: person.user_id, role: person.role })),
        reminded_by: actor.kind === 'admin' ? actor.email : 'cli',
      });
      sent.push({ view, recipients });
      result.reminded.push({
        user_id: view.user_id,
        user_external_id: view.user_external_id,
        state: view.state,
        recipients,
        reminded_at: at.toISOString(),
      });
    }
    if (records.length === 0) return result;
    return this.#db.run(async (tx) => {
      await statementReminders.insertMany(tx, orgId, records, at);
      const endpoints = await webhookEndpoints.subscribedEndpoints(tx, orgId, WEBHOOK_KIND, null);
      for (const { view, recipients } of sent) {
        await enqueueWebhookEvent(
          tx,
          orgId,
          WEBHOOK_KIND,
          { period_id: periodId, recipients, statement: toWireStatementApproval(view) },
          { timestamp: at, endpointIds: endpoints },
        );
      }
      await audit.insertMany(
        tx,
        records.map((record) =>
          adminAuditEntry(
            orgId,
            'statement_approval.reminded',
            { period_id: periodId, user_id: record.user_id, state: record.state, recipients: record.recipients },
            actor,
          ),
        ),
      );
      return { ...result, delivered_by_webhook: endpoints.length > 0 };
    });
  }

  async #period(orgId: string, periodId: string): Promise<periods.PeriodRecord | null> {
    return (await periods.listForOrg(this.#statements, orgId)).find((period) => period.id === periodId) ?? null;
  }

  async #names(orgId: string): Promise<Names> {
    const reps = await users.listReps(this.#statements, orgId);
    return { byId: new Map(reps.map((rep) => [rep.id, rep])) };
  }

  /** A locked or paid period's totals, from the rows of its payroll file. */
  async #payrollTotals(orgId: string, periodId: string): Promise<Total[]> {
    const { payouts } = await this.#payouts.all(orgId, periodId);
    const byCurrency = new Map<string, Total>();
    for (const payout of payouts) {
      const total = byCurrency.get(payout.currency) ?? emptyTotal(payout.currency, 0);
      total.adjustments_cents += payout.adjustment_cents;
      total.held_pending_acceptance_cents += payout.held_pending_acceptance_cents;
      total.payroll_cents = (total.payroll_cents ?? 0) + payout.total_cents;
      total.payable_cents = (total.payroll_cents ?? 0) + total.held_pending_acceptance_cents;
      total.earnings_cents = total.payable_cents - total.adjustments_cents;
      byCurrency.set(payout.currency, total);
    }
    return [...byCurrency.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1));
  }
}

function emptyTotal(currency: string, payroll: number | null): Total {
  return {
    currency,
    earnings_cents: 0,
    adjustments_cents: 0,
    payable_cents: 0,
    held_pending_acceptance_cents: 0,
    payroll_cents: payroll,
  };
}

/** An open period's totals: its statements' payable parts per currency (no payroll file yet). */
function totalsOfStatements(statements: readonly Statement[]): Total[] {
  const byCurrency = new Map<string, Total>();
  for (const part of statements.flatMap((statement) => statement.by_currency)) {
    const total = byCurrency.get(part.currency) ?? emptyTotal(part.currency, null);
    total.adjustments_cents += part.manual_adjustments_cents;
    total.payable_cents += part.payable_cents;
    total.earnings_cents = total.payable_cents - total.adjustments_cents;
    byCurrency.set(part.currency, total);
  }
  return [...byCurrency.values()].sort((a, b) => (a.currency < b.currency ? -1 : 1));
}

/** Who the statement waits on now: its rep, or its rep's managers; nobody when it does not wait. */
function waitingOn(view: ApprovalView, names: Names, managerIds: readonly string[]): Person[] {
  const person = (userId: string, role: Person['role']): Person[] => {
    const found = names.byId.get(userId);
    return found ? [{ user_id: userId, external_id: found.external_id, display_name: found.display_name, role }] : [];
  };
  if (view.state === 'waiting_rep') return person(view.user_id, 'rep');
  if (view.state === 'waiting_manager') return managerIds.flatMap((id) => person(id, 'manager'));
  return [];
}

/**
 * Since when the statement waits on its step: the rep's standing approval for the manager's step after it; a reset
 * approval's time; else `since` (the period's start, or its reopening when later). Null when it does not wait.
 */
function waitingSince(view: ApprovalView, since: Date): Date | null {
  const step = view.state === 'waiting_rep' ? 'rep' : view.state === 'waiting_manager' ? 'manager' : null;
  if (step === null) return null;
  const waiting = view.steps.find((each) => each.step === step);
  const before = view.steps.find((each) => each.step === 'rep' && step === 'manager' && each.standing);
  const candidates = [since, waiting?.approval?.created_at, before?.approval?.created_at].filter(
    (each): each is Date => each instanceof Date,
  );
  return new Date(Math.max(...candidates.map((each) => each.getTime())));
}

function requirePeriodId(periodId: string): void {
  if (!isPeriodId(periodId)) {
    throw new Refusal(
      'invalid_body',
      `period_id: ${JSON.stringify(periodId)} is not YYYY-MM (a month) or YYYY-Qn (a quarter)`,
    );
  }
}
