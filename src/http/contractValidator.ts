import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { CONTRACT_FORMATS } from './formats.ts';
import type { ContractOperation } from './operations.ts';

export interface ContractValidatorOptions {
  contract: Record<string, unknown>;
  validateResponses: boolean;
}

/**
 * The contract validator (express-openapi-validator) of every request the operation table matched, one instance per
 * path of the contract, each built from the contract with only that path, and chosen by the path the operation
 * table found (`res.locals.operation`). Built from the whole contract, the validator looked the request's route up
 * again on every request, compiling a matcher for each of the contract's paths in turn until one matched; with one
 * path there is one to try. An instance is built on its path's first request (the validator loads and checks its
 * document then, some 100 ms of CPU), so a process builds only the instances of the paths it serves.
 */
export function validateContract(options: ContractValidatorOptions): RequestHandler {
  const byPath = new Map<string, RequestHandler>();
  const validatorOf = (pathTemplate: string): RequestHandler => {
    let validator = byPath.get(pathTemplate);
    if (!validator) {
      validator = asOneStep(
        OpenApiValidator.middleware({
          apiSpec: documentOfPath(options.contract as unknown as ContractDocument, pathTemplate) as never,
          validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
          validateResponses: options.validateResponses ? { removeAdditional: false } : false,
          validateSecurity: false,
          // The contract takes no multipart body (and no binary format): the multipart step would only pass every
          // request on.
          fileUploader: false,
          validateFormats: true,
          ajvFormats: { mode: 'full' },
          formats: CONTRACT_FORMATS,
        }),
      );
      byPath.set(pathTemplate, validator);
    }
    return validator;
  };
  return (req: Request, res: Response, next: NextFunction) =>
    validatorOf((res.locals.operation as ContractOperation).pathTemplate)(req, res, next);
}

type Components = Record<string, Record<string, unknown>>;

interface ContractDocument {
  paths: Record<string, unknown>;
  webhooks?: unknown;
  components?: Components;
}

const COMPONENT_REFERENCE = /^#\/components\/([^/]+)\/([^/]+)$/;

/**
 * A copy of the contract (the validator dereferences and annotates the document it is given) with one path, the
 * components that path refers to, directly or through other components, and every security scheme. The other
 * paths, the webhooks (sent, not served) and the components only they use are left out, so that each instance
 * loads and compiles a fraction of the contract. A reference is any string naming a component, so a
 * discriminator's mapping counts as one.
 */
function documentOfPath(contract: ContractDocument, pathTemplate: string): ContractDocument {
  const { paths, webhooks: _sentNotServed, components = {}, ...rest } = contract;
  const pathItem = paths[pathTemplate];
  const used: Components = { securitySchemes: components.securitySchemes ?? {} };
  const pending: unknown[] = [pathItem];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      const reference = COMPONENT_REFERENCE.exec(value);
      const kind = reference?.[1];
      const name = reference?.[2] === undefined ? undefined : decodePointer(reference[2]);
      if (kind === undefined || name === undefined) continue;
      const component = components[kind]?.[name];
      if (component === undefined || used[kind]?.[name] !== undefined) continue;
      used[kind] = { ...used[kind], [name]: component };
      pending.push(component);
    } else if (Array.isArray(value)) {
      pending.push(...value);
    } else if (value !== null && typeof value === 'object') {
      pending.push(...Object.values(value));
    }
  }
  return structuredClone({ ...rest, paths: { [pathTemplate]: pathItem }, components: used });
}

function decodePointer(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

/**
 * Runs middlewares in order as one step of Express's chain (the contract validator is four or five of them), so a
 * request pays for one dispatch instead of one per middleware; an error goes on as from any step.
 */
function asOneStep(middlewares: readonly RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error) {
        next(error);
        return;
      }
      const middleware = middlewares[index++];
      if (!middleware) {
        next();
        return;
      }
      try {
        void middleware(req, res, step);
      } catch (thrown) {
        next(thrown);
      }
    };
    step();
  };
}
