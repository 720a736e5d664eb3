import type { Request, Response } from 'express';
import type { operations, paths } from '../../generated/openapi.ts';
import type { ContractOperation } from './operations.ts';

// Handlers are bound to the contract by operationId. `ContractHandlers` has one member per operation of the
// contract's paths, typed from the generated `operations`, so `tsc` fails when an operation has no handler or a
// handler answers with a body its operation does not declare. Requests reach them through the operation table
// (src/http/operations.ts), which already matched the request to its operation: no path is written twice.

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options' | 'trace';

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

type OperationIdOf<Operation> = {
  [Id in keyof operations]: Same<operations[Id], Operation> extends true ? Id : never;
}[keyof operations];

/** The operationIds of the contract's paths (its `webhooks` are sent by Quotient, not served). */
export type ServedOperationId = {
  [Path in keyof paths]: {
    [M in Method & keyof paths[Path]]: OperationIdOf<paths[Path][M]>;
  }[Method & keyof paths[Path]];
}[keyof paths];

type JsonOf<Content> = Content extends { content: { 'application/json': infer Body } } ? Body : never;

/** Every JSON body the operation may answer with, whatever the status. */
export type ResponseBodyOf<Id extends ServedOperationId> = {
  [Status in keyof operations[Id]['responses']]: JsonOf<operations[Id]['responses'][Status]>;
}[keyof operations[Id]['responses']];

type PathParamsOf<Id extends ServedOperationId> = operations[Id]['parameters'] extends { path: infer Params }
  ? Params extends Record<string, unknown>
    ? Params
    : Record<string, never>
  : Record<string, never>;

type QueryOf<Id extends ServedOperationId> = operations[Id]['parameters'] extends { query?: infer Query }
  ? NonNullable<Query>
  : Record<string, never>;

type RequestBodyOf<Id extends ServedOperationId> = operations[Id] extends {
  requestBody: { content: { 'application/json': infer Body } };
}
  ? Body
  : undefined;

/**
 * The handler of one operation: the validated request (path parameters, query and body typed from the contract;
 * query values may still be strings) and a response whose `json` takes only the operation's bodies.
 */
export type OperationHandler<Id extends ServedOperationId> = (
  req: Request<PathParamsOf<Id>, ResponseBodyOf<Id>, RequestBodyOf<Id>, QueryOf<Id>>,
  res: Response<ResponseBodyOf<Id>>,
) => void | Promise<void>;

/** One handler per operation of the contract. */
export type ContractHandlers = { [Id in ServedOperationId]: OperationHandler<Id> };

/**
 * Calls the handler of the operation the request was matched to (`res.locals.operation`, set for every request
 * that gets this far, from the contract these types were generated from), with the path parameters the contract
 * validator read. `ContractHandlers` has a handler for every operation, so there is no "no handler" case.
 */
export function dispatchToHandlers(handlers: ContractHandlers) {
  return async (req: Request, res: Response): Promise<void> => {
    const operation = res.locals.operation as ContractOperation & { operationId: ServedOperationId };
    const handler = handlers[operation.operationId] as (req: Request, res: Response) => void | Promise<void>;
    const validated = (req as Request & { openapi?: { pathParams?: Record<string, string> } }).openapi;
    req.params = validated?.pathParams ?? {};
    await handler(req, res);
  };
}
