import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import {
  type ApprovalPolicy,
  type ApprovalSnapshot,
  type ApprovalState,
  type ApprovalStep,
  type ApproverPrincipal,
  differenceOf,
  isApprovalPolicy,
  type SnapshotDifference,
  snapshotOf,
  stateOf,
  stepFor,
  stepsOf,
} from '../domain/approvals.ts';
import { managersOn, repHierarchyOf } from '../domain/earnings/hierarchy.ts';
import type { Statement } from '../domain/earnings/statement.ts';
import { isPeriodId } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import { orgViewer, type Viewer } from '../domain/viewer.ts';
import { newId } from '../lib/ids.ts';
import type { AuditEntryInput } from '../repositories/audit.ts';
import * as audit from '../repositories/audit.ts';
import * as earningsByPeriod from '../repositories/earningsByPeriod.ts';
import * as orgs from '../repositories/orgs.ts';
import * as repManagers from '../repositories/repManagers.ts';
import type { StatementApprovalRecord } from '../repositories/statementApprovals.ts';
import * as statementApprovals from '../repositories/statementApprovals.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import type { StatementReader } from './statements.ts';

/** One step of a statement's approval as it stands now. */
export interface ApprovalStepView {
  step: ApprovalStep;
  /** True when its latest approval is of the statement as it is now. */
  standing: boolean;
  /** The latest approval of the step, if any (standing or reset). */
  approval: StatementApprovalRecord | null;
  /** When the statement changed since that approval: how; the approval is reset. */
  difference: SnapshotDifference | null;
}

export interface ApprovalView {
  user_id: string;
  user_external_id: string;
  period_id: string;
  policy: ApprovalPolicy;
  state: ApprovalState;
  payable_cents: number;
  steps: ApprovalStepView[];
}

export interface PaySettingsView {
  statement_approval_policy: ApprovalPolicy;
  four_eyes_payment: boolean;
  /** Pay waits for reps to accept their plans (docs/plan-acceptance.md). */
  pay_waits_for_acceptance: boolean;
}

/** Reps may sit several levels under a manager who approves; the chain is cut here against a cycle. */
const MANAGER_DEPTH = 32;

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * Statement approvals before pay (docs/pay-workflow.md): the org's policy, a rep's or a manager's approval of a
 * statement (a snapshot of exactly what they saw), the state of each statement (an approval stands only while the
 * statement is what it approved), and the statements a period still waits for before it may be locked.
 */
export class StatementApprovals {
  readonly #db: Transactor;
  readonly #statements: Transaction;
  readonly #reader: StatementReader;
  readonly #today: () => string;

  constructor(db: Transactor, reader: StatementReader, options: { today?: () => string } = {}) {
    this.#db = db;
    this.#statements = db.statements;
    this.#reader = reader;
    this.#today = options.today ?? todayUtc;
  }

  async settings(orgId: string): Promise<PaySettingsView> {
    const found = await orgs.paySettings(this.#statements, orgId);
    if (!found) throw new Refusal('not_found', `no org ${orgId}`);
    return toView(found);
  }

  async updateSettings(
    orgId: string,
    change: { statement_approval_policy?: string; four_eyes_payment?: boolean; pay_waits_for_acceptance?: boolean },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<PaySettingsView> {
    const policy = change.statement_approval_policy;
    if (policy !== undefined && !isApprovalPolicy(policy)) {
      throw new Refusal(
        'invalid_body',
        `statement_approval_policy: ${JSON.stringify(policy)} is not one of none, rep, manager, rep_then_manager`,
      );
    }
    return this.#db.run(async (tx) => {
      const before = await orgs.paySettings(tx, orgId);
      if (!before) throw new Refusal('not_found', `no org ${orgId}`);
      const after = await orgs.setPaySettings(tx, orgId, change);
      await audit.insertMany(tx, [
        adminAuditEntry(orgId, 'pay_settings.updated', { before: { ...before }, after: { ...after } }, actor),
      ]);
      return toView(after);
    });
  }

  /** The statement's approval as it stands, for anyone who may see the statement. Null: no such user. */
  async view(viewer: Viewer, userId: string, periodId: string): Promise<ApprovalView | null> {
    requirePeriodId(periodId);
    const { orgId } = viewer;
    const statement = await this.#reader.statement(viewer, userId, periodId);
    if (!statement) return null;
    const { statement_approval_policy: policy } = await this.settings(orgId);
    const latest = await statementApprovals.latestOfStatement(this.#statements, orgId, userId, periodId);
    return viewOf(policy, statement, latest);
  }

  /**
   * The principal approves the statement as it is now: the rep their own, a manager above the rep their report's,
   * under the org's policy (refusals: src/domain/approvals.ts `stepFor`). A refused approval writes nothing; an
   * approval of a step that already stands writes nothing either (`changed: false`).
   */
  async approve(
    principal: ApproverPrincipal,
    userId: string,
    periodId: string,
  ): Promise<{ view: ApprovalView; changed: boolean }> {
    requirePeriodId(periodId);
    const orgId = principal.orgId;
    return this.#db.run(async (tx) => {
      await statementApprovals.lockStatement(tx, orgId, userId, periodId);
      const subject = await users.findRepById(tx, orgId, userId);
      if (!subject) throw new Refusal('not_found', `no user ${userId}`);
      // Who may approve it is stepFor's question (a rep not theirs to see is refused not_found there).
      const statement = await this.#reader.statement(orgViewer(orgId), userId, periodId);
      if (!statement) throw new Refusal('not_found', `no user ${userId}`);
      const { statement_approval_policy: policy } = await this.settings(orgId);
      const latest = await statementApprovals.latestOfStatement(tx, orgId, userId, periodId);
      const before = viewOf(policy, statement, latest);
      const standing = new Set(before.steps.filter((step) => step.standing).map((step) => step.step));
      const step = stepFor({
        policy,
        principal,
        orgId,
        subjectUserId: userId,
        managerUserIds: await this.#managersOf(tx, orgId, subject.external_id),
        periodId,
        periodStatus: statement.period.status,
        standing,
      });
      if (standing.has(step)) return { view: before, changed: false };
      // stepFor refuses every principal but a rep's.
      if (principal.kind !== 'rep') throw new Refusal('forbidden', 'only a rep principal approves a statement');
      const snapshot = snapshotOf(statement);
      const approval = await statementApprovals.insert(tx, orgId, {
        id: newId('sap'),
        user_id: userId,
        period_id: periodId,
        step,
        approver_type: 'rep',
        approver_id: principal.userId,
        snapshot,
        payable_cents: snapshot.payable_cents,
      });
      await audit.insertMany(tx, [approvalAuditEntry(orgId, principal.userId, approval)]);
      return {
        view: viewOf(policy, statement, [...latest.filter((each) => each.step !== step), approval]),
        changed: true,
      };
    });
  }

  /** The statements of the period that pay something and are not approved under the policy (none: empty). */
  async waiting(orgId: string, periodId: string): Promise<ApprovalView[]> {
    // Without a policy nothing waits, and no statement needs reading.
    if ((await this.settings(orgId)).statement_approval_policy === 'none') return [];
    return (await this.ofPeriod(orgId, periodId)).filter(
      (view) => view.state !== 'approved' && view.state !== 'not_required',
    );
  }

  /** Every statement of the period that pays something, with its approval. */
  async ofPeriod(orgId: string, periodId: string): Promise<ApprovalView[]> {
    return (await this.statementsOfPeriod(orgId, periodId)).map((each) => each.view);
  }

  /** Every statement of the period that pays something with its approval, by the rep's external id. */
  async statementsOfPeriod(
    orgId: string,
    periodId: string,
  ): Promise<Array<{ view: ApprovalView; statement: Statement }>> {
    requirePeriodId(periodId);
    const { statement_approval_policy: policy } = await this.settings(orgId);
    const [reps, latest] = await Promise.all([
      earningsByPeriod.repsPaidInPeriod(this.#statements, orgId, periodId),
      statementApprovals.latestOfPeriod(this.#statements, orgId, periodId),
    ]);
    const found: Array<{ view: ApprovalView; statement: Statement }> = [];
    for (const userId of reps) {
      const statement = await this.#reader.statement(orgViewer(orgId), userId, periodId);
      if (statement) found.push({ view: viewOf(policy, statement, latest.get(userId) ?? []), statement });
    }
    return found.sort((a, b) => (a.view.user_external_id < b.view.user_external_id ? -1 : 1));
  }

  /** Per rep external id, the user ids of the rep's managers as of today, nearest first (reads the hierarchy once). */
  async managersOfReps(orgId: string): Promise<(repExternalId: string) => string[]> {
    const entries = await repManagers.entriesOfOrg(this.#statements, orgId);
    return (repExternalId) => managerUserIdsOf(entries, repExternalId, this.#today());
  }

  async #managersOf(tx: Transaction, orgId: string, repExternalId: string): Promise<string[]> {
    return managerUserIdsOf(await repManagers.entriesOfOrg(tx, orgId), repExternalId, this.#today());
  }
}

/** The user ids of the rep's managers on `day`, nearest first, from the hierarchy's entries. */
function managerUserIdsOf(
  entries: readonly repManagers.ManagerEntryRecord[],
  repExternalId: string,
  day: string,
): string[] {
  const hierarchy = repHierarchyOf(
    entries.map((entry) => ({
      rep_external_id: entry.rep_external_id,
      manager_external_id: entry.manager_external_id,
      from: entry.from,
    })),
  );
  const chain = managersOn(hierarchy, repExternalId, day, MANAGER_DEPTH);
  const userIdOf = new Map(
    entries.flatMap((entry) =>
      entry.manager_external_id && entry.manager_user_id
        ? [[entry.manager_external_id, entry.manager_user_id] as const]
        : [],
    ),
  );
  return chain.flatMap((manager) => {
    const userId = userIdOf.get(manager);
    return userId ? [userId] : [];
  });
}

function toView(settings: orgs.PaySettings): PaySettingsView {
  const policy = settings.statement_approval_policy;
  return {
    statement_approval_policy: isApprovalPolicy(policy) ? policy : 'none',
    four_eyes_payment: settings.four_eyes_payment,
    pay_waits_for_acceptance: settings.pay_waits_for_acceptance,
  };
}

function requirePeriodId(periodId: string): void {
  if (!isPeriodId(periodId)) {
    throw new Refusal(
      'invalid_body',
      `period_id: ${JSON.stringify(periodId)} is not YYYY-MM (a month) or YYYY-Qn (a quarter)`,
    );
  }
}

/** The statement's approval: each step of the policy, standing when its latest approval is of the statement now. */
export function viewOf(
  policy: ApprovalPolicy,
  statement: Statement,
  latest: readonly StatementApprovalRecord[],
): ApprovalView {
  const now = snapshotOf(statement);
  const steps = stepsOf(policy).map((step): ApprovalStepView => {
    const approval = latest.find((each) => each.step === step) ?? null;
    const difference = approval ? differenceOf(approval.snapshot as ApprovalSnapshot, now) : null;
    return { step, standing: approval !== null && difference === null, approval, difference };
  });
  // Under rep_then_manager a manager's approval stands only on a standing rep's approval.
  const repStands = steps.find((step) => step.step === 'rep')?.standing ?? true;
  for (const step of steps)
    if (step.step === 'manager' && !repStands && policy === 'rep_then_manager') step.standing = false;
  return {
    user_id: statement.user.id,
    user_external_id: statement.user.external_id,
    period_id: statement.period.id,
    policy,
    state: stateOf(policy, new Set(steps.filter((step) => step.standing).map((step) => step.step))),
    payable_cents: now.payable_cents,
    steps,
  };
}

/** A rep's act, audited as theirs (actor type `rep`, the rep's user id). */
function approvalAuditEntry(orgId: string, repUserId: string, approval: StatementApprovalRecord): AuditEntryInput {
  return {
    id: newId('aud'),
    org_id: orgId,
    occurred_at: new Date(),
    actor_type: 'rep',
    actor: repUserId,
    action: 'statement.approved',
    details: {
      approval_id: approval.id,
      user_id: approval.user_id,
      period_id: approval.period_id,
      step: approval.step,
      payable_cents: approval.payable_cents,
    },
  };
}
