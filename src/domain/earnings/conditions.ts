import { canonicalJson } from '../json.ts';
import { isCalendarDate } from '../periods.ts';
import { CUSTOM_PREFIX, STANDARD_CONDITION_FIELDS, TIMESTAMP } from '../plans/conditionRules.ts';
import type { Condition, DealSnapshot, FieldCondition } from './types.ts';

// Conditions on deal fields (docs/plans-and-earnings.md, Conditions). A comparison on a missing field (absent or null) is
// false, never an error, and that includes the negative operators: `ne` and `nin` say "the field has a
// value and it is not ...", so a deal without a region does not match `region ne EMEA`. `exists` is the
// only way to ask about presence. Values compare only with values of the same type: numbers as numbers,
// `YYYY-MM-DD` dates as dates, RFC 3339 timestamps as instants; anything else is not comparable and the
// comparison is false.

export interface ConditionOutcome {
  result: boolean;
  /** Each field the condition read, with its value, `null` when the deal lacks it. */
  inputs: Record<string, unknown>;
  /** One plain sentence per comparison, saying what was found. */
  sentences: string[];
}

/**
 * The value of a condition field on a deal, `undefined` when missing. `custom.<name>` reads the custom
 * member called `<name>` verbatim (dots included), as ingestion stores custom members flat.
 */
export function readDealField(deal: DealSnapshot, field: string): unknown {
  let value: unknown;
  if (field.startsWith(CUSTOM_PREFIX)) {
    const name = field.slice(CUSTOM_PREFIX.length);
    value = Object.hasOwn(deal.custom, name) ? deal.custom[name] : undefined;
  } else if (STANDARD_CONDITION_FIELDS.includes(field)) {
    value = deal[field as keyof DealSnapshot];
  }
  return value === null ? undefined : value;
}

function sameValue(actual: unknown, expected: unknown): boolean {
  if (typeof actual !== typeof expected) return false;
  if (typeof actual === 'object') return canonicalJson(actual) === canonicalJson(expected);
  return actual === expected;
}

/** Negative, zero or positive when both are numbers, both dates or both timestamps; otherwise `null`. */
function compareOrdered(actual: unknown, expected: unknown): number | null {
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  if (typeof actual !== 'string' || typeof expected !== 'string') return null;
  if (isCalendarDate(actual) && isCalendarDate(expected)) return actual < expected ? -1 : actual > expected ? 1 : 0;
  if (TIMESTAMP.test(actual) && TIMESTAMP.test(expected)) {
    const difference = Date.parse(actual) - Date.parse(expected);
    return Number.isNaN(difference) ? null : difference;
  }
  return null;
}

function display(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return `[${value.map(display).join(', ')}]`;
  return JSON.stringify(value) ?? 'nothing';
}

interface Comparison {
  result: boolean;
  /** What the comparison found, following "<field> is <value>, which ...". */
  finding: string;
}

function compare(op: FieldCondition['op'], actual: unknown, expected: unknown): Comparison {
  const shown = display(expected);
  const holds = (result: boolean, yes: string, no: string): Comparison => ({ result, finding: result ? yes : no });
  switch (op) {
    case 'exists':
      return { result: true, finding: 'present' };
    case 'eq':
      return holds(sameValue(actual, expected), `equals ${shown}`, `does not equal ${shown}`);
    case 'ne':
      return holds(!sameValue(actual, expected), `does not equal ${shown}`, `equals ${shown}`);
    case 'in':
    case 'nin': {
      if (!Array.isArray(expected)) return { result: false, finding: `cannot be looked up in ${shown}, not a list` };
      const member = expected.some((candidate) => sameValue(actual, candidate));
      return op === 'in'
        ? holds(member, `is in ${shown}`, `is not in ${shown}`)
        : holds(!member, `is not in ${shown}`, `is in ${shown}`);
    }
    case 'contains':
      if (typeof actual === 'string' && typeof expected === 'string') {
        return holds(actual.includes(expected), `contains ${shown}`, `does not contain ${shown}`);
      }
      if (Array.isArray(actual)) {
        const member = actual.some((candidate) => sameValue(candidate, expected));
        return holds(member, `contains ${shown}`, `does not contain ${shown}`);
      }
      return { result: false, finding: `is neither text nor a list, so it cannot contain ${shown}` };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const order = compareOrdered(actual, expected);
      if (order === null) return { result: false, finding: `cannot be compared with ${shown}` };
      if (op === 'gt') return holds(order > 0, `is greater than ${shown}`, `is not greater than ${shown}`);
      if (op === 'gte') return holds(order >= 0, `is at least ${shown}`, `is less than ${shown}`);
      if (op === 'lt') return holds(order < 0, `is less than ${shown}`, `is not less than ${shown}`);
      return holds(order <= 0, `is at most ${shown}`, `is greater than ${shown}`);
    }
  }
}

function evaluateInto(condition: Condition, deal: DealSnapshot, outcome: ConditionOutcome): boolean {
  if ('all' in condition) {
    // Every member is evaluated, not short-circuited, so the trace shows every input the condition names.
    return condition.all.map((member) => evaluateInto(member, deal, outcome)).every(Boolean);
  }
  if ('any' in condition) return condition.any.map((member) => evaluateInto(member, deal, outcome)).some(Boolean);
  if ('not' in condition) return !evaluateInto(condition.not, deal, outcome);

  const actual = readDealField(deal, condition.field);
  outcome.inputs[condition.field] = actual ?? null;
  if (actual === undefined) {
    const test = condition.op === 'exists' ? 'exists' : `${condition.op} ${display(condition.value)}`;
    outcome.sentences.push(`${condition.field} is missing, so "${condition.field} ${test}" is false`);
    return false;
  }
  const { result, finding } = compare(condition.op, actual, condition.value);
  outcome.sentences.push(
    condition.op === 'exists'
      ? `${condition.field} is present (${display(actual)})`
      : `${condition.field} is ${display(actual)}, which ${finding}`,
  );
  return result;
}

export function evaluateCondition(condition: Condition, deal: DealSnapshot): ConditionOutcome {
  const outcome: ConditionOutcome = { result: false, inputs: {}, sentences: [] };
  outcome.result = evaluateInto(condition, deal, outcome);
  return outcome;
}
