import type { Request, Response } from 'express';
import type { components } from '../../../../generated/openapi-admin.ts';
import type { AdminServices } from '../../../composition.ts';
import {
  journalCsv,
  rollForwardCsv,
  toWireAccountingPolicyVersion,
  toWireJournal,
  toWireRollForward,
  toWireSchedules,
  toWireWaterfall,
  waterfallCsv,
} from '../../../wire/accounting.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

// The accounting books in the admin API: thin handlers over the AccountingBooks service and its wire mappers. The
// reports answer JSON, or CSV with `format=csv` (the same rows as `quotient accounting … --format csv`).

interface ReportQuery {
  from: string;
  to?: string;
  format?: 'json' | 'csv';
  by?: 'deal' | 'rep';
}

function rangeOf(query: ReportQuery): { from: string; to: string } {
  return { from: query.from, to: query.to ?? query.from };
}

/** The report as JSON, or as its CSV export when the query asks for it. */
function answer<Body>(res: Response, query: ReportQuery, body: Body, toCsv: (body: Body) => string): void {
  if (query.format === 'csv') res.status(200).type('text/csv; charset=utf-8').send(toCsv(body));
  else res.status(200).json(body);
}

export function accountingHandlers(
  services: AdminServices,
): Pick<
  AdminHandlers,
  | 'getAccountingPolicy'
  | 'applyAccountingPolicyFile'
  | 'getAccountingRollForward'
  | 'getAccountingWaterfall'
  | 'getAccountingJournal'
  | 'listAccountingSchedules'
  | 'closeAccountingMonth'
> {
  const books = services.accounting;
  return {
    getAccountingPolicy: async (_req: Request, res: Response) => {
      const { session } = adminContext(res);
      res.status(200).json(toWireAccountingPolicyVersion(await books.currentPolicy(session.org_id)));
    },

    applyAccountingPolicyFile: async (req: Request, res: Response) => {
      const { session, actor } = adminContext(res);
      const body = req.body as components['schemas']['PlanFile'];
      const applied = await books.applyPolicy(
        {
          orgId: session.org_id,
          text: body.text,
          ...(body.format ? { format: body.format } : {}),
          ...(body.file_name ? { source: body.file_name } : {}),
        },
        actor,
      );
      res.status(200).json({ ...toWireAccountingPolicyVersion(applied.version), changed: applied.changed });
    },

    getAccountingRollForward: async (req: Request, res: Response) => {
      const { session } = adminContext(res);
      const query = req.query as unknown as ReportQuery;
      const report = toWireRollForward(await books.rollForward(session.org_id, rangeOf(query)));
      answer(res, query, report, rollForwardCsv);
    },

    getAccountingWaterfall: async (req: Request, res: Response) => {
      const { session } = adminContext(res);
      const query = req.query as unknown as ReportQuery;
      const report = toWireWaterfall(await books.waterfall(session.org_id, query.by ?? 'deal', rangeOf(query)));
      answer(res, query, report, waterfallCsv);
    },

    getAccountingJournal: async (req: Request, res: Response) => {
      const { session } = adminContext(res);
      const query = req.query as unknown as ReportQuery;
      const report = toWireJournal(await books.journal(session.org_id, rangeOf(query)));
      answer(res, query, report, journalCsv);
    },

    listAccountingSchedules: async (req: Request, res: Response) => {
      const { session } = adminContext(res);
      const query = req.query as { deal_external_id?: string; user_external_id?: string };
      const of = {
        ...(query.deal_external_id === undefined ? {} : { deal: query.deal_external_id }),
        ...(query.user_external_id === undefined ? {} : { rep: query.user_external_id }),
      };
      res.status(200).json(toWireSchedules(await books.schedules(session.org_id, of)));
    },

    closeAccountingMonth: async (req: Request, res: Response) => {
      const { session, actor } = adminContext(res);
      const body = req.body as components['schemas']['AccountingCloseRequest'];
      res.status(200).json(await books.close(session.org_id, body.month, actor));
    },
  };
}
