import express, { type NextFunction, type Request, type Response } from 'express';
import { parseBearer } from '../src/access/apiKeys.ts';
import { windowAt } from '../src/access/rateLimit.ts';
import { countingGate, MemoryWindowCounter } from '../src/access/rateLimitStore.ts';
import { tokenDigest } from '../src/access/tokenDigest.ts';
import { AuditLog } from '../src/audit/requestLog.ts';
import { Refusal } from '../src/domain/refusal.ts';
import { BODY_LIMIT_BYTES } from '../src/http/app.ts';
import { loadContract } from '../src/http/contract.ts';
import { contractRouter } from '../src/http/contractRouter.ts';
import type { HandlerTable } from '../src/http/handlers.ts';
import { Metrics } from '../src/http/metrics.ts';
import { authenticate, type RequestAuth } from '../src/http/middleware/authenticate.ts';
import { errorHandler } from '../src/http/middleware/errorHandler.ts';
import { requestContext } from '../src/http/middleware/requestContext.ts';
import { OperationTable } from '../src/http/operations.ts';
import { metaHandlers } from '../src/http/routes/meta.ts';
import { createLogger } from '../src/lib/logger.ts';
import { createSqlPool, poolStatements } from '../src/repositories/transaction.ts';
import { LAYER_NAMES, type Layer } from './layers.ts';
import { serveChild } from './serveChild.ts';

// Quotient's `GET /v1/` built up one layer at a time from its own parts, for `BENCH_ONLY=layers` (bench/run.ts),
// which runs one process per layer and measures the server CPU each adds per request. BENCH_LAYER names the top
// layer; each includes the ones before it:
//
// - key:      Express, the operation table's match, the key read by Quotient's statement on its access pool and
//             counted in memory (the KeyGate of the embedded default), the handler's body; no log, no audit;
// - context:  + the request context: request id, security headers, the log line (pino), the metrics (prom-client);
// - audit:    + the whole `authenticate` step instead of the bare read: the rate-limit decision and its headers,
//             the scope check, the audit entry queued and written in batches, the key's last use;
// - contract: + the body parser, the path-parameter check, the contract validator (express-openapi-validator)
//             and the dispatch by operationId: the contract router (src/http/contractRouter.ts) of `createApp`.
//
// `quotient serve` itself is the row after these: what it adds beyond `contract` is the routing of /metrics, /docs
// and /admin past the contract's requests, which `GET /v1/` only tests a pattern for.

const layer = LAYER_NAMES.indexOf(process.env.BENCH_LAYER as Layer);
if (layer < 0) throw new Error(`BENCH_LAYER must be one of ${LAYER_NAMES.join(', ')}`);
const has = (name: Layer) => layer >= LAYER_NAMES.indexOf(name);

const databaseUrl = process.env.DATABASE_URL as string;
const logger = createLogger(process.env.LOG_LEVEL ?? 'info');
const onIdleError = (error: Error) => logger.warn({ err: error }, 'an idle connection failed');
// As `startServer` sizes them for the default pool size of 10.
const accessPool = createSqlPool(databaseUrl, 5, onIdleError, { asynchronousCommit: true });
const auditPool = createSqlPool(databaseUrl, 10, onIdleError);
const keys = countingGate('memory', poolStatements(accessPool), new MemoryWindowCounter());
const auditLog = new AuditLog(poolStatements(auditPool), logger);
auditLog.start();
const metrics = new Metrics(() => auditLog.depth(), keys.store);
const contract = loadContract();
const operations = new OperationTable(contract as ConstructorParameters<typeof OperationTable>[0]);
const { getAuthContext } = metaHandlers();

const app = express();
app.disable('x-powered-by');
app.set('trust proxy', 'loopback');
app.set('query parser', 'extended');
if (has('context')) app.use(requestContext(logger, metrics));
if (has('contract')) {
  app.use(
    contractRouter({
      // The contract with `GET /v1/` alone, the one operation this server has a handler for.
      contract: { ...contract, paths: { '/v1/': (contract.paths as Record<string, unknown>)['/v1/'] } },
      handlers: { getAuthContext: getAuthContext as HandlerTable[string] },
      access: authenticate({ keys, auditLog, metrics }),
      bodyLimitBytes: BODY_LIMIT_BYTES,
      validateResponses: false,
    }),
  );
} else {
  app.use((req: Request, res: Response, next: NextFunction) => {
    const match = operations.match(req.method, req.path);
    if (match.kind !== 'operation') throw new Refusal('not_found', `no route ${req.method} ${req.path}`);
    res.locals.operation = match.operation;
    next();
  });
  if (has('audit')) {
    app.use(authenticate({ keys, auditLog, metrics }));
  } else {
    app.use(async (req: Request, res: Response, next: NextFunction) => {
      const token = parseBearer(req.get('authorization'));
      const found = token ? await keys.authenticateAndCount(tokenDigest(token), windowAt(new Date()).start) : null;
      if (!found) throw new Refusal('invalid_key', 'the API key is unknown or revoked');
      const auth: RequestAuth = {
        kind: 'api_key',
        viewer: { kind: 'org', orgId: found.key.org_id },
        keyId: found.key.id,
        orgId: found.key.org_id,
        orgName: found.org_name,
        key: found.key,
      };
      res.locals.auth = auth;
      next();
    });
  }
  app.use((req: Request, res: Response) => getAuthContext(req as never, res as never));
}
app.use(errorHandler(logger));

serveChild(app, () => auditLog.close().finally(() => Promise.all([accessPool.end(), auditPool.end()])));
