import type { AdminServices } from '../../../composition.ts';
import { Refusal } from '../../../domain/refusal.ts';
import { toWirePlanAcceptance, toWirePlanVersionAcceptances } from '../../../wire/planAcceptances.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

/** Who has and has not accepted a plan version, and reminding a rep (docs/plan-acceptance.md). */
export function planAcceptanceHandlers(
  services: AdminServices,
): Pick<AdminHandlers, 'listPlanVersionAcceptances' | 'remindPlanAcceptance'> {
  return {
    listPlanVersionAcceptances: async (req, res) => {
      const { session } = adminContext(res);
      const { id, version_id } = req.params;
      const view = await services.planAcceptances.ofVersion(session.org_id, id, version_id);
      if (!view) throw new Refusal('not_found', `no version ${version_id} of plan ${id}`);
      res.status(200).json(toWirePlanVersionAcceptances(view));
    },

    remindPlanAcceptance: async (req, res) => {
      const { session, actor } = adminContext(res);
      const reminded = await services.planAcceptances.remind(session.org_id, req.params.id, actor);
      res.status(200).json(toWirePlanAcceptance(reminded));
    },
  };
}
