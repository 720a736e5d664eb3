import type { NextFunction, Request, Response } from 'express';
import { Refusal } from '../../domain/refusal.ts';
import type { ContractOperation } from '../operations.ts';

// Query and path parameters that the contract validator lets through but that no statement can take: text
// PostgreSQL refuses (U+0000, lone surrogates), a path segment that is not UTF-8 percent-encoding, and query
// names the query parser drops without a word (`__proto__[x]`, `toString`). Refused here, after authentication
// and before any statement, as 400 invalid_body naming the parameter. Request bodies get the same text rules in
// the deal-event parser.

/**
 * Names the extended query parser (qs) silently discards, so the validator never sees them as unknown: an
 * object's prototype members. Refused like any other parameter the operation does not have.
 */
function isDroppedName(name: string): boolean {
  return name === '__proto__' || Object.hasOwn(Object.prototype, name);
}

export function refuseUnstorableParameters() {
  return (req: Request, res: Response, next: NextFunction) => {
    const operation = res.locals.operation as ContractOperation;
    checkPathParameters(req.path, operation.pathTemplate);
    const queryStart = req.originalUrl.indexOf('?');
    if (queryStart !== -1) {
      for (const name of new URLSearchParams(req.originalUrl.slice(queryStart + 1)).keys()) {
        const base = name.split('[')[0] ?? name;
        if (isDroppedName(base))
          throw new Refusal('invalid_body', `${base}: is not a query parameter of this operation`);
      }
      // Express parses the query again on each read of req.query: without a query string there is nothing to read.
      for (const [name, value] of Object.entries(req.query)) checkValue(value, name);
    }
    next();
  };
}

function checkPathParameters(path: string, template: string): void {
  if (!template.includes('{')) return;
  const segments = path.split('/');
  template.split('/').forEach((part, index) => {
    if (!part.startsWith('{')) return;
    const name = part.slice(1, -1);
    let value: string;
    try {
      value = decodeURIComponent(segments[index] ?? '');
    } catch {
      throw new Refusal('invalid_body', `${name}: is not valid UTF-8 percent-encoding`);
    }
    checkText(value, name);
  });
}

function checkValue(value: unknown, name: string): void {
  if (typeof value === 'string') checkText(value, name);
  else if (Array.isArray(value)) for (const item of value) checkValue(item, name);
  else if (value !== null && typeof value === 'object') {
    for (const [member, inner] of Object.entries(value)) checkValue(inner, `${name}[${member}]`);
  }
}

function checkText(value: string, name: string): void {
  if (value.includes('\u0000') || !value.isWellFormed()) {
    throw new Refusal('invalid_body', `${name}: must be well-formed Unicode without \\u0000`);
  }
}
