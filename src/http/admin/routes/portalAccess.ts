import type { components } from '../../../../generated/openapi-admin.ts';
import type { AdminServices } from '../../../composition.ts';
import { toWireIdentityProvider } from '../../../wire/identityProviders.ts';
import { consoleSignInPath, signInLinkUrl } from '../../portal/paths.ts';
import { SCIM_PATH } from '../../scim/router.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

type Schemas = components['schemas'];

export function portalAccessHandlers(
  services: AdminServices,
): Pick<
  AdminHandlers,
  | 'listIdentityProviders'
  | 'createIdentityProvider'
  | 'deleteIdentityProvider'
  | 'updateIdentityProvider'
  | 'createScimToken'
  | 'deleteScimToken'
  | 'getSignInOptions'
  | 'createRepSignInLink'
  | 'inviteRepEmail'
  | 'getRepAccess'
  | 'setRepAccess'
> {
  const { portalAccess, repAccess, scimProvisioning } = services;
  return {
    createScimToken: async (req, res) => {
      const { session, actor } = adminContext(res);
      const issued = await scimProvisioning.issueToken(session.org_id, req.params.id, actor);
      res.status(201).json({
        identity_provider_id: issued.provider_id,
        identity_provider_name: issued.provider_name,
        token: issued.token,
        scim_base_url: `${req.protocol}://${req.get('host')}${SCIM_PATH}`,
        created_at: issued.created_at.toISOString(),
      });
    },

    deleteScimToken: async (req, res) => {
      const { session, actor } = adminContext(res);
      await scimProvisioning.revokeToken(session.org_id, req.params.id, actor);
      res.status(204).end();
    },

    getRepAccess: async (_req, res) => {
      const { session } = adminContext(res);
      res.status(200).json(await repAccess.get(session.org_id));
    },

    setRepAccess: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      const settings = await repAccess.set(
        session.org_id,
        {
          ...(body.cors_allowed_origins === undefined ? {} : { corsAllowedOrigins: body.cors_allowed_origins }),
          ...(body.rep_rate_limit_per_minute === undefined
            ? {}
            : { repRateLimitPerMinute: body.rep_rate_limit_per_minute }),
        },
        actor,
      );
      res.status(200).json(settings);
    },

    listIdentityProviders: async (_req, res) => {
      const { session } = adminContext(res);
      const providers = await portalAccess.listProviders(session.org_id);
      res.status(200).json({ identity_providers: providers.map(toWireIdentityProvider) });
    },

    createIdentityProvider: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      const created = await portalAccess.addProvider(
        {
          orgId: session.org_id,
          name: body.name,
          issuer: body.issuer,
          clientId: body.client_id,
          clientSecret: body.client_secret,
          emailDomains: body.email_domains,
          ...(body.email_claim === undefined ? {} : { emailClaim: body.email_claim }),
          ...(body.owner_id_claim === undefined ? {} : { ownerIdClaim: body.owner_id_claim }),
          ...(body.admins_allowed === undefined ? {} : { adminsAllowed: body.admins_allowed }),
        },
        actor,
      );
      res.status(201).json(toWireIdentityProvider(created));
    },

    updateIdentityProvider: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      const updated = await portalAccess.updateProvider(
        session.org_id,
        req.params.id,
        {
          ...(body.client_id === undefined ? {} : { clientId: body.client_id }),
          ...(body.client_secret === undefined ? {} : { clientSecret: body.client_secret }),
          ...(body.email_domains === undefined ? {} : { emailDomains: body.email_domains }),
          ...(body.email_claim === undefined ? {} : { emailClaim: body.email_claim }),
          ...(body.owner_id_claim === undefined ? {} : { ownerIdClaim: body.owner_id_claim }),
          ...(body.admins_allowed === undefined ? {} : { adminsAllowed: body.admins_allowed }),
        },
        actor,
      );
      res.status(200).json(toWireIdentityProvider(updated));
    },

    getSignInOptions: async (req, res) => {
      const providers = await portalAccess.adminSignInOptions(req.query.email);
      res.status(200).json({
        single_sign_on: providers.map((provider) => ({
          org_name: provider.org_name,
          provider: provider.name,
          sign_in_url: consoleSignInPath(provider.org_id, provider.name),
        })),
      });
    },

    deleteIdentityProvider: async (req, res) => {
      const { session, actor } = adminContext(res);
      await portalAccess.removeProvider(session.org_id, req.params.id, actor);
      res.status(204).end();
    },

    createRepSignInLink: async (req, res) => {
      const { session, actor } = adminContext(res);
      const minutes = (req.body as Schemas['CreateRepSignInLink'] | undefined)?.expires_in_minutes;
      const link = await portalAccess.createSignInLink(
        { orgId: session.org_id, rep: req.params.id, ...(minutes === undefined ? {} : { expiresInMinutes: minutes }) },
        actor,
      );
      res.status(201).json({
        rep_id: link.repId,
        url: signInLinkUrl(`${req.protocol}://${req.get('host')}`, link.token),
        expires_at: link.expiresAt.toISOString(),
      });
    },

    inviteRepEmail: async (req, res) => {
      const { session, actor } = adminContext(res);
      const invited = await portalAccess.inviteEmail(session.org_id, req.params.id, req.body.email, actor);
      res.status(201).json({ rep_id: invited.repId, email: invited.email });
    },
  };
}
