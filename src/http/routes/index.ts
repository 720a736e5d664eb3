import { Router } from 'express';
import { type DealRouteDeps, dealRoutes } from './deals.ts';
import { type EarningRouteDeps, earningRoutes } from './earnings.ts';
import { type EstimateRouteDeps, estimateRoutes } from './estimates.ts';
import { metaRoutes } from './meta.ts';
import { type PlanRouteDeps, planRoutes } from './plans.ts';
import { type ReportRouteDeps, reportRoutes } from './reports.ts';
import { type UserRouteDeps, userRoutes } from './users.ts';

/** The /v1 handlers. Each is thin: read the validated request, call a service, map the result. */
export function apiRouter(
  deps: DealRouteDeps & EarningRouteDeps & PlanRouteDeps & UserRouteDeps & ReportRouteDeps & EstimateRouteDeps,
): Router {
  const router = Router();
  metaRoutes(router);
  dealRoutes(router, deps);
  earningRoutes(router, deps);
  planRoutes(router, deps);
  userRoutes(router, deps);
  reportRoutes(router, deps);
  estimateRoutes(router, deps);
  return router;
}
