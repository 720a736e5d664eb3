import type { AdminServices } from '../../../composition.ts';
import { toApiKey } from '../../../wire/admin.ts';
import type { AdminHandlers } from '../handlers.ts';
import { adminContext } from '../session.ts';

export function keyHandlers(
  services: AdminServices,
): Pick<AdminHandlers, 'listApiKeys' | 'createApiKey' | 'revokeApiKey'> {
  return {
    listApiKeys: async (_req, res) => {
      const { session } = adminContext(res);
      const keys = await services.keys.list(session.org_id);
      res.status(200).json({ keys: keys.map(toApiKey) });
    },

    createApiKey: async (req, res) => {
      const { session, actor } = adminContext(res);
      const body = req.body;
      const created = await services.keys.create(
        {
          orgId: session.org_id,
          name: body.name,
          scopes: body.scopes.join(','),
          ...(body.rate_limit_per_minute === undefined ? {} : { rateLimit: String(body.rate_limit_per_minute) }),
        },
        actor,
      );
      res.status(201).json({ key: toApiKey(created.record), raw_key: created.rawKey });
    },

    revokeApiKey: async (req, res) => {
      const { session, actor } = adminContext(res);
      const { record } = await services.keys.revoke(session.org_id, req.params.id, actor);
      res.status(200).json(toApiKey(record));
    },
  };
}
