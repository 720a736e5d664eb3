import type { operations } from '../../../generated/openapi.ts';
import type { AdjustmentReader } from '../../services/adjustmentReader.ts';
import { toWireAdjustment } from '../../wire/adjustments.ts';
import { viewerOf } from '../middleware/authenticate.ts';
import { pageRequest } from '../pages.ts';
import type { PublicHandlers } from './index.ts';

type AdjustmentList = operations['listAdjustments']['responses'][200]['content']['application/json'];
type ListQuery = NonNullable<operations['listAdjustments']['parameters']['query']>;

export interface AdjustmentRouteDeps {
  adjustmentReader: AdjustmentReader;
}

/** The org's manual adjustments, for integrators that mirror pay (a rep token: its rep's and their reports'). */
export function adjustmentHandlers(deps: AdjustmentRouteDeps): Pick<PublicHandlers, 'listAdjustments'> {
  return {
    listAdjustments: async (req, res) => {
      const query = req.query as ListQuery;
      const page = await deps.adjustmentReader.listPage(viewerOf(res), {
        filters: {
          ...(query.period_id === undefined ? {} : { periodId: query.period_id }),
          ...(query.user_id === undefined ? {} : { userId: query.user_id }),
          ...(query.user_external_id === undefined ? {} : { userExternalId: query.user_external_id }),
        },
        ...pageRequest(query),
      });
      const body: AdjustmentList = {
        adjustments: page.adjustments.map(toWireAdjustment),
        next_cursor: page.nextCursor,
      };
      res.json(body);
    },
  };
}
