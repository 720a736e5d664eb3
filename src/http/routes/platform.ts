import type { components } from '../../../generated/openapi.ts';
import { ApiError } from '../errors.ts';
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
      const unavailable = new ApiError('unavailable', 'the database is unreachable', {
        headers: { 'Retry-After': '5' },
      });
      res.status(503).set(unavailable.headers).json(unavailable.toBody());
    },
    getOpenApiDocument: (_req, res) => {
      res.set('Cache-Control', 'public, max-age=300').json(deps.contract as components['schemas']['OpenApiDocument']);
    },
  };
}
