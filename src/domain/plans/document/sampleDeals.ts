import { evaluateCondition } from '../../earnings/conditions.ts';
import type { DealSnapshot } from '../../earnings/types.ts';
import type { Condition, ConditionScalar, FieldCondition } from '../types.ts';

// Deal fields that make a chip's condition hold (or fail), found from the condition itself: each comparison proposes
// the values that could satisfy it, and the engine's own condition evaluator decides. What cannot be satisfied
// together (two chips asking for different regions) is left out, and the engine then says which chips apply.

/** The fields a sample deal sets: `amount_cents`, `stage` and custom fields as `custom.<name>`. */
export type SampleFields = Map<string, ConditionScalar | ConditionScalar[] | undefined>;

const SETTABLE = /^(amount_cents|stage|custom\..+)$/;

function shiftedDate(date: string, days: number): string {
  const time = Date.parse(`${date}T00:00:00Z`);
  return new Date(time + days * 86_400_000).toISOString().slice(0, 10);
}

/** Values that may satisfy or fail `field op value`: the value itself, its neighbours and unrelated ones. */
function candidates(condition: FieldCondition): Array<ConditionScalar | ConditionScalar[] | undefined> {
  const values = Array.isArray(condition.value) ? condition.value : [condition.value];
  const found: Array<ConditionScalar | ConditionScalar[] | undefined> = [];
  for (const value of values) {
    if (value === undefined) continue;
    found.push(value);
    if (typeof value === 'number') found.push(value + 1, value - 1, value * 2 + 1);
    if (typeof value === 'boolean') found.push(!value);
    if (typeof value === 'string') {
      if (/^\d{4}-\d{2}-\d{2}$/.test(value)) found.push(shiftedDate(value, 1), shiftedDate(value, -1));
      found.push(`${value}-other`, `other`, [value]);
    }
  }
  found.push('other', 1, true, undefined);
  return found;
}

function holds(condition: Condition, fields: SampleFields, base: DealSnapshot): boolean {
  return evaluateCondition(condition, withFields(base, fields)).result;
}

/** The deal with the fields set (a custom field set to `undefined` is absent). */
export function withFields(base: DealSnapshot, fields: SampleFields): DealSnapshot {
  const deal: DealSnapshot = { ...base, custom: { ...base.custom } };
  for (const [field, value] of fields) {
    if (field === 'amount_cents') {
      if (typeof value === 'number') deal.amount_cents = value;
    } else if (field === 'stage') {
      if (typeof value === 'string') deal.stage = value;
    } else if (field.startsWith('custom.')) {
      const name = field.slice('custom.'.length);
      if (value === undefined) delete deal.custom[name];
      else deal.custom[name] = value;
    }
  }
  return deal;
}

/**
 * Extends `fields` so that the condition comes out as `want` on the base deal, or returns null when no proposed value
 * does. Fields already chosen are kept; `amount_cents` is only given a value that is a positive whole number.
 */
export function solveCondition(
  condition: Condition,
  want: boolean,
  fields: SampleFields,
  base: DealSnapshot,
): SampleFields | null {
  if (holds(condition, fields, base) === want) return fields;
  if ('not' in condition) return solveCondition(condition.not, !want, fields, base);
  if ('all' in condition || 'any' in condition) {
    const members = 'all' in condition ? condition.all : condition.any;
    // all → every member must hold; any → every member must fail: solve them one after another.
    const everyMember = 'all' in condition === want;
    if (everyMember) {
      let solved: SampleFields | null = fields;
      for (const member of members) {
        solved = solved === null ? null : solveCondition(member, want, solved, base);
      }
      return solved !== null && holds(condition, solved, base) === want ? solved : null;
    }
    for (const member of members) {
      const solved = solveCondition(member, want, fields, base);
      if (solved !== null && holds(condition, solved, base) === want) return solved;
    }
    return null;
  }
  if (!SETTABLE.test(condition.field) || fields.has(condition.field)) return null;
  for (const value of candidates(condition)) {
    if (
      condition.field === 'amount_cents' &&
      !(typeof value === 'number' && Number.isSafeInteger(value) && value > 0)
    ) {
      continue;
    }
    if (condition.field === 'stage' && typeof value !== 'string') continue;
    const next: SampleFields = new Map(fields);
    next.set(condition.field, value);
    if (holds(condition, next, base) === want) return next;
  }
  return null;
}

/** Fields meeting (or failing) as many of the conditions as can be met together, in order. */
export function fieldsFor(conditions: readonly Condition[], want: boolean, base: DealSnapshot): SampleFields {
  let fields: SampleFields = new Map();
  for (const condition of conditions) fields = solveCondition(condition, want, fields, base) ?? fields;
  return fields;
}
