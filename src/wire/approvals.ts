import type { components } from '../../generated/openapi.ts';
import type { ApprovalView } from '../services/approvals.ts';

export type WireStatementApproval = components['schemas']['StatementApproval'];

/** The contract's statement approval (`/v1` and the admin API's period approvals alike). */
export function toWireStatementApproval(view: ApprovalView): WireStatementApproval {
  return {
    user_id: view.user_id,
    user_external_id: view.user_external_id,
    period_id: view.period_id,
    policy: view.policy,
    state: view.state,
    payable_cents: view.payable_cents,
    steps: view.steps.map((step) => ({
      step: step.step,
      standing: step.standing,
      approval: step.approval
        ? {
            id: step.approval.id,
            approver_type: step.approval.approver_type,
            approver_id: step.approval.approver_id,
            approved_at: step.approval.created_at.toISOString(),
            snapshot: step.approval.snapshot,
          }
        : null,
      difference: step.difference,
    })),
  };
}
