// Resolves a request to the contract's operation before anything else runs, so that unknown routes get
// 404/405 and authentication, rate limiting and scope checks run in the order the API documents
// (401 → 429 → 403 → 400), ahead of body parsing and contract validation.

export interface ContractOperation {
  operationId: string;
  method: string;
  pathTemplate: string;
  /** null when the operation needs no key; [] when any valid key will do. */
  requiredScopes: string[] | null;
}

export type OperationMatch =
  | { kind: 'operation'; operation: ContractOperation }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'unknown_route' };

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

interface OpenApiOperationObject {
  operationId?: string;
  security?: Array<Record<string, string[]>>;
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
