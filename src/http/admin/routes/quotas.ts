import type { components } from '../../../../generated/openapi-admin.ts';
import type { AdminServices } from '../../../composition.ts';
import { Refusal } from '../../../domain/refusal.ts';
import type { QuotaChangeResult, QuotaEntryView } from '../../../services/quotas.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

type Schemas = components['schemas'];

// Reps' quota tables and start dates (docs/quotas.md): thin handlers over QuotaAdmin, the CLI's use case.

export function quotaHandlers(
  services: AdminServices,
): Pick<AdminHandlers, 'listQuotas' | 'setQuota' | 'importQuotaFile' | 'getRepStartDate' | 'setRepStartDate'> {
  return {
    listQuotas: async (req, res) => {
      const { session } = adminContext(res);
      const { rep, plan } = req.query;
      const entries = await services.quotas.list(session.org_id, {
        ...(rep === undefined ? {} : { repExternalId: rep }),
        ...(plan === undefined ? {} : { planKey: plan }),
      });
      res.status(200).json({ quotas: entries.map(toWireEntry) });
    },

    setQuota: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      if (body.quota === undefined && body.quota_cents === undefined) {
        throw new Refusal('invalid_body', 'quota: send quota (major units of the plan currency) or quota_cents');
      }
      const result = await services.quotas.set(
        {
          orgId: session.org_id,
          repExternalId: body.rep_external_id,
          planKey: body.plan_key,
          from: body.from,
          quotaCents: body.quota_cents ?? null,
          ...(body.quota === undefined ? {} : { quota: body.quota }),
        },
        actor,
      );
      res.status(200).json(toWireSummary(result));
    },

    importQuotaFile: async (req, res) => {
      const { session, actor } = adminContext(res);
      const result = await services.quotas.importFile({ orgId: session.org_id, text: req.body.text }, actor);
      res.status(200).json(toWireSummary(result));
    },

    getRepStartDate: async (req, res) => {
      const { session } = adminContext(res);
      const rep = await services.reps.findByIdOrExternalId(session.org_id, req.params.id);
      const startDate = await services.quotas.startDate(session.org_id, rep.external_id);
      res.status(200).json({ rep_id: rep.id, rep_external_id: rep.external_id, start_date: startDate });
    },

    setRepStartDate: async (req, res) => {
      const { session, actor } = adminContext(res);
      const rep = await services.reps.findByIdOrExternalId(session.org_id, req.params.id);
      const result = await services.quotas.setStartDate(
        { orgId: session.org_id, repExternalId: rep.external_id, startDate: req.body.start_date },
        actor,
      );
      res.status(200).json(toWireSummary(result));
    },
  };
}

function toWireEntry(entry: QuotaEntryView): Schemas['QuotaEntry'] {
  return { ...entry, updated_at: entry.updated_at.toISOString() };
}

function toWireSummary(result: QuotaChangeResult): Schemas['QuotaChangeSummary'] {
  const recompute = result.recompute;
  return {
    rows: result.rows,
    quotas_changed: result.quotas_changed,
    start_dates_changed: result.start_dates_changed,
    display_names_changed: result.display_names_changed,
    changed: result.changed,
    rows_recomputed: recompute ? recompute.rows_written + recompute.rows_superseded + recompute.rows_reversed : 0,
  };
}
