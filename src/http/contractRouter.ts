import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { Refusal } from '../domain/refusal.ts';
import { validateContract } from './contractValidator.ts';
import type { HandlerTable, KeyConfirmingAnswer } from './handlers.ts';
import { keyConfirmationOf } from './keyConfirmation.ts';
import { invalidKey, keyAuthOf } from './middleware/authenticate.ts';
import { refuseUnstorableParameters } from './middleware/storableParameters.ts';
import { type ContractOperation, OperationTable } from './operations.ts';
import { keepRawBody } from './rawBody.ts';

/** One API surface: a contract, its handlers and its own checks of who may call it. */
export interface ContractSurface {
  /** The bundled contract the surface is routed, validated and dispatched by. */
  contract: Record<string, unknown>;
  /** One handler per operation of the contract, by operationId (a `ContractHandlers` table, see asHandlerTable). */
  handlers: HandlerTable;
  /**
   * The surface's checks between the operation lookup and body parsing, in the order its API documents: for /v1
   * authentication, rate limit and scope (401 → 429 → 403); for the admin API session, origin, CSRF and role.
   */
  access: RequestHandler;
  /** Requests outside this path are not the surface's and pass on; absent, every request is. */
  prefix?: string;
  /** Headers every answer of the surface carries. */
  headers?: Record<string, string>;
  bodyLimitBytes: number;
  validateResponses: boolean;
}

/**
 * Serves one contract: operation lookup (404, 405 with Allow) → the surface's access checks → body parsing and the
 * parameters no statement can store (400) → contract validation (400/413/415; responses too when configured) →
 * the operation's handler, by operationId, with the path parameters the validator read. An operation the contract
 * marks `x-quotient-write-confirms-key` answers only once what its write found has settled the request's
 * KeyConfirmation (src/http/keyConfirmation.ts). Errors go on to the app's error handler.
 */
export function contractRouter(surface: ContractSurface): Router {
  const router = express.Router();
  const operations = new OperationTable(surface.contract as ConstructorParameters<typeof OperationTable>[0]);
  // The handler types prove the table complete for the contract they were generated from; this checks, once, that
  // the table is the one of the contract served.
  const unhandled = operations.all().filter((operation) => !surface.handlers[operation.operationId]);
  if (unhandled.length > 0) {
    throw new Error(`no handler for ${unhandled.map((operation) => operation.operationId).join(', ')}`);
  }
  const { prefix } = surface;

  router.use((req: Request, res: Response, next: NextFunction) => {
    if (prefix !== undefined && req.path !== prefix && !req.path.startsWith(`${prefix}/`)) return next('router');
    const match = operations.match(req.method, req.path);
    if (match.kind === 'unknown_route') throw new Refusal('not_found', `no route ${req.method} ${req.path}`);
    if (match.kind === 'method_not_allowed') {
      throw new Refusal('method_not_allowed', `${req.method} is not allowed on ${req.path}`, {
        headers: { Allow: match.allow.join(', ') },
      });
    }
    res.locals.operation = match.operation;
    if (surface.headers) res.set(surface.headers);
    // A path the contract names with a trailing slash ("/v1/") is the same resource without it, for the
    // validator too.
    if (match.operation.pathTemplate.endsWith('/') && !req.path.endsWith('/')) {
      req.url = `${req.path}/${req.url.slice(req.path.length)}`;
    }
    next();
  });
  router.use(surface.access);
  router.use(jsonBodies(surface.bodyLimitBytes, operations.all()));
  router.use(refuseUnstorableParameters());
  router.use(validateContract({ contract: surface.contract, validateResponses: surface.validateResponses }));
  router.use(dispatchByOperationId(surface.handlers));
  return router;
}

/**
 * The JSON body parser, with the surface's limit or the operation's own (`x-quotient-body-limit-bytes`): one parser
 * per limit, built once. A body over its limit is refused (413) before it is read whole.
 */
function jsonBodies(surfaceLimit: number, operations: readonly ContractOperation[]): RequestHandler {
  const parserOf = (limit: number) => express.json({ limit, strict: false, verify: keepRawBody });
  const parsers = new Map<number, RequestHandler>([[surfaceLimit, parserOf(surfaceLimit)]]);
  for (const { bodyLimitBytes } of operations) {
    if (bodyLimitBytes !== undefined && !parsers.has(bodyLimitBytes))
      parsers.set(bodyLimitBytes, parserOf(bodyLimitBytes));
  }
  return (req, res, next) => {
    const operation = res.locals.operation as ContractOperation;
    const parser = parsers.get(operation.bodyLimitBytes ?? surfaceLimit) as RequestHandler;
    parser(req, res, next);
  };
}

/**
 * Calls the handler of the operation the request was matched to (the router checked there is one for each), with
 * the path parameters the contract validator read. A marked operation's handler is handed its key and its write's data and
 * returns what the write found (KeyConfirmingAnswer): the router settles the request's key confirmation with it, then
 * refuses a revoked key (401) or lets the handler answer. A handler that returns no findings wrote nothing under the
 * confirmation and is refused (500 internal_error, after the error handler confirmed the key); so is a marked
 * operation without a confirmation (its surface's access checks made none).
 */
function dispatchByOperationId(handlers: HandlerTable): RequestHandler {
  return async (req: Request, res: Response) => {
    const operation = res.locals.operation as ContractOperation;
    const handler = handlers[operation.operationId] as HandlerTable[string];
    const validated = (req as Request & { openapi?: { pathParams?: Record<string, string> } }).openapi;
    req.params = validated?.pathParams ?? {};
    if (!operation.writeConfirmsKey) {
      await (handler as (req: Request, res: Response) => void | Promise<void>)(req, res);
      return;
    }
    const confirmation = keyConfirmationOf(res);
    if (!confirmation) throw new Error(`${operation.operationId} confirms its key by its write but has no key`);
    const confirming = { key: keyAuthOf(res), write: confirmation.write() };
    const answer = (await (handler as (req: Request, confirming: unknown) => Promise<unknown>)(req, confirming)) as
      | KeyConfirmingAnswer
      | undefined;
    if (typeof answer?.respond !== 'function' || typeof answer.keyActive !== 'boolean') {
      throw new Error(`${operation.operationId} returned no findings of its write: it cannot confirm the key`);
    }
    confirmation.settle(answer);
    if (!answer.keyActive) throw invalidKey();
    answer.respond(res);
  };
}
