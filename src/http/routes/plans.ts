import type { components, operations } from '../../../generated/openapi.ts';
import { limitsOf, type PlanVersionSnapshot, type VersionChip } from '../../repositories/plans.ts';
import type { PlanReader } from '../../services/plans.ts';
import { ApiError } from '../errors.ts';
import type { ContractHandlers } from '../handlers.ts';
import type { RequestAuth } from '../middleware/authenticate.ts';

type Plan = components['schemas']['Plan'];
type RuleChip = components['schemas']['RuleChip'];
type PlanList = operations['listPlans']['responses'][200]['content']['application/json'];
type GetPlanParams = operations['getPlan']['parameters'];

export interface PlanRouteDeps {
  planReader: PlanReader;
}

export function planHandlers(deps: PlanRouteDeps): Pick<ContractHandlers, 'listPlans' | 'getPlan'> {
  return {
    listPlans: async (_req, res) => {
      const { orgId } = res.locals.auth as RequestAuth;
      const plans = await deps.planReader.listActive(orgId);
      const body: PlanList = {
        plans: plans.map((plan) => ({
          id: plan.id,
          name: plan.name,
          current_version_id: plan.current_version_id,
          created_at: plan.created_at.toISOString(),
        })),
      };
      res.json(body);
    },

    // The contract validator has already refused an `include` other than `chips` (400 invalid_body naming it).
    // The current version is read either way: it says who the plan applies to (`assignees`).
    getPlan: async (req, res) => {
      const { orgId } = res.locals.auth as RequestAuth;
      const { id } = req.params as GetPlanParams['path'];
      const query = req.query as NonNullable<GetPlanParams['query']>;
      const snapshot = await deps.planReader.withCurrentChips(orgId, id);
      if (!snapshot) throw new ApiError('not_found', `no plan ${id}`);
      const body: Plan =
        query.include === 'chips'
          ? { ...toWirePlan(snapshot), chips: snapshot.chips.map(toWireChip) }
          : toWirePlan(snapshot);
      res.json(body);
    },
  };
}

function toWirePlan({ plan, definition }: PlanVersionSnapshot): Plan {
  return {
    id: plan.id,
    key: plan.key,
    name: plan.name,
    status: plan.status,
    period: plan.period,
    quota_cents: plan.quota_cents,
    ...limitsOf(definition),
    assignees: definition.assignees === 'all' ? 'all' : [...definition.assignees],
    current_version_id: plan.current_version_id,
    created_at: plan.created_at.toISOString(),
    updated_at: plan.updated_at.toISOString(),
  };
}

function toWireChip(chip: VersionChip): RuleChip {
  const { definition } = chip;
  return {
    id: chip.id,
    key: definition.key,
    name: definition.name,
    kind: definition.kind,
    version: chip.version,
    when: definition.when,
    params: { ...definition.params },
  };
}
