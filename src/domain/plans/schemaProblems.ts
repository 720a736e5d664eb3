import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import schema from '../../../schemas/plan-file.schema.json' with { type: 'json' };
import { formatPath, pointerSegments } from './paths.ts';
import type { PlanFileProblem } from './types.ts';

// What the published JSON Schema (schemas/plan-file.schema.json) reports about a plan document, in sentences for
// the author of the file.

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  pattern?: string;
  then?: SchemaNode;
  else?: SchemaNode;
}

const SCHEMA = schema as unknown as { $defs: Record<string, SchemaNode>; properties: Record<string, SchemaNode> };
export const DEFS = SCHEMA.$defs;

// Sentences for the rules whose validator message would mean little to the author of a plan file, by the schema
// object that carries the rule (and, where it carries several, the rule's keyword).
const ASSIGNEES = 'must be "all" or a non-empty list of owner_external_id values';
const MESSAGES = new Map<unknown, Record<string, string>>([
  [DEFS.slug, { pattern: 'must be a key: lowercase letters and digits, words separated by - or _ (like core-ae)' }],
  [DEFS.displayName, { pattern: 'must not be blank' }],
  [
    DEFS.tier,
    {
      oneOf: 'needs exactly one bound, up_to_cents, up_to_pct or up_to_deals (null for the open last band)',
      anyOf: 'needs what the band pays: rate_bps, or amount_cents for filling it',
    },
  ],
  [DEFS.commissionChip?.properties?.base, { pattern: 'must be amount_cents or custom.<field>' }],
  [
    DEFS.fieldCondition?.properties?.field,
    { pattern: 'must be amount_cents, stage, close_date, owner_external_id, status or custom.<name>' },
  ],
  [SCHEMA.properties.assignees?.then, { const: ASSIGNEES }],
  [SCHEMA.properties.assignees?.else, { type: ASSIGNEES, minItems: ASSIGNEES }],
]);

const TYPE_NAMES: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping (an object)',
  null: 'null',
};

let compiled: ReturnType<Ajv2020['compile']> | undefined;

export function schemaProblems(document: unknown): PlanFileProblem[] {
  compiled ??= compileSchema(schema);
  return validatorProblems(compiled, document, MESSAGES);
}

/** A validator of a published file schema, reporting every error with the schema node that carries it. */
export function compileSchema(fileSchema: object): ReturnType<Ajv2020['compile']> {
  return new Ajv2020({ allErrors: true, verbose: true, strictTypes: false }).compile(fileSchema);
}

/**
 * What a file schema's validator reports about a document, one problem per place, in sentences for the author of
 * the file; `messages` gives the sentence of a rule whose validator message would mean little to them.
 */
export function validatorProblems(
  validate: ReturnType<Ajv2020['compile']>,
  document: unknown,
  messages: ReadonlyMap<unknown, Record<string, string>>,
): PlanFileProblem[] {
  if (validate(document)) return [];
  const errors = validate.errors ?? [];
  // A failed `oneOf` reports each failed alternative too; its own sentence says it better.
  const alternatives = errors.filter((error) => error.keyword === 'oneOf' || error.keyword === 'anyOf');
  const explained = errors.filter(
    (error) =>
      error.keyword !== 'if' &&
      !alternatives.some(
        (alternative) =>
          alternative !== error &&
          error.schemaPath.startsWith(`${alternative.schemaPath}/`) &&
          error.instancePath.startsWith(alternative.instancePath),
      ),
  );
  // One problem per place is enough: an empty key breaks both its length and its pattern.
  const byPath = new Map<string, PlanFileProblem>();
  for (const error of explained) {
    const problem = describeSchemaError(error, document, messages);
    if (!byPath.has(problem.path)) byPath.set(problem.path, problem);
  }
  return [...byPath.values()];
}

function describeSchemaError(
  error: ErrorObject,
  document: unknown,
  messages: ReadonlyMap<unknown, Record<string, string>>,
): PlanFileProblem {
  const segments = pointerSegments(error.instancePath, document);
  const custom = (messages.get(error.parentSchema) as Record<string, string> | undefined)?.[error.keyword];
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: formatPath([...segments, String(params.missingProperty)]), message: 'is required' };
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const allowed = Object.keys((error.parentSchema as SchemaNode | undefined)?.properties ?? {});
      return { path: formatPath([...segments, name]), message: unknownMemberMessage(name, allowed) };
    }
    default:
      return { path: formatPath(segments), message: custom ?? plainMessage(error) };
  }
}

function plainMessage(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': {
      const types = Array.isArray(params.type) ? params.type : String(params.type).split(',');
      return `must be ${types.map((type) => TYPE_NAMES[type] ?? type).join(' or ')}`;
    }
    case 'enum':
      return `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `must be ${String(params.allowedValue)}`;
    case 'minItems':
      return params.limit === 1 ? 'must not be empty' : `must have at least ${params.limit} items`;
    case 'maxItems':
      return `must have at most ${params.limit} items`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must have at least ${params.limit} characters`;
    case 'maxLength':
      return `must have at most ${params.limit} characters`;
    case 'uniqueItems':
      return `must not repeat a value (items ${params.j} and ${params.i} are equal)`;
    default:
      return error.message ?? 'is not valid';
  }
}

function unknownMemberMessage(name: string, allowed: string[]): string {
  const known = allowed.filter((member) => member !== '$schema');
  const close = known.find(
    (member) =>
      editDistance(member, name) <= 2 || (name.length >= 3 && (member.startsWith(name) || name.startsWith(member))),
  );
  const hint = close ? `did you mean ${close}? ` : '';
  return `is not a known member here (${hint}expected ${known.join(', ')})`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
