import type { Request, Router } from 'express';
import SCIMMYRouters, { SCIMMY } from 'scimmy-routers';
import { Refusal } from '../../domain/refusal.ts';
import type { Logger } from '../../lib/logger.ts';
import type { ScimRepRecord } from '../../repositories/scimUsers.ts';
import type { ScimCaller, ScimProvisioning, ScimUserInput } from '../../services/scimProvisioning.ts';
import { normaliseEntraPatch } from './entraPatch.ts';

/** Where SCIM clients are pointed (their "SCIM connector base URL" or "Tenant URL"). */
export const SCIM_PATH = '/scim/v2';

/** Quotient's extension of the SCIM User: the rep's CRM owner id and a leaver's last day. */
export const QUOTIENT_EXTENSION = 'urn:ietf:params:scim:schemas:extension:quotient:2.0:User';

interface Context {
  caller: ScimCaller;
  provisioning: ScimProvisioning;
  logger: Logger;
  requestId: string;
}

const contexts = new WeakMap<Request, Context>();

/**
 * SCIM 2.0 (RFC 7643 and 7644) for the reps of an org, as an identity provider's provisioning client speaks it: the
 * protocol, its schemas, filters, PATCH and its error documents are the library's (SCIMMY, through scimmy-routers);
 * what a user means for Quotient is ScimProvisioning's. The contract of these paths is the SCIM RFCs, not the
 * OpenAPI documents: their errors are SCIM errors, as SCIM clients expect (docs/sso.md#provisioning-with-scim).
 */
export function scimRouter(provisioning: ScimProvisioning, logger: Logger): Router {
  declareUsers();
  const router = new SCIMMYRouters({
    type: 'bearer',
    docUri: 'https://quotient.example/docs/sso.md#provisioning-with-scim',
    handler: async (req) => {
      const token = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
      const caller = token ? await provisioning.authenticate(token) : null;
      if (!caller) throw new Error('a SCIM token of one of the org’s identity providers is required');
      contexts.set(req, { caller, provisioning, logger, requestId: String(req.get('x-request-id') ?? '') });
      return caller.providerId;
    },
    context: (req) => contexts.get(req),
    baseUri: (req) => `${req.protocol}://${req.get('host')}`,
  });
  // One request at a time and no /Bulk: Okta and Entra send single operations.
  SCIMMY.Config.set({ bulk: false, changePassword: false, etag: false, sort: true, filter: true, patch: true });
  const outer = normaliseEntraPatch();
  outer.use(SCIM_PATH, router);
  return outer;
}

const QUOTIENT_USER = new SCIMMY.Types.SchemaDefinition('QuotientUser', QUOTIENT_EXTENSION, 'A rep of Quotient', [
  new SCIMMY.Types.Attribute('string', 'repExternalId', {
    description: "The rep's CRM owner id (their external id in Quotient)",
  }),
  new SCIMMY.Types.Attribute('string', 'leavingDate', {
    description: 'A leaver’s last day (YYYY-MM-DD); when a user is set inactive without it, the day of the request',
  }),
]);

/** The extension as the SCIM library declares schemas: a Schema class over its definition. */
class QuotientUser extends SCIMMY.Types.Schema {
  static override get id(): string {
    return QUOTIENT_EXTENSION;
  }
  static override get definition(): InstanceType<typeof SCIMMY.Types.SchemaDefinition> {
    return QUOTIENT_USER;
  }
  constructor(resource: object, direction = 'both', basepath?: string, filters?: never) {
    super(resource, direction);
    Object.assign(this, QUOTIENT_USER.coerce(resource, direction, basepath, filters));
  }
}

let declared = false;

function declareUsers(): void {
  if (declared) return;
  declared = true;
  SCIMMY.Resources.declare(
    SCIMMY.Resources.User.extend(SCIMMY.Schemas.EnterpriseUser, false)
      .extend(QuotientUser, false)
      .egress((resource, ctx: Context) =>
        guarded(ctx, async () => {
          if (resource.id) return toScim(await ctx.provisioning.find(ctx.caller, resource.id)) as never;
          const all = (await ctx.provisioning.list(ctx.caller)).map(toScim);
          return (resource.filter ? matchingCaseless(resource.filter, all) : all) as never;
        }),
      )
      .ingress((resource, instance, ctx: Context) =>
        guarded(ctx, async () => {
          const input = fromScim(instance as unknown as Record<string, unknown>);
          const rep = resource.id
            ? await ctx.provisioning.replace(ctx.caller, resource.id, input)
            : await ctx.provisioning.create(ctx.caller, input);
          return toScim(rep) as never;
        }),
      )
      .degress((resource, ctx: Context) =>
        guarded(ctx, async () => {
          if (resource.id) await ctx.provisioning.remove(ctx.caller, resource.id);
        }),
      ),
  );
}

type Filter = InstanceType<typeof SCIMMY.Types.Filter>;

function lowered(value: unknown): unknown {
  if (typeof value === 'string') return value.toLowerCase();
  return Array.isArray(value) ? value.map(lowered) : value;
}

/**
 * The users the filter matches, with userName compared without regard to case (it is not caseExact: RFC 7643
 * section 4.1.1), as Okta's `userName eq "Ana@Acme.com"` expects; the library's own match compares exactly.
 */
function matchingCaseless(filter: Filter, users: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const expressions = [...(filter as unknown as Array<Record<string, unknown>>)].map((expression) =>
    Object.fromEntries(
      Object.entries(expression).map(([attribute, test]) => [
        attribute,
        attribute.toLowerCase() === 'username' && Array.isArray(test) ? lowered(test) : test,
      ]),
    ),
  );
  const caseless = new SCIMMY.Types.Filter(expressions as never);
  const keyed = users.map((user) => ({ ...user, userName: String(user.userName).toLowerCase() }));
  const matched = new Set(caseless.match(keyed));
  return users.filter((_user, index) => matched.has(keyed[index] as Record<string, unknown>));
}

/** A refusal as the SCIM error it is; any other fault logged and answered without its internals. */
async function guarded<T>(ctx: Context, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SCIMMY.Types.Error) throw error;
    if (error instanceof Refusal) {
      if (error.code === 'not_found') throw new SCIMMY.Types.Error(404, null as never, error.reason);
      if (error.code === 'invalid_state') throw new SCIMMY.Types.Error(409, 'uniqueness', error.reason);
      throw new SCIMMY.Types.Error(400, 'invalidValue', error.reason);
    }
    ctx.logger.error({ err: error, request_id: ctx.requestId }, 'SCIM request failed');
    throw new SCIMMY.Types.Error(500, null as never, `internal error (request ${ctx.requestId || 'unknown'})`);
  }
}

function toScim(rep: ScimRepRecord): Record<string, unknown> {
  const userName = rep.user_name ?? rep.email ?? rep.external_id;
  return {
    id: rep.id,
    ...(rep.idp_external_id ? { externalId: rep.idp_external_id } : {}),
    userName,
    ...(rep.display_name ? { displayName: rep.display_name, name: { formatted: rep.display_name } } : {}),
    active: rep.active,
    ...(rep.email ? { emails: [{ value: rep.email, primary: true, type: 'work' }] } : {}),
    meta: { resourceType: 'User', created: rep.created_at, lastModified: rep.updated_at ?? rep.created_at },
    [QUOTIENT_EXTENSION]: {
      repExternalId: rep.external_id,
      ...(rep.leaving_date ? { leavingDate: rep.leaving_date } : {}),
    },
  };
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function fromScim(user: Record<string, unknown>): ScimUserInput {
  const name = (user.name ?? {}) as Record<string, unknown>;
  const extension = (user[QUOTIENT_EXTENSION] ?? {}) as Record<string, unknown>;
  const emails = Array.isArray(user.emails) ? (user.emails as Array<Record<string, unknown>>) : [];
  return {
    userName: String(user.userName ?? ''),
    externalId: text(user.externalId),
    active: user.active !== false,
    displayName: text(user.displayName) ?? text(name.formatted),
    givenName: text(name.givenName),
    familyName: text(name.familyName),
    emails: emails.map((email) => text(email.value)).filter((value): value is string => value !== null),
    repExternalId: text(extension.repExternalId),
    leavingDate: text(extension.leavingDate),
  };
}
