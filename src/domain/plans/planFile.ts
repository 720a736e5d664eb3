import { createHash } from 'node:crypto';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { type Document, LineCounter, parseDocument } from 'yaml';
import schema from '../../../schemas/plan-file.schema.json' with { type: 'json' };
import {
  type ChipDefinition,
  CONDITION_OPS,
  type Condition,
  type ConditionOp,
  type ConditionScalar,
  type FieldCondition,
  type PlanDefinition,
  type PlanFileProblem,
  type Tier,
} from './types.ts';

// Plan files (product.md section 10): YAML or JSON text → the published JSON Schema
// (schemas/plan-file.schema.json) → the rules a schema cannot express → the normalised plan. Every problem is
// reported with its path; a file with any problem yields no plan. Pure: no I/O.

export type PlanFileFormat = 'yaml' | 'json';

export type PlanFileResult = { ok: true; plan: PlanDefinition } | { ok: false; problems: PlanFileProblem[] };

/** Reads a plan file. YAML is the default and also reads JSON; `json` reads strict JSON. */
export function readPlanFile(text: string, options: { format?: PlanFileFormat } = {}): PlanFileResult {
  const parsed = options.format === 'json' ? parseJson(text) : parseYaml(text);
  if ('problems' in parsed) return { ok: false, problems: parsed.problems };
  return validatePlanDocument(parsed.document, parsed.locate);
}

/** Validates an already parsed plan document (the JSON value of a plan file). */
export function validatePlanDocument(
  document: unknown,
  locate?: (path: Segment[]) => number | undefined,
): PlanFileResult {
  const problems = [...schemaProblems(document), ...ruleProblems(document)];
  if (problems.length > 0) {
    return { ok: false, problems: inDocumentOrder(dedupe(problems), document, locate) };
  }
  return { ok: true, plan: normalisePlan(document as RawPlan) };
}

/** SHA-256 of the canonical JSON of the normalised plan: the same digest means the same content (a no-op apply). */
export function planContentDigest(plan: PlanDefinition): string {
  return canonicalDigest(plan);
}

/**
 * SHA-256 of what a chip computes: its kind, condition and parameters, plus the plan settings it reads (the
 * quota for `up_to_pct` bands and attainment bonuses; the period length for the period-cumulative kinds). A chip's
 * `version` rises exactly when this changes; renaming a chip or editing another chip leaves it alone.
 */
export function chipDefinitionDigest(
  plan: Pick<PlanDefinition, 'period' | 'quota_cents'>,
  chip: ChipDefinition,
): string {
  return canonicalDigest({ kind: chip.kind, when: chip.when, params: chip.params, reads: planInputsOf(plan, chip) });
}

function planInputsOf(plan: Pick<PlanDefinition, 'period' | 'quota_cents'>, chip: ChipDefinition) {
  switch (chip.kind) {
    case 'commission':
    case 'flat':
      return {};
    case 'tiered_commission':
      return chip.params.tiers.some((tier) => 'up_to_pct' in tier)
        ? { period: plan.period, quota_cents: plan.quota_cents }
        : { period: plan.period };
    case 'attainment_bonus':
      return { period: plan.period, quota_cents: plan.quota_cents };
  }
}

/**
 * SHA-256 (hex) of the canonical JSON: object members sorted by name, no whitespace. Stored plan versions and
 * chips keep these digests, so this encoding must never change (a change would make every unchanged file look
 * changed on its next apply).
 */
function canonicalDigest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const members = Object.keys(value)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(value[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Problems as lines for people: `chips[1].tiers[0].rate_bps (line 17): must be an integer`. */
export function describeProblem(problem: PlanFileProblem): string {
  const where = problem.path === '' ? '(file)' : problem.path;
  return `${where}${problem.line === undefined ? '' : ` (line ${problem.line})`}: ${problem.message}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing

type Segment = string | number;

type Parsed = { document: unknown; locate?: (path: Segment[]) => number | undefined } | { problems: PlanFileProblem[] };

function parseJson(text: string): Parsed {
  try {
    return { document: JSON.parse(text) };
  } catch (error) {
    return { problems: [{ path: '', message: `is not valid JSON: ${(error as Error).message}` }] };
  }
}

function parseYaml(text: string): Parsed {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, version: '1.2' });
  const issues = [...document.errors, ...document.warnings];
  if (issues.length > 0) {
    return {
      problems: issues.map((issue) => {
        const line = issue.linePos?.[0].line ?? lineCounter.linePos(issue.pos[0]).line;
        return { path: '', line, message: `is not valid YAML: ${issue.message}` };
      }),
    };
  }
  try {
    return { document: document.toJS({ maxAliasCount: 100 }), locate: yamlLocator(document, lineCounter) };
  } catch (error) {
    return { problems: [{ path: '', message: `is not valid YAML: ${(error as Error).message}` }] };
  }
}

/** The line of the deepest node of `path` present in the YAML document (a missing member: its parent's line). */
function yamlLocator(document: Document, lineCounter: LineCounter) {
  return (path: Segment[]): number | undefined => {
    for (let length = path.length; length >= 0; length--) {
      const node = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
      const range = (node as { range?: [number, number, number] } | undefined)?.range;
      if (range) return lineCounter.linePos(range[0]).line;
    }
    return undefined;
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The published schema

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  pattern?: string;
  then?: SchemaNode;
  else?: SchemaNode;
}

const SCHEMA = schema as unknown as { $defs: Record<string, SchemaNode>; properties: Record<string, SchemaNode> };
const DEFS = SCHEMA.$defs;

// Sentences for the rules whose validator message would mean little to the author of a plan file, by the schema
// object that carries the rule (and, where it carries several, the rule's keyword).
const ASSIGNEES = 'must be "all" or a non-empty list of owner_external_id values';
const MESSAGES = new Map<unknown, Record<string, string>>([
  [DEFS.slug, { pattern: 'must be a key: lowercase letters and digits, words separated by - or _ (like core-ae)' }],
  [DEFS.displayName, { pattern: 'must not be blank' }],
  [DEFS.tier, { oneOf: 'needs exactly one bound, up_to_cents or up_to_pct (null for the open last band)' }],
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

function schemaProblems(document: unknown): PlanFileProblem[] {
  compiled ??= new Ajv2020({ allErrors: true, verbose: true, strictTypes: false }).compile(schema);
  if (compiled(document)) return [];
  const errors = compiled.errors ?? [];
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
    const problem = describeSchemaError(error, document);
    if (!byPath.has(problem.path)) byPath.set(problem.path, problem);
  }
  return [...byPath.values()];
}

function describeSchemaError(error: ErrorObject, document: unknown): PlanFileProblem {
  const segments = pointerSegments(error.instancePath, document);
  const custom = (MESSAGES.get(error.parentSchema) as Record<string, string> | undefined)?.[error.keyword];
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

// ---------------------------------------------------------------------------------------------------------------
// Rules the schema cannot express. They read the raw document defensively: the schema reports wrong shapes, these
// report what is wrong among values of the right shape, so every problem of a file is listed in one go.

const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const DEAL_STATUSES = ['open', 'won', 'lost', 'deleted'];
const ORDERABLE_FIELDS = 'amount_cents, close_date or a custom field';
const CONDITION_FIELD = new RegExp(DEFS.fieldCondition?.properties?.field?.pattern ?? '^$');

function ruleProblems(document: unknown): PlanFileProblem[] {
  if (!isObject(document)) return [];
  const problems: PlanFileProblem[] = [];
  const quota = document.quota_cents;
  const chips = Array.isArray(document.chips) ? document.chips : [];
  const firstWithKey = new Map<string, number>();
  chips.forEach((chip, index) => {
    if (!isObject(chip)) return;
    const at = (...rest: Segment[]) => formatPath(['chips', index, ...rest]);
    if (typeof chip.key === 'string') {
      const first = firstWithKey.get(chip.key);
      if (first === undefined) firstWithKey.set(chip.key, index);
      else problems.push({ path: at('key'), message: `repeats the key of chips[${first}]; chip keys must be unique` });
    }
    if (chip.kind === 'commission' && typeof chip.base === 'string' && chip.base.startsWith('custom.')) {
      problems.push(...customNameProblems(chip.base, at('base')));
    }
    if (chip.kind === 'tiered_commission' && Array.isArray(chip.tiers)) {
      problems.push(...tierProblems(chip.tiers, (...rest) => at('tiers', ...rest)));
      if (chip.tiers.some((tier) => isObject(tier) && 'up_to_pct' in tier)) {
        const missing = quotaMissing(quota, 'up_to_pct bands are percentages of quota');
        if (missing) problems.push({ path: at('tiers'), message: missing });
      }
    }
    if (chip.kind === 'attainment_bonus') {
      const missing = quotaMissing(quota, 'threshold_pct is a percentage of quota');
      if (missing) problems.push({ path: at('threshold_pct'), message: missing });
    }
    if (chip.when !== undefined && chip.when !== null) {
      problems.push(...conditionProblems(chip.when, ['chips', index, 'when']));
    }
  });
  return problems;
}

function quotaMissing(quota: unknown, why: string): string | undefined {
  if (quota === undefined || quota === null) return `${why}: set quota_cents on the plan`;
  if (quota === 0) return `${why}, and quota_cents is 0`;
  return undefined;
}

function tierProblems(tiers: unknown[], at: (...rest: Segment[]) => string): PlanFileProblem[] {
  const problems: PlanFileProblem[] = [];
  const bands = tiers.map((tier) => {
    if (!isObject(tier)) return undefined;
    const units = (['up_to_cents', 'up_to_pct'] as const).filter((unit) => unit in tier);
    const unit = units.length === 1 ? units[0] : undefined;
    return unit === undefined ? undefined : { unit, bound: tier[unit] };
  });
  const firstUnit = bands.find((band) => band !== undefined)?.unit;
  let previous: { bound: number; index: number } | undefined;
  bands.forEach((band, index) => {
    if (band === undefined) return;
    if (band.unit !== firstUnit) {
      problems.push({
        path: at(index),
        message: `uses ${band.unit} but the first band uses ${firstUnit}: every band of a chip uses the same unit`,
      });
      return;
    }
    const last = index === tiers.length - 1;
    if (band.bound === null && !last) {
      problems.push({ path: at(index, band.unit), message: 'only the last band may be open (null)' });
    } else if (band.bound !== null && last) {
      problems.push({ path: at(index, band.unit), message: 'must be null: the last band is open' });
    }
    if (typeof band.bound !== 'number') return;
    if (previous && band.bound <= previous.bound) {
      problems.push({
        path: at(index, band.unit),
        message: `must be greater than the previous band's bound (${previous.bound}): bands strictly increase`,
      });
    }
    previous = { bound: band.bound, index };
  });
  return problems;
}

function conditionProblems(condition: unknown, path: Segment[]): PlanFileProblem[] {
  if (!isObject(condition)) return [];
  for (const combinator of ['all', 'any'] as const) {
    const members = condition[combinator];
    if (Array.isArray(members)) {
      return members.flatMap((member, index) => conditionProblems(member, [...path, combinator, index]));
    }
  }
  if ('not' in condition) return conditionProblems(condition.not, [...path, 'not']);
  const { field, op } = condition;
  if (typeof field !== 'string' || !isConditionOp(op) || !CONDITION_FIELD.test(field)) return [];
  const problems: PlanFileProblem[] = [];
  if (field.startsWith('custom.')) problems.push(...customNameProblems(field, formatPath([...path, 'field'])));
  const valuePath = formatPath([...path, 'value']);
  const hasValue = 'value' in condition;
  const value = condition.value;
  if (op === 'exists') {
    if (hasValue) {
      problems.push({
        path: valuePath,
        message: 'exists takes no value; wrap the comparison in {not: ...} for absence',
      });
    }
    return problems;
  }
  if (!hasValue) return [...problems, { path: valuePath, message: `is required with op ${op}` }];
  switch (op) {
    case 'in':
    case 'nin':
      if (!Array.isArray(value) || value.length === 0) {
        problems.push({ path: valuePath, message: `must be a non-empty list with op ${op}` });
      } else {
        value.forEach((member, index) => {
          const wrong = scalarProblem(field, member);
          if (wrong) problems.push({ path: formatPath([...path, 'value', index]), message: wrong });
        });
      }
      break;
    case 'eq':
    case 'ne': {
      const wrong = scalarProblem(field, value);
      if (wrong) problems.push({ path: valuePath, message: wrong });
      break;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (field !== 'amount_cents' && field !== 'close_date' && !field.startsWith('custom.')) {
        problems.push({
          path: formatPath([...path, 'op']),
          message: `${op} compares ${ORDERABLE_FIELDS}, not ${field}`,
        });
        break;
      }
      const wrong =
        field.startsWith('custom.') && typeof value !== 'number' && typeof value !== 'string'
          ? `must be a number or a string with op ${op}`
          : scalarProblem(field, value);
      if (wrong) problems.push({ path: valuePath, message: wrong });
      break;
    }
    case 'contains':
      if (field === 'amount_cents' || field === 'close_date' || field === 'status') {
        problems.push({
          path: formatPath([...path, 'op']),
          message: `contains tests text or a list (stage, owner_external_id or a custom field), not ${field}`,
        });
        break;
      }
      {
        const wrong = scalarProblem(field, value);
        if (wrong) problems.push({ path: valuePath, message: wrong });
      }
      break;
  }
  return problems;
}

/** Why `value` cannot be compared with `field`, if it cannot. */
function scalarProblem(field: string, value: unknown): string | undefined {
  switch (field) {
    case 'amount_cents':
      return Number.isSafeInteger(value)
        ? undefined
        : 'must be an integer amount in cents to compare with amount_cents';
    case 'close_date':
      return isCalendarDate(value) ? undefined : 'must be a date YYYY-MM-DD to compare with close_date';
    case 'status':
      return typeof value === 'string' && DEAL_STATUSES.includes(value)
        ? undefined
        : `must be a deal status (${DEAL_STATUSES.join(', ')})`;
    case 'stage':
    case 'owner_external_id':
      return typeof value === 'string' && value !== ''
        ? undefined
        : `must be a non-empty string to compare with ${field}`;
    default:
      return isScalar(value) ? undefined : 'must be a string, a number or true/false';
  }
}

function customNameProblems(reference: string, path: string): PlanFileProblem[] {
  const name = reference.slice('custom.'.length);
  return RESERVED_NAMES.has(name) ? [{ path, message: `custom field name ${name} is reserved` }] : [];
}

function isConditionOp(op: unknown): op is ConditionOp {
  return CONDITION_OPS.includes(op as ConditionOp);
}

function isCalendarDate(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

function isScalar(value: unknown): value is ConditionScalar {
  return (
    typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------------------------
// Normalisation of a valid document: defaults filled in, members in one order, assignees sorted.

interface RawPlan {
  key: string;
  name: string;
  period?: PlanDefinition['period'];
  quota_cents?: number | null;
  assignees: 'all' | string[];
  chips: Array<Record<string, unknown> & { key: string; name: string; kind: ChipDefinition['kind'] }>;
}

function normalisePlan(raw: RawPlan): PlanDefinition {
  return {
    key: raw.key,
    name: raw.name,
    period: raw.period ?? 'monthly',
    quota_cents: raw.quota_cents ?? null,
    assignees: raw.assignees === 'all' ? 'all' : [...raw.assignees].sort(),
    chips: raw.chips.map((chip) =>
      normaliseChip({
        key: chip.key,
        name: chip.name,
        kind: chip.kind,
        when: (chip.when as Condition | null | undefined) ?? null,
        params: chip,
      }),
    ),
  };
}

/**
 * A chip in its normal form: members in one order, defaults filled in. Also puts a stored chip (JSON columns
 * whose member order the database does not keep) back into that order.
 */
export function normaliseChip(chip: {
  key: string;
  name: string;
  kind: ChipDefinition['kind'];
  when: Condition | null;
  params: Record<string, unknown>;
}): ChipDefinition {
  const head = { key: chip.key, name: chip.name };
  const when = chip.when === null ? null : normaliseCondition(chip.when);
  const p = chip.params;
  switch (chip.kind) {
    case 'commission':
      return {
        ...head,
        kind: chip.kind,
        when,
        params: { rate_bps: p.rate_bps as number, base: (p.base as 'amount_cents' | undefined) ?? 'amount_cents' },
      };
    case 'tiered_commission':
      return {
        ...head,
        kind: chip.kind,
        when,
        params: { mode: p.mode as 'marginal' | 'retroactive', tiers: (p.tiers as Tier[]).map(normaliseTier) },
      };
    case 'flat':
      return { ...head, kind: chip.kind, when, params: { amount_cents: p.amount_cents as number } };
    case 'attainment_bonus':
      return {
        ...head,
        kind: chip.kind,
        when,
        params: { threshold_pct: p.threshold_pct as number, amount_cents: p.amount_cents as number },
      };
  }
}

function normaliseTier(tier: Tier): Tier {
  return 'up_to_pct' in tier
    ? { up_to_pct: tier.up_to_pct, rate_bps: tier.rate_bps }
    : { up_to_cents: tier.up_to_cents, rate_bps: tier.rate_bps };
}

function normaliseCondition(condition: Condition): Condition {
  if ('all' in condition) return { all: condition.all.map(normaliseCondition) };
  if ('any' in condition) return { any: condition.any.map(normaliseCondition) };
  if ('not' in condition) return { not: normaliseCondition(condition.not) };
  const comparison: FieldCondition = { field: condition.field, op: condition.op };
  if (condition.value !== undefined) comparison.value = condition.value;
  return comparison;
}

// ---------------------------------------------------------------------------------------------------------------
// Paths

function pointerSegments(pointer: string, document: unknown): Segment[] {
  if (pointer === '') return [];
  const segments: Segment[] = [];
  let node = document;
  for (const raw of pointer.slice(1).split('/')) {
    const name = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    const segment = Array.isArray(node) && /^\d+$/.test(name) ? Number(name) : name;
    segments.push(segment);
    node = (node as Record<string | number, unknown> | undefined)?.[segment];
  }
  return segments;
}

function formatPath(segments: Segment[]): string {
  return segments
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      if (/^[A-Za-z_$][\w$]*$/.test(segment)) return index === 0 ? segment : `.${segment}`;
      return `[${JSON.stringify(segment)}]`;
    })
    .join('');
}

function parsePath(path: string): Segment[] {
  const segments: Segment[] = [];
  for (const match of path.matchAll(/([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(JSON.parse(match[3]) as string);
  }
  return segments;
}

function dedupe(problems: PlanFileProblem[]): PlanFileProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const id = `${problem.path}\n${problem.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Problems in the order their places appear in the file, each with its line when the file is YAML. */
function inDocumentOrder(
  problems: PlanFileProblem[],
  document: unknown,
  locate: ((path: Segment[]) => number | undefined) | undefined,
): PlanFileProblem[] {
  const order = new Map<string, number>();
  const visit = (node: unknown, segments: Segment[]) => {
    order.set(formatPath(segments), order.size);
    if (Array.isArray(node)) {
      node.forEach((member, index) => {
        visit(member, [...segments, index]);
      });
    } else if (isObject(node)) for (const [name, member] of Object.entries(node)) visit(member, [...segments, name]);
  };
  visit(document, []);
  const rank = (path: string): number => {
    const segments = parsePath(path);
    for (let length = segments.length; length >= 0; length--) {
      const found = order.get(formatPath(segments.slice(0, length)));
      if (found !== undefined) return found + (length < segments.length ? 0.5 : 0);
    }
    return Number.POSITIVE_INFINITY;
  };
  return problems
    .map((problem, index) => ({ problem, index, rank: rank(problem.path) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ problem }) => {
      const line = locate?.(parsePath(problem.path));
      return line === undefined ? problem : { ...problem, line };
    });
}
