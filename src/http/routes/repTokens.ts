import type { operations } from '../../../generated/openapi.ts';
import type { RepTokens } from '../../services/repTokens.ts';
import { toWireRepToken } from '../../wire/repTokens.ts';
import { keyAuthOf } from '../middleware/authenticate.ts';
import type { PublicHandlers } from './index.ts';

type MintBody = operations['createRepToken']['requestBody']['content']['application/json'];
type Minted = operations['createRepToken']['responses'][201]['content']['application/json'];
type RevokeParams = operations['revokeRepToken']['parameters']['path'];

export interface RepTokenRouteDeps {
  repTokens: RepTokens;
}

/** Rep tokens for an integrator's backend: minted and revoked by an API key with rep_tokens:write. */
export function repTokenHandlers(deps: RepTokenRouteDeps): Pick<PublicHandlers, 'createRepToken' | 'revokeRepToken'> {
  return {
    createRepToken: async (req, res) => {
      const { orgId, keyId } = keyAuthOf(res);
      const body = req.body as MintBody;
      const minted = await deps.repTokens.mint({
        orgId,
        minter: { kind: 'api_key', keyId },
        ...(body.user_id === undefined ? {} : { userId: body.user_id }),
        ...(body.user_external_id === undefined ? {} : { userExternalId: body.user_external_id }),
        ...(body.ttl_seconds === undefined ? {} : { ttlSeconds: body.ttl_seconds }),
      });
      res.status(201).json({ ...toWireRepToken(minted.record), token: minted.token } satisfies Minted);
    },

    revokeRepToken: async (req, res) => {
      const { orgId, keyId } = keyAuthOf(res);
      const { id } = req.params as RevokeParams;
      res.json(toWireRepToken(await deps.repTokens.revoke(orgId, id, keyId)));
    },
  };
}
