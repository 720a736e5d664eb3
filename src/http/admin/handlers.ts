import type { Request, Response } from 'express';
import { stringify } from 'yaml';
import type { components, operations } from '../../../generated/openapi-admin.ts';
import type { AdminServices } from '../../composition.ts';
import { isPeriodId } from '../../domain/periods.ts';
import { describeChip, describeCondition } from '../../domain/plans/describe.ts';
import type { AuditFilters } from '../../repositories/audit.ts';
import type { PeriodRecord } from '../../repositories/periods.ts';
import { limitsOf } from '../../repositories/plans.ts';
import type { AdminError } from '../../services/adminError.ts';
import type { PeriodAdmin } from '../../services/periods.ts';
import type { RolledOutApply } from '../../services/planRollout.ts';
import type { ManagerEntry } from '../../services/repHierarchy.ts';
import type { RepWithTotals } from '../../services/reps.ts';
import { toAdmin, toApiKey, toAuditEntry, toEndpoint, toMe } from '../../wire/admin.ts';
import { toWireAdminPeriod } from '../../wire/periods.ts';
import { toWirePlanSummary } from '../../wire/plans.ts';
import { ApiError } from '../errors.ts';
import { pageRequest } from '../pages.ts';
import { importHandlers } from './imports.ts';
import {
  type AdminRequestContext,
  actorOf,
  clearedSessionCookie,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
} from './session.ts';

type Schemas = components['schemas'];
export type AdminOperationId = keyof operations;

/** The JSON body an operation answers with a status, from the admin contract. */
type Body<Id extends AdminOperationId, Status extends number> =
  operations[Id]['responses'] extends Record<Status, { content: { 'application/json': infer Payload } }>
    ? Payload
    : never;

type Query<Id extends AdminOperationId> = operations[Id]['parameters'] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;
type RequestBody<Id extends AdminOperationId> = operations[Id] extends {
  requestBody?: { content: { 'application/json': infer Payload } };
}
  ? Payload
  : never;

function send<Id extends AdminOperationId, Status extends number>(
  res: Response,
  _operation: Id,
  status: Status,
  body: Body<Id, Status>,
): void {
  res.status(status).json(body);
}

export interface AdminApiDeps {
  /** The admin use cases, from the composition root (src/composition.ts). */
  services: AdminServices;
  /** The served admin contract, as JSON text. */
  servedContract: string;
}

type Handler = (req: Request, res: Response) => Promise<void>;

/** One handler per operation of the admin contract: a missing one is a type error. */
export type AdminHandlers = Record<AdminOperationId, Handler>;

function context(res: Response): AdminRequestContext {
  return res.locals.admin as AdminRequestContext;
}

function idParam(res: Response): string {
  return (res.locals.pathParams as { id: string }).id;
}

/** The services' refusals in the API's error format. */
export function fromAdminError(error: AdminError): ApiError {
  switch (error.code) {
    case 'invalid_argument':
      return new ApiError('invalid_body', error.message);
    case 'not_found':
      return new ApiError('not_found', error.message);
    case 'invalid_state':
      return new ApiError('invalid_state', error.message);
    case 'invalid_plan_file':
      return new ApiError('invalid_plan_file', error.message, { extra: error.details });
  }
}

export function adminHandlers(deps: AdminApiDeps): AdminHandlers {
  const { services } = deps;
  const { sessions } = services;

  return {
    ...importHandlers(services.dealImport),

    getAdminOpenApiDocument: async (_req, res) => {
      res.type('json').set('Cache-Control', 'no-cache').send(deps.servedContract);
    },

    createSession: async (req, res) => {
      const body = req.body as RequestBody<'createSession'>;
      const result = await sessions.signIn({
        email: body.email,
        password: body.password,
        clientIp: req.ip ?? 'unknown',
        actor: (admin) => actorOf(req, res, admin),
      });
      if (!result.ok && result.reason === 'throttled') {
        throw new ApiError('rate_limited', 'too many failed sign-ins; wait before trying again', {
          retryAfterSeconds: result.retryAfterSeconds,
          headers: { 'Retry-After': String(result.retryAfterSeconds) },
        });
      }
      if (!result.ok) throw new ApiError('invalid_credentials', 'the email or the password is wrong');
      const session = sessions.withIdleEnd(result.session);
      res.append('Set-Cookie', sessionCookie(req, result.token, (session.expires_at.getTime() - Date.now()) / 1000));
      send(res, 'createSession', 201, toMe(session));
    },

    getSessionStatus: async (req, res) => {
      const token = readCookie(req.get('cookie'), SESSION_COOKIE);
      const session = token ? await sessions.peek(token) : null;
      send(res, 'getSessionStatus', 200, session ? { signed_in: true, me: toMe(session) } : { signed_in: false });
    },

    deleteSession: async (req, res) => {
      const { session, actor } = context(res);
      await sessions.signOut(session, actor);
      res.append('Set-Cookie', clearedSessionCookie(req));
      res.status(204).end();
    },

    getMe: async (_req, res) => {
      send(res, 'getMe', 200, toMe(context(res).session));
    },

    listApiKeys: async (_req, res) => {
      const { session } = context(res);
      const keys = await services.keys.list(session.org_id);
      send(res, 'listApiKeys', 200, { keys: keys.map(toApiKey) });
    },

    createApiKey: async (req, res) => {
      const { session, actor } = context(res);
      const body = req.body as RequestBody<'createApiKey'>;
      const created = await services.keys.create(
        {
          orgId: session.org_id,
          name: body.name,
          scopes: body.scopes.join(','),
          ...(body.rate_limit_per_minute === undefined ? {} : { rateLimit: String(body.rate_limit_per_minute) }),
        },
        actor,
      );
      send(res, 'createApiKey', 201, { key: toApiKey(created.record), raw_key: created.rawKey });
    },

    revokeApiKey: async (_req, res) => {
      const { session, actor } = context(res);
      const { record } = await services.keys.revoke(session.org_id, idParam(res), actor);
      send(res, 'revokeApiKey', 200, toApiKey(record));
    },

    listAuditEntries: async (req, res) => {
      const { session } = context(res);
      const query = req.query as Query<'listAuditEntries'>;
      const filters: AuditFilters = {
        ...(query.actor === undefined ? {} : { actor: query.actor }),
        ...(query.key_id === undefined ? {} : { keyId: query.key_id }),
        ...(query.action === undefined ? {} : { action: query.action }),
        ...(query.from === undefined ? {} : { from: new Date(query.from) }),
        ...(query.to === undefined ? {} : { to: new Date(query.to) }),
      };
      const page = await services.audit.listPage(session.org_id, {
        filters,
        ...pageRequest(query),
      });
      send(res, 'listAuditEntries', 200, {
        entries: page.entries.map(toAuditEntry),
        next_cursor: page.nextCursor,
      });
    },

    listPlans: async (_req, res) => {
      const { session } = context(res);
      const plans = await services.plans.list(session.org_id);
      send(res, 'listPlans', 200, {
        plans: plans.map((plan) => toWirePlanSummary(plan, plan.current_version_number, plan.current_limits)),
      });
    },

    getPlan: async (_req, res) => {
      const { session } = context(res);
      const history = await services.planHistory.of(session.org_id, idParam(res));
      if (!history) throw new ApiError('not_found', `no plan ${idParam(res)}`);
      const current = history.versions.find((version) => version.id === history.plan.current_version_id);
      send(res, 'getPlan', 200, {
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
            summary: describeChip(chip.definition),
            when: chip.definition.when ? describeCondition(chip.definition.when) : null,
            params: { ...chip.definition.params },
          })),
          changes: version.changes,
        })),
      });
    },

    applyPlanFile: async (req, res) => {
      const { session, actor } = context(res);
      const body = req.body as RequestBody<'applyPlanFile'>;
      const applied = await services.plans.apply(
        {
          orgId: session.org_id,
          text: body.text,
          ...(body.format === undefined ? {} : { format: body.format }),
          source: body.file_name || 'the plan file',
        },
        actor,
      );
      send(res, 'applyPlanFile', 200, {
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

    archivePlan: async (_req, res) => {
      const { session, actor } = context(res);
      const archived = await services.plans.archive(session.org_id, idParam(res), actor);
      send(res, 'archivePlan', 200, {
        plan: toWirePlanSummary(archived.plan, archived.current_version, archived.current_limits),
        changed: archived.changed,
      });
    },

    listPeriods: async (_req, res) => {
      const { session } = context(res);
      const periods = await services.periods.listWithTotals(session.org_id);
      send(res, 'listPeriods', 200, { periods: periods.map((period) => toWireAdminPeriod(period, period.totals)) });
    },

    lockPeriod: async (_req, res) => {
      await movePeriod(res, 'lockPeriod', (admin, orgId, periodId, actor) => admin.lock(orgId, periodId, actor));
    },

    markPeriodPaid: async (_req, res) => {
      await movePeriod(res, 'markPeriodPaid', (admin, orgId, periodId, actor) =>
        admin.markPaid(orgId, periodId, actor),
      );
    },

    listWebhookEndpoints: async (_req, res) => {
      const { session } = context(res);
      const endpoints = await services.webhooks.list(session.org_id);
      send(res, 'listWebhookEndpoints', 200, { endpoints: endpoints.map(toEndpoint) });
    },

    createWebhookEndpoint: async (req, res) => {
      const { session, actor } = context(res);
      const body = req.body as RequestBody<'createWebhookEndpoint'>;
      const created = await services.webhooks.add(
        {
          orgId: session.org_id,
          url: body.url,
          ...(body.events && body.events.length > 0 ? { events: body.events.join(',') } : {}),
        },
        actor,
      );
      send(res, 'createWebhookEndpoint', 201, { endpoint: toEndpoint(created.endpoint), secret: created.secret });
    },

    listWebhookDeliveries: async (req, res) => {
      const { session } = context(res);
      const query = req.query as Query<'listWebhookDeliveries'>;
      const deliveries = await services.webhooks.deliveries(
        session.org_id,
        idParam(res),
        query.limit === undefined ? undefined : String(query.limit),
      );
      send(res, 'listWebhookDeliveries', 200, {
        deliveries: deliveries.map((delivery) => ({
          message_id: delivery.message_id,
          type: delivery.type,
          message_created_at: delivery.message_created_at.toISOString(),
          status: delivery.status,
          attempt_count: delivery.attempt_count,
          in_flight: delivery.in_flight,
          next_attempt_at: delivery.next_attempt_at?.toISOString() ?? null,
          delivered_at: delivery.delivered_at?.toISOString() ?? null,
          attempts: delivery.attempts.map((attempt) => ({
            attempted_at: attempt.attempted_at.toISOString(),
            response_status: attempt.response_status,
            error: attempt.error,
          })),
        })),
      });
    },

    rotateWebhookSecret: async (_req, res) => {
      const { session, actor } = context(res);
      const rotated = await services.webhooks.rotateSecret(session.org_id, idParam(res), actor);
      send(res, 'rotateWebhookSecret', 200, { endpoint: toEndpoint(rotated.endpoint), secret: rotated.secret });
    },

    redeliverWebhookMessage: async (req, res) => {
      const { session, actor } = context(res);
      const body = (req.body ?? {}) as RequestBody<'redeliverWebhookMessage'>;
      const result = await services.webhooks.redeliver(session.org_id, idParam(res), body.endpoint_id, actor);
      send(res, 'redeliverWebhookMessage', 200, result);
    },

    listReps: async (_req, res) => {
      const { session } = context(res);
      const reps = await services.reps.list(session.org_id);
      send(res, 'listReps', 200, { reps: reps.map(toWireRep) });
    },

    listRepEarnings: async (req, res) => {
      const { session } = context(res);
      const { period } = req.query as Query<'listRepEarnings'>;
      if (!isPeriodId(period)) throw new ApiError('invalid_body', 'period: must be YYYY-MM or YYYY-Qn');
      const { rep, earnings } = await services.reps.earningsOfPeriod(session.org_id, idParam(res), period);
      send(res, 'listRepEarnings', 200, {
        rep: toWireRep(rep),
        period_id: period,
        earnings: earnings.map((row) => ({
          ...row,
          status: row.status as Schemas['RepEarning']['status'],
          created_at: row.created_at.toISOString(),
        })),
      });
    },

    listRepManagers: async (_req, res) => {
      const { session } = context(res);
      const rep = await services.reps.find(session.org_id, idParam(res));
      const entries = await services.repHierarchy.list(session.org_id, rep.external_id);
      send(res, 'listRepManagers', 200, toRepManagers(rep, entries, false, 0));
    },

    setRepManager: async (req, res) => {
      const { session, actor } = context(res);
      const body = req.body as RequestBody<'setRepManager'>;
      const rep = await services.reps.find(session.org_id, idParam(res));
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
      send(res, 'setRepManager', 200, toRepManagers(rep, result.entries, result.changed, recomputed));
    },

    listAdmins: async (_req, res) => {
      const { session } = context(res);
      const admins = await services.admins.list(session.org_id);
      send(res, 'listAdmins', 200, { admins: admins.map(toAdmin) });
    },
  };

  async function movePeriod(
    res: Response,
    operation: 'lockPeriod' | 'markPeriodPaid',
    move: (
      admin: PeriodAdmin,
      orgId: string,
      periodId: string,
      actor: AdminRequestContext['actor'],
    ) => Promise<{ period: PeriodRecord; changed: boolean; rows_moved: number }>,
  ): Promise<void> {
    const { session, actor } = context(res);
    const admin = services.periods;
    const result = await move(admin, session.org_id, idParam(res), actor);
    const withTotals = (await admin.listWithTotals(session.org_id)).find((period) => period.id === result.period.id);
    send(res, operation, 200, {
      period: toWireAdminPeriod(result.period, withTotals?.totals ?? []),
      changed: result.changed,
      rows_moved: result.rows_moved,
    });
  }
}

function toWireRep(rep: RepWithTotals): Schemas['Rep'] {
  return { id: rep.id, external_id: rep.external_id, periods: rep.periods };
}

/** Rows the recompute after a plan change wrote, superseded or reversed. */
function rowsChanged(summary: RolledOutApply['recompute']): number {
  return summary ? summary.rows_written + summary.rows_superseded + summary.rows_reversed : 0;
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
