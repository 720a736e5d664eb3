import type { components } from '../../../../generated/openapi-admin.ts';
import type { AdminServices } from '../../../composition.ts';
import { isPeriodId } from '../../../domain/periods.ts';
import { Refusal } from '../../../domain/refusal.ts';
import type { RepDeparture } from '../../../services/repDepartures.ts';
import type { ManagerEntry } from '../../../services/repHierarchy.ts';
import type { RepWithTotals } from '../../../services/reps.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

type Schemas = components['schemas'];

export function repHandlers(
  services: AdminServices,
): Pick<
  AdminHandlers,
  | 'listReps'
  | 'listRepEarnings'
  | 'setRepDisplayName'
  | 'listRepManagers'
  | 'setRepManager'
  | 'deactivateRep'
  | 'reactivateRep'
> {
  return {
    listReps: async (_req, res) => {
      const { session } = adminContext(res);
      const reps = await services.reps.list(session.org_id);
      res.status(200).json({ reps: reps.map(toWireRep) });
    },

    listRepEarnings: async (req, res) => {
      const { session } = adminContext(res);
      const { period } = req.query;
      if (!isPeriodId(period)) throw new Refusal('invalid_body', 'period: must be YYYY-MM or YYYY-Qn');
      const { rep, earnings } = await services.reps.earningsOfPeriod(session.org_id, req.params.id, period);
      res.status(200).json({
        rep: toWireRep(rep),
        period_id: period,
        earnings: earnings.map((row) => ({
          ...row,
          status: row.status as Schemas['RepEarning']['status'],
          created_at: row.created_at.toISOString(),
        })),
      });
    },

    setRepDisplayName: async (req, res) => {
      const { session, actor } = adminContext(res);
      const rep = await services.reps.findByIdOrExternalId(session.org_id, req.params.id);
      const result = await services.repNames.setByAdmin(
        { orgId: session.org_id, userId: rep.id, name: req.body.display_name },
        actor,
      );
      res.status(200).json({
        rep_id: result.user_id,
        rep_external_id: result.external_id,
        display_name: result.display_name,
        display_name_source: result.display_name_source,
        changed: result.changed,
      });
    },

    deactivateRep: async (req, res) => {
      const { session, actor } = adminContext(res);
      const rep = await services.reps.findByIdOrExternalId(session.org_id, req.params.id);
      const departure = await services.repDepartures.deactivate(session.org_id, rep.id, req.body.leaving_date, actor);
      res.status(200).json(toWireDeparture(departure));
    },

    reactivateRep: async (req, res) => {
      const { session, actor } = adminContext(res);
      const rep = await services.reps.findByIdOrExternalId(session.org_id, req.params.id);
      res.status(200).json(toWireDeparture(await services.repDepartures.reactivate(session.org_id, rep.id, actor)));
    },

    listRepManagers: async (req, res) => {
      const { session } = adminContext(res);
      const rep = await services.reps.findByIdOrExternalId(session.org_id, req.params.id);
      const entries = await services.repHierarchy.list(session.org_id, rep.external_id);
      res.status(200).json(toRepManagers(rep, entries, false, 0));
    },

    setRepManager: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      const rep = await services.reps.findByIdOrExternalId(session.org_id, req.params.id);
      const result = await services.repHierarchy.setManager(
        {
          orgId: session.org_id,
          repExternalId: rep.external_id,
          managerExternalId: body.manager_external_id,
          ...(body.from === undefined ? {} : { from: body.from }),
        },
        actor,
      );
      const recomputed = result.recompute
        ? result.recompute.rows_written + result.recompute.rows_superseded + result.recompute.rows_reversed
        : 0;
      res.status(200).json(toRepManagers(rep, result.entries, result.changed, recomputed));
    },
  };
}

function toWireRep(rep: RepWithTotals): Schemas['Rep'] {
  return {
    id: rep.id,
    external_id: rep.external_id,
    display_name: rep.display_name,
    display_name_source: rep.display_name_source as Schemas['Rep']['display_name_source'],
    leaving_date: rep.leaving_date?.toISOString().slice(0, 10) ?? null,
    deactivated_at: rep.deactivated_at?.toISOString() ?? null,
    periods: rep.periods,
  };
}

function toWireDeparture(departure: RepDeparture): Schemas['RepDeparture'] {
  return { ...departure, deactivated_at: departure.deactivated_at?.toISOString() ?? null };
}

function toRepManagers(
  rep: { id: string; external_id: string },
  entries: readonly ManagerEntry[],
  changed: boolean,
  rowsRecomputed: number,
): Schemas['RepManagers'] {
  return {
    rep_id: rep.id,
    rep_external_id: rep.external_id,
    entries: entries.map((entry) => ({ manager_external_id: entry.manager_external_id, from: entry.from })),
    changed,
    rows_recomputed: rowsRecomputed,
  };
}
