import type { Statement } from './earnings/statement.ts';
import { Refusal } from './refusal.ts';

// Statement approvals before pay (docs/pay-workflow.md): who may approve which step under the org's policy, what an
// approval records (a snapshot of the statement), and when a change to the statement resets it. Pure: the service
// reads the statement, the approvals and the hierarchy, and writes.

export const APPROVAL_POLICIES = ['none', 'rep', 'manager', 'rep_then_manager'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];
export type ApprovalStep = 'rep' | 'manager';

export function isApprovalPolicy(value: string): value is ApprovalPolicy {
  return (APPROVAL_POLICIES as readonly string[]).includes(value);
}

/** The steps a statement needs under the policy, in order. */
export function stepsOf(policy: ApprovalPolicy): ApprovalStep[] {
  if (policy === 'none') return [];
  if (policy === 'rep_then_manager') return ['rep', 'manager'];
  return [policy];
}

/**
 * Who approves: a rep principal (the portal, a rep token) or an admin. Approving is the rep's and their managers'
 * act; an admin never approves in their place (an admin who must go ahead locks with an override, audited).
 */
export type ApproverPrincipal =
  | { kind: 'rep'; orgId: string; userId: string }
  | { kind: 'admin'; orgId: string; adminId: string; email: string };

/** What one approval recorded: every payable row (by its line) and adjustment, and the total. */
export interface ApprovalSnapshot {
  rows: Array<{ line: string; earning_id: string; description: string; amount_cents: number }>;
  adjustments: Array<{ id: string; description: string; amount_cents: number }>;
  payable_cents: number;
}

/** How the statement now differs from what was approved; empty lists and equal totals when it does not. */
export interface SnapshotDifference {
  rows: Array<{ line: string; description: string; approved_cents: number | null; now_cents: number | null }>;
  adjustments: Array<{ id: string; description: string; approved_cents: number | null; now_cents: number | null }>;
  approved_payable_cents: number;
  now_payable_cents: number;
}

/** The statement as an approval records it: rows that pay (not projections), adjustments, the total. */
export function snapshotOf(statement: Statement): ApprovalSnapshot {
  const rows = statement.plans.flatMap((plan) =>
    [
      ...plan.lines.map((line) => ({ line, from: statement.period.id })),
      ...plan.adjustments.map((line) => ({ line, from: line.from_period_id })),
    ]
      .filter(({ line }) => line.status !== 'projected')
      .map(({ line, from }) => ({
        line: `${plan.plan_id}/${line.rule_chip_id}/${line.deal_id ?? '-'}/${from}`,
        earning_id: line.earning_id,
        description: `${plan.plan_key} ${line.chip_key}${line.deal_external_id ? ` on deal ${line.deal_external_id}` : ''}${from === statement.period.id ? '' : ` (for ${from})`}`,
        amount_cents: line.amount_cents,
      })),
  );
  return {
    rows: rows.sort((a, b) => (a.line < b.line ? -1 : a.line > b.line ? 1 : 0)),
    adjustments: statement.manual_adjustments.map((each) => ({
      id: each.id,
      description: `${each.category}: ${each.reason}`,
      amount_cents: each.amount_cents,
    })),
    payable_cents: statement.payable_cents,
  };
}

/** The difference between what was approved and the statement now; null when the statement is what was approved. */
export function differenceOf(approved: ApprovalSnapshot, now: ApprovalSnapshot): SnapshotDifference | null {
  const rows = changes(
    approved.rows.map((row) => [row.line, row] as const),
    now.rows.map((row) => [row.line, row] as const),
  ).map(({ key, description, approved_cents, now_cents }) => ({ line: key, description, approved_cents, now_cents }));
  const adjustments = changes(
    approved.adjustments.map((each) => [each.id, each] as const),
    now.adjustments.map((each) => [each.id, each] as const),
  ).map(({ key, description, approved_cents, now_cents }) => ({ id: key, description, approved_cents, now_cents }));
  if (rows.length === 0 && adjustments.length === 0 && approved.payable_cents === now.payable_cents) return null;
  return {
    rows,
    adjustments,
    approved_payable_cents: approved.payable_cents,
    now_payable_cents: now.payable_cents,
  };
}

function changes(
  before: ReadonlyArray<readonly [string, { description: string; amount_cents: number }]>,
  after: ReadonlyArray<readonly [string, { description: string; amount_cents: number }]>,
): Array<{ key: string; description: string; approved_cents: number | null; now_cents: number | null }> {
  const was = new Map(before);
  const is = new Map(after);
  const keys = [...new Set([...was.keys(), ...is.keys()])].sort();
  return keys.flatMap((key) => {
    const a = was.get(key);
    const b = is.get(key);
    if (a && b && a.amount_cents === b.amount_cents) return [];
    return [
      {
        key,
        description: (b ?? a)?.description ?? key,
        approved_cents: a?.amount_cents ?? null,
        now_cents: b?.amount_cents ?? null,
      },
    ];
  });
}

/** Where a statement stands: approved, or waiting for a step (the first step not standing, in order). */
export type ApprovalState = 'not_required' | 'waiting_rep' | 'waiting_manager' | 'approved';

export function stateOf(policy: ApprovalPolicy, standing: ReadonlySet<ApprovalStep>): ApprovalState {
  const waiting = stepsOf(policy).find((step) => !standing.has(step));
  if (policy === 'none') return 'not_required';
  return waiting === undefined ? 'approved' : waiting === 'rep' ? 'waiting_rep' : 'waiting_manager';
}

/**
 * The step this principal's approval of the statement would record, or the refusal:
 * - another org's principal, or a rep who is neither the statement's rep nor a manager above them: `not_found`
 *   (the statement is not theirs to see);
 * - an admin: `forbidden` (approving is the rep's and their managers' act);
 * - a step the policy does not have (the rep under `manager`, a manager under `rep`): `forbidden`;
 * - no approvals under the policy, a period no longer open, or a manager before the rep under `rep_then_manager`:
 *   `invalid_state`.
 * Approving a step that stands already is not refused: it records nothing (the caller answers `changed: false`).
 */
export function stepFor(request: {
  policy: ApprovalPolicy;
  principal: ApproverPrincipal;
  orgId: string;
  subjectUserId: string;
  /** The user ids of the subject's managers as of today, nearest first. */
  managerUserIds: readonly string[];
  periodId: string;
  periodStatus: 'open' | 'locked' | 'paid';
  standing: ReadonlySet<ApprovalStep>;
}): ApprovalStep {
  const { principal, policy } = request;
  if (principal.orgId !== request.orgId) throw new Refusal('not_found', `no user ${request.subjectUserId}`);
  if (principal.kind === 'admin') {
    throw new Refusal(
      'forbidden',
      'a statement is approved by its rep and their manager, not by an admin; to lock without an approval, lock with an override reason',
    );
  }
  const step: ApprovalStep | null =
    principal.userId === request.subjectUserId
      ? 'rep'
      : request.managerUserIds.includes(principal.userId)
        ? 'manager'
        : null;
  if (step === null) throw new Refusal('not_found', `no user ${request.subjectUserId}`);
  if (policy === 'none') throw new Refusal('invalid_state', 'this org does not ask for statement approvals');
  if (!stepsOf(policy).includes(step)) {
    throw new Refusal(
      'forbidden',
      step === 'rep'
        ? "this org's statements are approved by the rep's manager, not by the rep"
        : "this org's statements are approved by the rep, not by a manager",
    );
  }
  if (request.periodStatus !== 'open') {
    throw new Refusal(
      'invalid_state',
      `period ${request.periodId} is ${request.periodStatus}; statements are approved while their period is open`,
    );
  }
  if (step === 'manager' && policy === 'rep_then_manager' && !request.standing.has('rep')) {
    throw new Refusal('invalid_state', 'the rep approves this statement first; then their manager');
  }
  return step;
}
