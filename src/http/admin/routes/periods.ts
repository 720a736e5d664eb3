import type { components } from '../../../../generated/openapi-admin.ts';
import type { AdminActor } from '../../../audit/adminEntries.ts';
import type { AdminServices } from '../../../composition.ts';
import type { PeriodRecord } from '../../../repositories/periods.ts';
import type { PeriodAdmin } from '../../../services/periods.ts';
import { toWireAdminPeriod } from '../../../wire/periods.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

type Move = (
  admin: PeriodAdmin,
  orgId: string,
  periodId: string,
  actor: AdminActor,
) => Promise<{ period: PeriodRecord; changed: boolean; rows_moved: number }>;

export function periodHandlers(
  services: AdminServices,
): Pick<AdminHandlers, 'listPeriods' | 'lockPeriod' | 'markPeriodPaid'> {
  return {
    listPeriods: async (_req, res) => {
      const { session } = adminContext(res);
      const periods = await services.periods.listWithTotals(session.org_id);
      res.status(200).json({ periods: periods.map((period) => toWireAdminPeriod(period, period.totals)) });
    },

    lockPeriod: async (req, res) => {
      const moved = await movePeriod(adminContext(res), req.params.id, (admin, orgId, periodId, actor) =>
        admin.lock(orgId, periodId, actor),
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
      period: toWireAdminPeriod(result.period, withTotals?.totals ?? []),
      changed: result.changed,
      rows_moved: result.rows_moved,
    };
  }
}
