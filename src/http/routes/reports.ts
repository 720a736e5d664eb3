import type { operations } from '../../../generated/openapi.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { PayoutReader } from '../../services/payouts.ts';
import type { StatementReader } from '../../services/statements.ts';
import { viewerOf } from '../middleware/authenticate.ts';
import { pageRequest } from '../pages.ts';
import type { PublicHandlers } from './index.ts';

type Statement = operations['getStatement']['responses'][200]['content']['application/json'];
type StatementParams = operations['getStatement']['parameters']['path'];
type PayoutList = operations['listPayouts']['responses'][200]['content']['application/json'];
type PayoutQuery = operations['listPayouts']['parameters']['query'];

export interface ReportRouteDeps {
  statementReader: StatementReader;
  payoutReader: PayoutReader;
}

/** Answers for reps and payroll: a rep's statement for a period, and a locked period's payouts. */
export function reportHandlers(deps: ReportRouteDeps): Pick<PublicHandlers, 'getStatement' | 'listPayouts'> {
  return {
    getStatement: async (req, res) => {
      const viewer = viewerOf(res);
      const { id, period_id } = req.params as StatementParams;
      const statement = await deps.statementReader.statement(viewer, id, period_id);
      if (!statement) throw new Refusal('not_found', `no user ${id}`);
      res.json(statement satisfies Statement);
    },

    listPayouts: async (req, res) => {
      const viewer = viewerOf(res);
      const query = req.query as unknown as PayoutQuery;
      const page = await deps.payoutReader.page(viewer, query.period_id, pageRequest(query));
      const body: PayoutList = { period: page.period, payouts: page.payouts, next_cursor: page.nextCursor };
      res.json(body);
    },
  };
}
