import type { operations } from '../../../generated/openapi.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { PlanAcceptances } from '../../services/planAcceptances.ts';
import { toWirePlanAcceptance } from '../../wire/planAcceptances.ts';
import { type RequestAuth, viewerOf } from '../middleware/authenticate.ts';
import type { ContractOperation } from '../operations.ts';
import { pageRequest } from '../pages.ts';
import { planDocumentFormat, sendPlanDocument } from '../planDocumentResponse.ts';
import type { PublicHandlers } from './index.ts';
import type { PlanRouteDeps } from './plans.ts';

type ListQuery = NonNullable<operations['listPlanAcceptances']['parameters']['query']>;
type IdPath = operations['getPlanAcceptance']['parameters']['path'];
type DocumentQuery = NonNullable<operations['getPlanAcceptanceDocument']['parameters']['query']>;
type AcceptPath = operations['acceptPlan']['parameters']['path'];
type AcceptBody = operations['acceptPlan']['requestBody']['content']['application/json'];
type AcceptanceList = operations['listPlanAcceptances']['responses'][200]['content']['application/json'];

export interface PlanAcceptanceRouteDeps {
  planAcceptances: PlanAcceptances;
}

/** Plan acceptances on /v1 (docs/plan-acceptance.md): read by the viewer's rules, accepted by the rep themself. */
export function planAcceptanceHandlers(
  deps: PlanAcceptanceRouteDeps & Pick<PlanRouteDeps, 'planDocuments'>,
): Pick<PublicHandlers, 'listPlanAcceptances' | 'getPlanAcceptance' | 'getPlanAcceptanceDocument' | 'acceptPlan'> {
  return {
    listPlanAcceptances: async (req, res) => {
      const query = req.query as ListQuery;
      const page = await deps.planAcceptances.list(viewerOf(res), {
        filters: {
          ...(query.user_id === undefined ? {} : { userId: query.user_id }),
          ...(query.plan_id === undefined ? {} : { planId: query.plan_id }),
          ...(query.state === undefined ? {} : { state: query.state }),
        },
        ...pageRequest(query),
      });
      const body: AcceptanceList = {
        plan_acceptances: page.acceptances.map(toWirePlanAcceptance),
        next_cursor: page.nextCursor,
      };
      res.json(body);
    },

    getPlanAcceptance: async (req, res) => {
      const { id } = req.params as IdPath;
      const acceptance = await deps.planAcceptances.get(viewerOf(res), id);
      if (!acceptance) throw new Refusal('not_found', `no plan acceptance ${id}`);
      res.json(toWirePlanAcceptance(acceptance));
    },

    // The JSON form is the kept text itself, byte for byte: its SHA-256 is the acceptance's document_sha256.
    getPlanAcceptanceDocument: async (req, res) => {
      const { id } = req.params as IdPath;
      const query = (req.query ?? {}) as DocumentQuery;
      const kept = await deps.planAcceptances.document(viewerOf(res), id);
      if (!kept) throw new Refusal('not_found', `no plan acceptance ${id}`);
      const format = planDocumentFormat(req, query.format);
      if (format === 'json') {
        res.status(200).type('application/json; charset=utf-8').send(kept.text);
        return;
      }
      await sendPlanDocument(res, deps.planDocuments, kept.model, format);
    },

    acceptPlan: async (req, res) => {
      const auth = res.locals.auth as RequestAuth;
      if (auth.kind !== 'rep') {
        throw new Refusal(
          'rep_token_required',
          "accepting a plan is the rep's own act: call with the rep's token, not an API key",
        );
      }
      const { id } = req.params as AcceptPath;
      const body = req.body as AcceptBody;
      const result = await deps.planAcceptances.accept(
        { orgId: auth.orgId, userId: auth.viewer.userId, tokenId: auth.viewer.tokenId },
        id,
        {
          typedName: body.typed_name,
          ...(body.plan_version_id === undefined ? {} : { planVersionId: body.plan_version_id }),
        },
        {
          requestId: (res.locals.requestId as string | undefined) ?? null,
          method: req.method,
          route: (res.locals.operation as ContractOperation).pathTemplate,
          clientIp: req.ip ?? null,
          userAgent: req.get('user-agent') ?? null,
        },
      );
      res.json({ plan_acceptance: toWirePlanAcceptance(result.acceptance), changed: result.changed });
    },
  };
}
