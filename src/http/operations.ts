// Resolves a request to the contract's operation before anything else runs, so that unknown routes get
// 404/405 and a surface's own checks (for /v1: authentication, rate limiting and scope) run in the order its API
// documents (401 → 429 → 403 → 400), ahead of body parsing and contract validation.

/**
 * The contract's mark of an operation whose write confirms the request's key: its transaction re-reads the key in
 * its first statement and records the request's audit entry (KeyConfirmation, src/http/keyConfirmation.ts).
 */
export const WRITE_CONFIRMS_KEY = 'x-quotient-write-confirms-key';

/**
 * The contract's mark of an operation a rep principal may call whatever its scopes (approving one's own statement,
 * opening an inquiry: docs/rep-tokens.md); its service decides, by the Viewer, on which objects. API keys still need
 * the operation's scope.
 */
export const REP_ACTION = 'x-quotient-rep-action';

/**
 * The contract's mark of an operation whose request body may be larger than its surface's limit (the console's
 * upload of a CRM export): the body limit of that operation alone, in bytes.
 */
export const BODY_LIMIT = 'x-quotient-body-limit-bytes';

export interface ContractOperation {
  operationId: string;
  method: string;
  pathTemplate: string;
  /** null when the operation needs no key; [] when any valid key will do. */
  requiredScopes: string[] | null;
  /**
   * The contract marks the operation `x-quotient-write-confirms-key`. Such an operation declares `201`: what its
   * accepted write answers, and the status of the audit entry that write records.
   */
  writeConfirmsKey: boolean;
  /** The contract marks the operation `x-quotient-rep-action`: rep tokens may call it. */
  repAction: boolean;
  /** The operation's own body limit (`x-quotient-body-limit-bytes`); absent, the surface's. */
  bodyLimitBytes?: number;
}

export type OperationMatch =
  | { kind: 'operation'; operation: ContractOperation }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'unknown_route' };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

interface OpenApiOperationObject {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, unknown>;
  [WRITE_CONFIRMS_KEY]?: boolean;
  [REP_ACTION]?: boolean;
  [BODY_LIMIT]?: number;
}

interface OpenApiDocument {
  security?: Array<Record<string, string[]>>;
  paths?: Record<string, Partial<Record<(typeof METHODS)[number], OpenApiOperationObject>>>;
}

interface CompiledPath {
  pattern: RegExp;
  template: string;
  operations: Map<string, ContractOperation>;
}

export class OperationTable {
  private readonly paths: CompiledPath[];

  constructor(document: OpenApiDocument) {
    this.paths = Object.entries(document.paths ?? {}).map(([template, item]) => {
      const operations = new Map<string, ContractOperation>();
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation?.operationId) continue;
        operations.set(method.toUpperCase(), {
          operationId: operation.operationId,
          method: method.toUpperCase(),
          pathTemplate: template,
          requiredScopes: scopesOf(operation.security ?? document.security),
          writeConfirmsKey: writeConfirmsKey(operation),
          repAction: operation[REP_ACTION] === true,
          ...bodyLimitOf(operation),
        });
      }
      return { pattern: compile(template), template, operations };
    });
    // Literal segments win over parameters, as in the contract's own routing rules.
    this.paths.sort((a, b) => parameterCount(a.template) - parameterCount(b.template));
  }

  match(method: string, path: string): OperationMatch {
    const found = this.paths.find((candidate) => candidate.pattern.test(path));
    if (!found) return { kind: 'unknown_route' };
    const operation = found.operations.get(method === 'HEAD' ? 'GET' : method);
    if (operation) return { kind: 'operation', operation };
    const allow = [...found.operations.keys()];
    if (allow.includes('GET')) allow.push('HEAD');
    return { kind: 'method_not_allowed', allow };
  }

  all(): ContractOperation[] {
    return this.paths.flatMap((path) => [...path.operations.values()]);
  }
}

function scopesOf(security: Array<Record<string, string[]>> | undefined): string[] | null {
  if (!security || security.length === 0) return null;
  // An empty requirement object ({}) means "no authentication" is one of the alternatives.
  if (security.some((requirement) => Object.keys(requirement).length === 0)) return null;
  return [...new Set(security.flatMap((requirement) => Object.values(requirement).flat()))];
}

function writeConfirmsKey(operation: OpenApiOperationObject): boolean {
  if (operation[WRITE_CONFIRMS_KEY] !== true) return false;
  if (operation.responses?.['201'] === undefined) {
    throw new Error(`operation ${operation.operationId} is marked ${WRITE_CONFIRMS_KEY} but declares no 201`);
  }
  return true;
}

function bodyLimitOf(operation: OpenApiOperationObject): { bodyLimitBytes?: number } {
  const limit = operation[BODY_LIMIT];
  if (limit === undefined) return {};
  if (!Number.isInteger(limit) || limit <= 0) {
    throw new Error(`operation ${operation.operationId}: ${BODY_LIMIT} must be a positive integer`);
  }
  return { bodyLimitBytes: limit };
}

function parameterCount(template: string): number {
  return template.split('{').length - 1;
}

function compile(template: string): RegExp {
  const source = template
    .split('/')
    .map((segment) =>
      segment.startsWith('{') && segment.endsWith('}') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  // "/v1/" and "/v1" name the same resource; every other path is matched exactly, so "/v1/deals/events/" is an
  // unknown route like any other.
  return template.endsWith('/') ? new RegExp(`^${source.replace(/\/$/, '')}/?$`) : new RegExp(`^${source}$`);
}
