import type { components } from '../../../../generated/openapi-admin.ts';
import type { AdminActor } from '../../../audit/adminEntries.ts';
import type { AdminServices } from '../../../composition.ts';
import type { PeriodAdmin, PeriodChangeResult } from '../../../services/periods.ts';
import { toWireStatementApproval } from '../../../wire/approvals.ts';
import { payoutsCsv } from '../../../wire/payouts.ts';
import { toWireAdminPeriod } from '../../../wire/periods.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

type Move = (admin: PeriodAdmin, orgId: string, periodId: string, actor: AdminActor) => Promise<PeriodChangeResult>;

export function periodHandlers(
  services: AdminServices,
): Pick<
  AdminHandlers,
  | 'listPeriods'
  | 'lockPeriod'
  | 'markPeriodPaid'
  | 'reopenPeriod'
  | 'getPaySettings'
  | 'updatePaySettings'
  | 'listPeriodApprovals'
  | 'getPeriodSignOff'
  | 'remindPeriodSignOff'
  | 'exportPayroll'
> {
  return {
    listPeriods: async (_req, res) => {
      const { session } = adminContext(res);
      const periods = await services.periods.listWithTotals(session.org_id);
      res.status(200).json({ periods: periods.map((period) => toWireAdminPeriod(period, period)) });
    },

    lockPeriod: async (req, res) => {
      const overrideReason = req.body?.override_reason;
      const moved = await movePeriod(adminContext(res), req.params.id, (admin, orgId, periodId, actor) =>
        admin.lock(orgId, periodId, actor, overrideReason === undefined ? {} : { overrideReason }),
      );
      res.status(200).json(moved);
    },

    getPaySettings: async (_req, res) => {
      const { session } = adminContext(res);
      res.status(200).json(await services.approvals.settings(session.org_id));
    },

    updatePaySettings: async (req, res) => {
      const { session, actor } = adminContext(res);
      res.status(200).json(await services.approvals.updateSettings(session.org_id, req.body, actor));
    },

    listPeriodApprovals: async (req, res) => {
      const { session } = adminContext(res);
      const [settings, statements] = await Promise.all([
        services.approvals.settings(session.org_id),
        services.approvals.ofPeriod(session.org_id, req.params.id),
      ]);
      res.status(200).json({
        period_id: req.params.id,
        policy: settings.statement_approval_policy,
        statements: statements.map(toWireStatementApproval),
      });
    },

    getPeriodSignOff: async (req, res) => {
      const { session } = adminContext(res);
      res.status(200).json(await services.signOff.board(session.org_id, req.params.id));
    },

    remindPeriodSignOff: async (req, res) => {
      const { session, actor } = adminContext(res);
      res
        .status(200)
        .json(await services.signOff.remind(session.org_id, req.params.id, req.body?.user_ids ?? [], actor));
    },

    exportPayroll: async (req, res) => {
      const { session } = adminContext(res);
      const exported = await services.periods.payouts(session.org_id, req.params.id);
      res
        .status(200)
        .type('text/csv; charset=utf-8')
        .set('Content-Disposition', `attachment; filename="payroll-${exported.period.id}.csv"`)
        .send(payoutsCsv(exported.payouts));
    },

    reopenPeriod: async (req, res) => {
      const moved = await movePeriod(adminContext(res), req.params.id, (admin, orgId, periodId, actor) =>
        admin.reopen(orgId, periodId, req.body.reason, actor),
      );
      res.status(200).json(moved);
    },

    markPeriodPaid: async (req, res) => {
      const moved = await movePeriod(adminContext(res), req.params.id, (admin, orgId, periodId, actor) =>
        admin.markPaid(orgId, periodId, actor),
      );
      res.status(200).json(moved);
    },
  };

  /** Moves the period on, and answers it with its totals after the move. */
  async function movePeriod(
    { session, actor }: ReturnType<typeof adminContext>,
    periodId: string,
    move: Move,
  ): Promise<components['schemas']['PeriodChange']> {
    const admin = services.periods;
    const result = await move(admin, session.org_id, periodId, actor);
    const withTotals = (await admin.listWithTotals(session.org_id)).find((period) => period.id === result.period.id);
    return {
      period: toWireAdminPeriod(result.period, withTotals),
      changed: result.changed,
      rows_moved: result.rows_moved,
      payment_request: result.payment_request
        ? {
            requested_by: result.payment_request.requested_by,
            requested_at: result.payment_request.requested_at.toISOString(),
          }
        : null,
      reopen_request: result.reopen_request
        ? {
            reason: result.reopen_request.reason,
            requested_by: result.reopen_request.requested_by,
            requested_at: result.reopen_request.requested_at.toISOString(),
          }
        : null,
    };
  }
}
