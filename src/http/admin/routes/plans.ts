import { stringify } from 'yaml';
import type { AdminServices } from '../../../composition.ts';
import { describeChip, describeCondition } from '../../../domain/plans/describe.ts';
import { Refusal } from '../../../domain/refusal.ts';
import { orgViewer } from '../../../domain/viewer.ts';
import { limitsOf } from '../../../repositories/plans.ts';
import type { RolledOutApply } from '../../../services/planRollout.ts';
import { toWirePlanSummary } from '../../../wire/plans.ts';
import { planDocumentFormat, sendPlanDocument } from '../../planDocumentResponse.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

export function planHandlers(
  services: AdminServices,
): Pick<
  AdminHandlers,
  | 'listPlans'
  | 'getPlan'
  | 'getPlanVersionDocument'
  | 'applyPlanFile'
  | 'archivePlan'
  | 'getPlanDocumentTerms'
  | 'updatePlanDocumentTerms'
> {
  return {
    getPlanDocumentTerms: async (_req, res) => {
      const { session } = adminContext(res);
      res.status(200).json(await services.planDocuments.terms(session.org_id));
    },

    updatePlanDocumentTerms: async (req, res) => {
      const { session, actor } = adminContext(res);
      res.status(200).json(await services.planDocuments.updateTerms(session.org_id, req.body, actor));
    },

    listPlans: async (_req, res) => {
      const { session } = adminContext(res);
      const plans = await services.plans.list(session.org_id);
      res.status(200).json({
        plans: plans.map((plan) => toWirePlanSummary(plan, plan.current_version_number, plan.current_limits)),
      });
    },

    getPlan: async (req, res) => {
      const { session } = adminContext(res);
      const { id } = req.params;
      const history = await services.planHistory.of(session.org_id, id);
      if (!history) throw new Refusal('not_found', `no plan ${id}`);
      const current = history.versions.find((version) => version.id === history.plan.current_version_id);
      res.status(200).json({
        plan: toWirePlanSummary(
          history.plan,
          current?.number ?? history.versions[0]?.number ?? 1,
          limitsOf(current?.definition ?? history.versions[0]?.definition ?? {}),
        ),
        versions: history.versions.map((version) => ({
          id: version.id,
          number: version.number,
          created_at: version.created_at.toISOString(),
          file: stringify(version.definition),
          chips: version.chips.map((chip) => ({
            id: chip.id,
            key: chip.definition.key,
            name: chip.definition.name,
            kind: chip.definition.kind,
            version: chip.version,
            summary: describeChip(chip.definition, history.currency),
            when: chip.definition.when ? describeCondition(chip.definition.when) : null,
            params: { ...chip.definition.params },
          })),
          changes: version.changes,
        })),
      });
    },

    getPlanVersionDocument: async (req, res) => {
      const { session } = adminContext(res);
      const { id, version_id } = req.params;
      const document = await services.planDocuments.model({
        viewer: orgViewer(session.org_id),
        planId: id,
        versionId: version_id,
        ...(req.query.user_id === undefined ? {} : { userId: req.query.user_id }),
      });
      if (!document) throw new Refusal('not_found', `no version ${version_id} of plan ${id}`);
      await sendPlanDocument(res, services.planDocuments, document, planDocumentFormat(req, req.query.format));
    },

    applyPlanFile: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      const applied = await services.plans.apply(
        {
          orgId: session.org_id,
          text: body.text,
          ...(body.format === undefined ? {} : { format: body.format }),
          source: body.file_name || 'the plan file',
        },
        actor,
      );
      res.status(200).json({
        plan_id: applied.plan_id,
        version_id: applied.version_id,
        version: applied.version,
        changed: applied.changed,
        reactivated: applied.reactivated,
        chips: applied.chips,
        removed_chips: applied.removed_chips,
        rows_recomputed: rowsChanged(applied.recompute),
      });
    },

    archivePlan: async (req, res) => {
      const { session, actor } = adminContext(res);
      const archived = await services.plans.archive(session.org_id, req.params.id, actor);
      res.status(200).json({
        plan: toWirePlanSummary(archived.plan, archived.current_version, archived.current_limits),
        changed: archived.changed,
      });
    },
  };
}

/** Rows the recompute after a plan change wrote, superseded or reversed. */
function rowsChanged(summary: RolledOutApply['recompute']): number {
  return summary ? summary.rows_written + summary.rows_superseded + summary.rows_reversed : 0;
}
