import type { operations } from '../../../generated/openapi.ts';
import { statementCsv, statementFileName } from '../../domain/earnings/statementCsv.ts';
import { statementPdfDocument } from '../../domain/earnings/statementPdf.ts';
import { Refusal } from '../../domain/refusal.ts';
import { renderPdf } from '../../lib/pdf/index.ts';
import type { PayoutReader } from '../../services/payouts.ts';
import type { StatementReader } from '../../services/statements.ts';
import { viewerOf } from '../middleware/authenticate.ts';
import { pageRequest } from '../pages.ts';
import type { PublicHandlers } from './index.ts';

type Statement = operations['getStatement']['responses'][200]['content']['application/json'];
type StatementParams = operations['getStatement']['parameters']['path'];
type StatementQuery = NonNullable<operations['getStatement']['parameters']['query']>;
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
      const format = statementFormat(
        req.query as StatementQuery,
        req.accepts(['application/json', 'text/csv', 'application/pdf']),
      );
      if (format === 'json') {
        res.json(statement satisfies Statement);
        return;
      }
      const file =
        format === 'csv'
          ? statementCsv(statement)
          : Buffer.from(await renderPdf(statementPdfDocument(statement, new Date())));
      res
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/pdf')
        .set('Content-Disposition', `attachment; filename="${statementFileName(statement, format)}"`)
        .set('Cache-Control', 'no-store')
        .send(file as never);
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

/** `format` when given, else what the Accept header prefers; JSON unless a file is asked for. */
function statementFormat(query: StatementQuery, accepted: string | false): 'json' | 'csv' | 'pdf' {
  if (query.format) return query.format;
  if (accepted === 'text/csv') return 'csv';
  return accepted === 'application/pdf' ? 'pdf' : 'json';
}
