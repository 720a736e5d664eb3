import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { KeyGate } from '../access/rateLimitStore.ts';
import type { AuditLog } from '../audit/requestLog.ts';
import type { ApiServices, PortalServices } from '../composition.ts';
import type { Logger } from '../lib/logger.ts';
import type { Transaction } from '../repositories/transaction.ts';
import { consoleRouter } from './admin/console.ts';
import { PREFIX as ADMIN_API_PREFIX, type AdminApiOptions, adminApiRouter } from './admin/router.ts';
import { connectorWebhooksRouter } from './connectors/webhooks.ts';
import { contractRouter } from './contractRouter.ts';
import { docsRouter } from './docs.ts';
import { asHandlerTable } from './handlers.ts';
import type { Metrics } from './metrics.ts';
import { authenticate } from './middleware/authenticate.ts';
import { corsPreflight } from './middleware/cors.ts';
import { errorHandler } from './middleware/errorHandler.ts';
import { requestContext } from './middleware/requestContext.ts';
import { portalAppRouter } from './portal/app.ts';
import { portalRouter } from './portal/router.ts';
import { contractHandlers } from './routes/index.ts';
import { scimRouter } from './scim/router.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Paths served outside the contract: /metrics, /docs, the admin console and API under /admin, the rep portal under
 * /portal, the CRMs' webhooks under /connectors and identity providers' SCIM clients under /scim/v2. Express matches
 * routes case-insensitively, so this test does too; it may match more than those routers serve (they pass it on).
 */
const OUTSIDE_CONTRACT = /^\/(?:metrics|docs|admin|portal|connectors|scim)/i;

/** What the app serves with: the public API's services from the composition root, and the access layer's parts. */
export interface AppDeps extends ApiServices {
  contract: Record<string, unknown>;
  logger: Logger;
  metrics: Metrics;
  auditLog: AuditLog;
  keys: KeyGate;
  /** The rate windows' length (config.rateLimits.windowSeconds); the spec's 60 s when absent. */
  rateWindowSeconds?: number;
  /** The access layer's statements (its own pool): rep tokens are found and counted there. */
  accessStatements: Transaction;
  /** The time rep tokens expire by (tests move it). */
  now?: () => Date;
  /** True when the database answers. */
  isReady: () => Promise<boolean>;
  validateResponses: boolean;
  /** The admin API and the console; absent, /admin is not served. */
  admin?: Omit<AdminApiOptions, 'validateResponses' | 'bodyLimitBytes'>;
  /** The rep portal's sign-in, sessions and pages; absent, /portal is not served. */
  portal?: PortalServices;
}

/**
 * The HTTP application, without a port. A request flows one way: request id → the contract router of its surface
 * (src/http/contractRouter.ts): operation lookup (404/405) → for /v1 authentication, rate limit, scope
 * (401/429/403) → body parsing → contract validation (400/415) → the operation's handler, by operationId → error
 * mapping.
 */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.set('query parser', 'extended');

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
    outsideContract.use(connectorWebhooksRouter(deps.admin.services.hubspotWebhooks, deps.logger));
    outsideContract.use(scimRouter(deps.admin.services.scimProvisioning, deps.logger));
  }
  if (deps.portal) {
    outsideContract.use(portalRouter(deps.portal, deps.logger));
    outsideContract.use(portalAppRouter());
  }
  // The contract's requests do not walk the routers of the metrics, the docs and the admin console; what those
  // routers do not serve goes on to the operation lookup, as before (404).
  app.use((req: Request, res: Response, next: NextFunction) =>
    OUTSIDE_CONTRACT.test(req.path) ? outsideContract(req, res, next) : next(),
  );

  // Browsers calling /v1 with rep tokens ask first (docs/rep-tokens.md); a preflight carries no token.
  app.use(corsPreflight(deps.accessStatements));
  app.use(
    contractRouter({
      contract: deps.contract,
      handlers: asHandlerTable(
        contractHandlers({
          contract: deps.contract,
          isReady: deps.isReady,
          ingestion: deps.ingestion,
          dealEventBatch: deps.dealEventBatch,
          dealReader: deps.dealReader,
          earningReader: deps.earningReader,
          planReader: deps.planReader,
          planDocuments: deps.planDocuments,
          userReader: deps.userReader,
          statementReader: deps.statementReader,
          payoutReader: deps.payoutReader,
          adjustmentReader: deps.adjustmentReader,
          approvals: deps.approvals,
          estimator: deps.estimator,
          earningsStream: deps.earningsStream,
          repTokens: deps.repTokens,
          inquiries: deps.inquiries,
          planAcceptances: deps.planAcceptances,
          payments: deps.payments,
        }),
      ),
      access: authenticate({
        keys: deps.keys,
        repTokens: deps.accessStatements,
        auditLog: deps.auditLog,
        metrics: deps.metrics,
        ...(deps.now ? { now: deps.now } : {}),
        ...(deps.rateWindowSeconds ? { rateWindowSeconds: deps.rateWindowSeconds } : {}),
      }),
      bodyLimitBytes: BODY_LIMIT_BYTES,
      validateResponses: deps.validateResponses,
    }),
  );
  const surfaces = [
    ...(deps.admin ? [{ pathPrefix: ADMIN_API_PREFIX, contract: deps.admin.contract }] : []),
    { pathPrefix: '', contract: deps.contract },
  ];
  app.use(errorHandler(deps.logger, deps.validateResponses ? { checkedAgainst: surfaces } : {}));
  return app;
}
