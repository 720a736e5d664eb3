import type { operations } from '../../../generated/openapi.ts';
import type { ApproverPrincipal } from '../../domain/approvals.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { StatementApprovals } from '../../services/approvals.ts';
import { toWireStatementApproval } from '../../wire/approvals.ts';
import { type RequestAuth, viewerOf } from '../middleware/authenticate.ts';
import type { PublicHandlers } from './index.ts';

type Params = operations['getStatementApproval']['parameters']['path'];

export interface ApprovalRouteDeps {
  approvals: StatementApprovals;
}

/**
 * The rep principal behind a request, when it is a rep's (a rep token: the rep portal, or an integrator's intranet
 * that mints one); an API key acts for the whole org and for no rep, so it is none.
 */
function approverOf(auth: RequestAuth): ApproverPrincipal | null {
  return auth.kind === 'rep' ? { kind: 'rep', orgId: auth.orgId, userId: auth.viewer.userId } : null;
}

/** A rep's statement approval: read it (earnings:read), approve it (a rep action, `x-quotient-rep-action`). */
export function approvalHandlers(
  deps: ApprovalRouteDeps,
): Pick<PublicHandlers, 'getStatementApproval' | 'approveStatement'> {
  return {
    getStatementApproval: async (req, res) => {
      const { id, period_id } = req.params as Params;
      const view = await deps.approvals.view(viewerOf(res), id, period_id);
      if (!view) throw new Refusal('not_found', `no user ${id}`);
      res.json(toWireStatementApproval(view));
    },

    approveStatement: async (req, res) => {
      const auth = res.locals.auth as RequestAuth;
      const { id, period_id } = req.params as Params;
      const principal = approverOf(auth);
      if (!principal) {
        throw new Refusal(
          'forbidden',
          "approving a statement is the rep's or their manager's act: call with a rep token, not an API key",
        );
      }
      const result = await deps.approvals.approve(principal, id, period_id);
      res.json({ statement_approval: toWireStatementApproval(result.view), changed: result.changed });
    },
  };
}
