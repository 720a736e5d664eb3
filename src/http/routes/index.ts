import { Router } from 'express';
import { metaRoutes } from './meta.ts';
import { type PlanRouteDeps, planRoutes } from './plans.ts';

/** The /v1 handlers. Each is thin: read the validated request, call a service, map the result. */
export function apiRouter(deps: PlanRouteDeps): Router {
  const router = Router();
  metaRoutes(router);
  planRoutes(router, deps);
  return router;
}
