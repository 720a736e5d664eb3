import type { operations } from '../../../generated/openapi.ts';
import type { RequestAuth } from '../middleware/authenticate.ts';
import type { PublicHandlers } from './index.ts';

type AuthContext = operations['getAuthContext']['responses'][200]['content']['application/json'];

export function metaHandlers(): Pick<PublicHandlers, 'getAuthContext'> {
  return {
    getAuthContext: (_req, res) => {
      const { key, orgId, orgName } = res.locals.auth as RequestAuth;
      const body: AuthContext = {
        org: { id: orgId, name: orgName },
        key: {
          id: key.id,
          name: key.name,
          scopes: key.scopes as AuthContext['key']['scopes'],
          rate_limit_per_minute: key.rate_limit_per_minute,
          created_at: key.created_at.toISOString(),
          last_used_at: key.last_used_at?.toISOString() ?? null,
        },
      };
      res.json(body);
    },
  };
}
