import type { components } from '../../../generated/openapi.ts';
import { Refusal } from '../../domain/refusal.ts';
import { sendRefusal } from '../errors.ts';
import type { PublicHandlers } from './index.ts';

export interface PlatformHandlerDeps {
  /** The bundled contract, served as is. */
  contract: Record<string, unknown>;
  /** True when the database answers. */
  isReady: () => Promise<boolean>;
}

/** The operations outside the resources: health, readiness and the contract itself. None needs a key. */
export function platformHandlers(
  deps: PlatformHandlerDeps,
): Pick<PublicHandlers, 'getHealth' | 'getReadiness' | 'getOpenApiDocument'> {
  return {
    getHealth: (_req, res) => {
      res.json({ status: 'ok' });
    },
    getReadiness: async (_req, res) => {
      if (await deps.isReady()) {
        res.json({ status: 'ready' });
        return;
      }
      sendRefusal(res, new Refusal('unavailable', 'the database is unreachable', { headers: { 'Retry-After': '5' } }));
    },
    getOpenApiDocument: (_req, res) => {
      res.set('Cache-Control', 'public, max-age=300').json(deps.contract as components['schemas']['OpenApiDocument']);
    },
  };
}
