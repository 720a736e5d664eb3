import type { components, operations } from '../../../generated/openapi.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { PlanDocuments } from '../../services/planDocuments.ts';
import type { PlanReader } from '../../services/plans.ts';
import { toWireChip, toWirePlan, toWirePlanListItem } from '../../wire/plans.ts';
import { viewerOf } from '../middleware/authenticate.ts';
import { planDocumentFormat, sendPlanDocument } from '../planDocumentResponse.ts';
import type { PublicHandlers } from './index.ts';

type Plan = components['schemas']['Plan'];
type PlanList = operations['listPlans']['responses'][200]['content']['application/json'];
type GetPlanParams = operations['getPlan']['parameters'];
type GetPlanDocumentParams = operations['getPlanDocument']['parameters'];

export interface PlanRouteDeps {
  planReader: PlanReader;
  planDocuments: PlanDocuments;
}

export function planHandlers(deps: PlanRouteDeps): Pick<PublicHandlers, 'listPlans' | 'getPlan' | 'getPlanDocument'> {
  return {
    listPlans: async (_req, res) => {
      const viewer = viewerOf(res);
      const plans = await deps.planReader.listActive(viewer);
      const body: PlanList = {
        plans: plans.map(toWirePlanListItem),
      };
      res.json(body);
    },

    // The contract validator has already refused an `include` other than `chips` (400 invalid_body naming it).
    // The current version is read either way: it says who the plan applies to (`assignees`).
    getPlan: async (req, res) => {
      const viewer = viewerOf(res);
      const { id } = req.params as GetPlanParams['path'];
      const query = req.query as NonNullable<GetPlanParams['query']>;
      const snapshot = await deps.planReader.withCurrentChips(viewer, id);
      if (!snapshot) throw new Refusal('not_found', `no plan ${id}`);
      const body: Plan =
        query.include === 'chips'
          ? { ...toWirePlan(snapshot), chips: snapshot.chips.map(toWireChip) }
          : toWirePlan(snapshot);
      res.json(body);
    },

    // Read as getPlan reads: a rep principal sees the documents of the plans their reps are assigned to, else 404.
    // A rep principal's document is its rep's own (their quota); `user_id` names another rep it may see.
    getPlanDocument: async (req, res) => {
      const viewer = viewerOf(res);
      const { id } = req.params as GetPlanDocumentParams['path'];
      const query = (req.query ?? {}) as NonNullable<GetPlanDocumentParams['query']>;
      const document = await deps.planDocuments.model({
        viewer,
        planId: id,
        ...(query.version_id === undefined ? {} : { versionId: query.version_id }),
        ...(query.user_id === undefined ? {} : { userId: query.user_id }),
      });
      if (!document) {
        throw new Refusal(
          'not_found',
          query.version_id === undefined ? `no plan ${id}` : `no version ${query.version_id} of plan ${id}`,
        );
      }
      await sendPlanDocument(res, deps.planDocuments, document, planDocumentFormat(req, query.format));
    },
  };
}
