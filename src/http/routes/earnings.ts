import type { components, operations } from '../../../generated/openapi.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { EarningListFilters } from '../../repositories/earningsList.ts';
import type { EarningReader } from '../../services/earnings/reader.ts';
import { toWireEarning } from '../../wire/earnings.ts';
import { viewerOf } from '../middleware/authenticate.ts';
import { pageRequest } from '../pages.ts';
import type { PublicHandlers } from './index.ts';

type Earning = components['schemas']['Earning'];
type EarningList = operations['listEarnings']['responses'][200]['content']['application/json'];
type ListQuery = NonNullable<operations['listEarnings']['parameters']['query']>;
type GetParams = operations['getEarning']['parameters'];

export interface EarningRouteDeps {
  earningReader: EarningReader;
}

export function earningHandlers(deps: EarningRouteDeps): Pick<PublicHandlers, 'listEarnings' | 'getEarning'> {
  return {
    listEarnings: async (req, res) => {
      const viewer = viewerOf(res);
      const query = req.query as ListQuery;
      const page = await deps.earningReader.listPage(viewer, { filters: listFilters(query), ...pageRequest(query) });
      const body: EarningList = { earnings: page.earnings.map(toWireEarning), next_cursor: page.nextCursor };
      res.json(body);
    },

    getEarning: async (req, res) => {
      const viewer = viewerOf(res);
      const { id } = req.params as GetParams['path'];
      const earning = await deps.earningReader.find(viewer, id);
      if (!earning) throw new Refusal('not_found', `no earning ${id}`);
      const body: Earning = { ...toWireEarning(earning), trace: earning.trace };
      res.json(body);
    },
  };
}

/** The validator has checked every value; a single `status` may still arrive as a plain string. */
function listFilters(query: ListQuery): EarningListFilters {
  const statuses = query.status === undefined ? undefined : ([] as ListQuery['status'] & {}).concat(query.status);
  return {
    ...(query.user_id === undefined ? {} : { userId: query.user_id }),
    ...(query.user_external_id === undefined ? {} : { userExternalId: query.user_external_id }),
    ...(query.period_id === undefined ? {} : { periodId: query.period_id }),
    ...(query.deal_id === undefined ? {} : { dealId: query.deal_id }),
    ...(query.plan_id === undefined ? {} : { planId: query.plan_id }),
    ...(statuses === undefined ? {} : { statuses }),
    ...(query.created_since === undefined ? {} : { createdSince: new Date(query.created_since) }),
  };
}
