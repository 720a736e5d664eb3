import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { Refusal } from '../../domain/refusal.ts';
import { type ContractOperation, OperationTable } from '../operations.ts';
import { type AdminApiDeps, type AdminOperationId, adminHandlers } from './handlers.ts';
import { adminSession } from './session.ts';

export interface AdminApiOptions extends Omit<AdminApiDeps, 'servedContract'> {
  contract: Record<string, unknown>;
  validateResponses: boolean;
  bodyLimitBytes: number;
}

export const PREFIX = '/admin/v1';

/**
 * The admin API under /admin/v1, from its own contract: operation lookup (404/405) → session, origin, CSRF and
 * role (401/403) → body parsing → contract validation (400) → the operation's handler. Errors go on to the
 * app's error handler, so they have the public API's format and request ids.
 */
export function adminApiRouter(options: AdminApiOptions): Router {
  const router = express.Router();
  const operations = new OperationTable(options.contract as ConstructorParameters<typeof OperationTable>[0]);
  const handlers = adminHandlers({ ...options, servedContract: JSON.stringify(options.contract) });

  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.path !== PREFIX && !req.path.startsWith(`${PREFIX}/`)) return next('router');
    const match = operations.match(req.method, req.path);
    if (match.kind === 'unknown_route') throw new Refusal('not_found', `no route ${req.method} ${req.path}`);
    if (match.kind === 'method_not_allowed') {
      throw new Refusal('method_not_allowed', `${req.method} is not allowed on ${req.path}`, {
        headers: { Allow: match.allow.join(', ') },
      });
    }
    res.locals.operation = match.operation;
    res.locals.pathParams = pathParams(match.operation.pathTemplate, req.path);
    // The console's pages and the API's answers are never cached by browsers or proxies.
    res.set('Cache-Control', 'no-store');
    next();
  });
  router.use(adminSession(options.services.sessions));
  router.use(express.json({ limit: options.bodyLimitBytes, strict: false }));
  router.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(options.contract) as never,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
      validateResponses: options.validateResponses ? { removeAdditional: false } : false,
      validateSecurity: false,
      validateFormats: true,
      ajvFormats: { mode: 'full' },
    }),
  );
  router.use(async (req: Request, res: Response) => {
    const operation = res.locals.operation as ContractOperation;
    await handlers[operation.operationId as AdminOperationId](req, res);
  });
  return router;
}

function pathParams(template: string, path: string): Record<string, string> {
  const names = template.split('/');
  const values = path.split('/');
  const params: Record<string, string> = {};
  names.forEach((segment, index) => {
    if (segment.startsWith('{') && segment.endsWith('}'))
      params[segment.slice(1, -1)] = decodeURIComponent(values[index] ?? '');
  });
  return params;
}
