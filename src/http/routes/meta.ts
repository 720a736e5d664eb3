import type { operations } from '../../../generated/openapi.ts';
import type { RequestAuth } from '../middleware/authenticate.ts';
import type { PublicHandlers } from './index.ts';

type AuthContext = operations['getAuthContext']['responses'][200]['content']['application/json'];

export function metaHandlers(): Pick<PublicHandlers, 'getAuthContext'> {
  return {
    getAuthContext: (_req, res) => {
      const auth = res.locals.auth as RequestAuth;
      const org = { id: auth.orgId, name: auth.orgName };
      if (auth.kind === 'rep') {
        const body: AuthContext = {
          org,
          principal: 'rep',
          rep: {
            token_id: auth.viewer.tokenId,
            user_id: auth.rep.id,
            external_id: auth.rep.external_id,
            display_name: auth.rep.display_name,
            expires_at: auth.expiresAt.toISOString(),
            visible_user_ids: [...auth.viewer.visibleUserIds],
          },
        };
        res.json(body);
        return;
      }
      const { key } = auth;
      const body: AuthContext = {
        org,
        principal: 'api_key',
        key: {
          id: key.id,
          name: key.name,
          scopes: key.scopes as NonNullable<AuthContext['key']>['scopes'],
          rate_limit_per_minute: key.rate_limit_per_minute,
          created_at: key.created_at.toISOString(),
          last_used_at: key.last_used_at?.toISOString() ?? null,
        },
      };
      res.json(body);
    },
  };
}
