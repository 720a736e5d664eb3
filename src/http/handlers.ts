import type { Request, Response } from 'express';
import type { KeyConfirmingWrite, KeyFindings } from '../services/writeGuard.ts';
import type { KeyAuth } from './middleware/authenticate.ts';

// Handlers are bound to a contract by operationId. `ContractHandlers<Operations, Paths>` has one member per
// operation of the contract's paths, typed from that contract's generated `operations` and `paths`, so `tsc` fails
// when an operation has no handler or a handler answers with a body its operation does not declare. Requests reach
// them through the contract router (src/http/contractRouter.ts), which already matched the request to its
// operation: no path is written twice.

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options' | 'trace';

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

type OperationIdOf<Operations, Operation> = {
  [Id in keyof Operations]: Same<Operations[Id], Operation> extends true ? Id : never;
}[keyof Operations];

/** The operationIds of a contract's paths (its `webhooks` are sent by Quotient, not served). */
export type ServedOperationId<Operations, Paths> = {
  [Path in keyof Paths]: {
    [M in Method & keyof Paths[Path]]: OperationIdOf<Operations, Paths[Path][M]>;
  }[Method & keyof Paths[Path]];
}[keyof Paths];

type JsonOf<Content> = Content extends { content: { 'application/json': infer Body } } ? Body : never;

/** The body of any media type a response declares: JSON, or the text of a download or a stream. */
type BodyOf<Response> = Response extends { content: infer Content } ? Content[keyof Content] : never;

type ResponsesOf<Operation> = Operation extends { responses: infer Responses } ? Responses : never;

/** Every body the operation may answer with, whatever the status and media type. */
export type ResponseBodyOf<Operation> = {
  [Status in keyof ResponsesOf<Operation>]: BodyOf<ResponsesOf<Operation>[Status]>;
}[keyof ResponsesOf<Operation>];

type ParametersOf<Operation> = Operation extends { parameters: infer Parameters } ? Parameters : never;

type PathParamsOf<Operation> =
  ParametersOf<Operation> extends { path: infer Params }
    ? Params extends Record<string, unknown>
      ? Params
      : Record<string, never>
    : Record<string, never>;

type QueryOf<Operation> =
  ParametersOf<Operation> extends { query?: infer Query } ? NonNullable<Query> : Record<string, never>;

/** The JSON body, `| undefined` when the contract makes it optional; undefined when there is none. */
type RequestBodyOf<Operation> = Operation extends { requestBody?: infer Content }
  ? [NonNullable<Content>] extends [never]
    ? undefined
    : JsonOf<NonNullable<Content>> | (undefined extends Content ? undefined : never)
  : undefined;

/**
 * The handler of one operation: the validated request (path parameters, query and body typed from the contract;
 * query values may still be strings) and a response whose `json` takes only the operation's bodies.
 */
export type OperationHandler<Operation> = (
  req: Request<PathParamsOf<Operation>, ResponseBodyOf<Operation>, RequestBodyOf<Operation>, QueryOf<Operation>>,
  res: Response<ResponseBodyOf<Operation>>,
) => void | Promise<void>;

/**
 * What the handler of an operation the contract marks `x-quotient-write-confirms-key` returns instead of answering:
 * what its write found of the request's key, and the answer, which the contract router sends once it has settled the
 * key active (src/http/keyConfirmation.ts). `respond` sends the response or throws a refusal.
 */
export interface KeyConfirmingAnswer<Body = unknown> extends KeyFindings {
  respond(res: Response<Body>): void;
}

/**
 * The handler of a marked operation: the validated request, the request's key and the write's data (the request's
 * audit entry); no response to answer on before its write is done. The compiler holds it to returning what the write
 * found.
 */
export type KeyConfirmingHandler<Operation> = (
  req: Request<PathParamsOf<Operation>, ResponseBodyOf<Operation>, RequestBodyOf<Operation>, QueryOf<Operation>>,
  confirming: KeyConfirmingRequest,
) => Promise<KeyConfirmingAnswer<ResponseBodyOf<Operation>>>;

/** What the router hands a marked operation's handler beside the request. */
export interface KeyConfirmingRequest {
  key: KeyAuth;
  write: KeyConfirmingWrite;
}

/**
 * One handler per operation of a contract's paths, from its generated `operations` and `paths`; the operations the
 * contract marks `x-quotient-write-confirms-key` (`KeyConfirming`) have KeyConfirmingHandlers.
 */
export type ContractHandlers<Operations, Paths, KeyConfirming extends PropertyKey = never> = {
  [Id in ServedOperationId<Operations, Paths> & keyof Operations]: Id extends KeyConfirming
    ? KeyConfirmingHandler<Operations[Id]>
    : OperationHandler<Operations[Id]>;
};

/** A handler table as the router sees it: by operationId, whatever the contract. */
export type HandlerTable = Record<
  string,
  | ((req: Request, res: Response) => void | Promise<void>)
  | ((req: Request, confirming: KeyConfirmingRequest) => Promise<KeyConfirmingAnswer | undefined>)
>;

/** A typed table as the router takes it: the compiler has proved it complete for its contract. */
export function asHandlerTable<Operations, Paths>(handlers: ContractHandlers<Operations, Paths>): HandlerTable {
  return handlers as unknown as HandlerTable;
}
