import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { AuditLog } from '../access/auditLog.ts';
import type { KeyGate } from '../access/rateLimitStore.ts';
import type { ApiServices } from '../composition.ts';
import type { Logger } from '../lib/logger.ts';
import { consoleRouter } from './admin/console.ts';
import { type AdminApiOptions, adminApiRouter } from './admin/router.ts';
import { validateContract } from './contractValidator.ts';
import { docsRouter } from './docs.ts';
import { ApiError } from './errors.ts';
import { dispatchToHandlers } from './handlers.ts';
import type { Metrics } from './metrics.ts';
import { authenticate } from './middleware/authenticate.ts';
import { errorHandler } from './middleware/errorHandler.ts';
import { requestContext } from './middleware/requestContext.ts';
import { refuseUnstorableParameters } from './middleware/storableParameters.ts';
import { OperationTable } from './operations.ts';
import { keepRawBody } from './rawBody.ts';
import { contractHandlers } from './routes/index.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Operations that confirm the request's key in their write's first statement (DealIngestion: a revoked key writes
 * nothing and answers 401), so a key this process knows is not read again before them: one round trip less per
 * deal event. Every other way out of such a request confirms the key first (errorHandler).
 */
const KEY_CONFIRMED_BY_WRITE: ReadonlySet<string> = new Set(['ingestDealEvent']);

/**
 * Paths served outside the contract: /metrics, /docs and the admin console and API under /admin. Express matches
 * routes case-insensitively, so this test does too; it may match more than those routers serve (they pass it on).
 */
const OUTSIDE_CONTRACT = /^\/(?:metrics|docs|admin)/i;

/** What the app serves with: the public API's services from the composition root, and the access layer's parts. */
export interface AppDeps extends ApiServices {
  contract: Record<string, unknown>;
  logger: Logger;
  metrics: Metrics;
  auditLog: AuditLog;
  keys: KeyGate;
  /** True when the database answers. */
  isReady: () => Promise<boolean>;
  validateResponses: boolean;
  /** The admin API and the console; absent, /admin is not served. */
  admin?: Omit<AdminApiOptions, 'validateResponses' | 'bodyLimitBytes'>;
}

/**
 * The HTTP application, without a port. A request flows one way: request id → operation lookup (404/405)
 * → authentication, rate limit, scope (401/429/403) → body parsing → contract validation (400/415) →
 * the operation's handler, by operationId → error mapping.
 */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.set('query parser', 'extended');
  const operations = new OperationTable(deps.contract as ConstructorParameters<typeof OperationTable>[0]);

  app.use(requestContext(deps.logger, deps.metrics));

  const outsideContract = express.Router();
  outsideContract.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.exposition());
  });
  outsideContract.use(docsRouter());
  if (deps.admin) {
    outsideContract.use(
      adminApiRouter({ ...deps.admin, validateResponses: deps.validateResponses, bodyLimitBytes: BODY_LIMIT_BYTES }),
    );
    outsideContract.use(consoleRouter());
  }
  // The contract's requests do not walk the routers of the metrics, the docs and the admin console; what those
  // routers do not serve goes on to the operation lookup, as before (404).
  app.use((req: Request, res: Response, next: NextFunction) =>
    OUTSIDE_CONTRACT.test(req.path) ? outsideContract(req, res, next) : next(),
  );

  app.use((req: Request, res: Response, next: NextFunction) => {
    const match = operations.match(req.method, req.path);
    if (match.kind === 'unknown_route') throw new ApiError('not_found', `no route ${req.method} ${req.path}`);
    if (match.kind === 'method_not_allowed') {
      throw new ApiError('method_not_allowed', `${req.method} is not allowed on ${req.path}`, {
        headers: { Allow: match.allow.join(', ') },
      });
    }
    res.locals.operation = match.operation;
    // The contract names the root "/v1/"; "/v1" is the same resource for the validator too.
    if (req.path === '/v1') req.url = `/v1/${req.url.slice(3)}`;
    next();
  });
  app.use(
    authenticate({
      keys: deps.keys,
      auditLog: deps.auditLog,
      metrics: deps.metrics,
      keyConfirmedByWrite: KEY_CONFIRMED_BY_WRITE,
    }),
  );
  app.use(express.json({ limit: BODY_LIMIT_BYTES, strict: false, verify: keepRawBody }));
  app.use(refuseUnstorableParameters());
  app.use(validateContract({ contract: deps.contract, validateResponses: deps.validateResponses }));
  app.use(
    dispatchToHandlers(
      contractHandlers({
        contract: deps.contract,
        isReady: deps.isReady,
        ingestion: deps.ingestion,
        dealEventBatch: deps.dealEventBatch,
        dealReader: deps.dealReader,
        earningReader: deps.earningReader,
        planReader: deps.planReader,
        userReader: deps.userReader,
        statementReader: deps.statementReader,
        payoutReader: deps.payoutReader,
        estimator: deps.estimator,
      }),
    ),
  );
  app.use(errorHandler(deps.logger));
  return app;
}
