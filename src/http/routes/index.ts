import { Router } from 'express';
import { metaRoutes } from './meta.ts';

/** The /v1 handlers. Each is thin: read the validated request, call a service, map the result. */
export function apiRouter(): Router {
  const router = Router();
  metaRoutes(router);
  return router;
}
