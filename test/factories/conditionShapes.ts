import { CONDITION_OPS, type ConditionOp } from '../../src/domain/plans/types.ts';

// Every comparison shape a plan file can write: each condition field kind × operator × kind of value (and no
// value). The plan-file check must either refuse a shape with the problem named, or accept it and then the
// engine must evaluate it: for each accepted shape, `matchingValue` gives the deal value that satisfies it.

export const CONDITION_FIELDS = ['amount_cents', 'stage', 'close_date', 'owner_external_id', 'status', 'custom.tier'];

export const NO_VALUE = Symbol('no value');

export const VALUE_KINDS: Array<[string, unknown]> = [
  ['no value', NO_VALUE],
  ['an integer', 5000],
  ['zero', 0],
  ['a negative integer', -5],
  ['a fraction', 2.5],
  ['a word', 'gold'],
  ['an empty string', ''],
  ['a date', '2026-03-15'],
  ['a date in year 0', '0000-06-15'],
  ['an impossible date', '2026-02-30'],
  ['a timestamp', '2026-03-15T10:00:00Z'],
  ['true', true],
  ['a status that earns', 'won'],
  ['a status that never earns', 'lost'],
  ['null', null],
  ['an object', { tier: 'gold' }],
  ['a list of integers', [5000, 7000]],
  ['a list of words', ['gold', 'silver']],
  ['a list of dates', ['2026-03-15', '2026-03-16']],
  ['a list of booleans', [true]],
  ['a list with a status that earns', ['won', 'lost']],
  ['a list of statuses that never earn', ['lost', 'deleted']],
  ['a mixed list', ['gold', 5000]],
  ['an empty list', []],
];

export interface ConditionShape {
  field: string;
  op: ConditionOp;
  valueKind: string;
  condition: { field: string; op: ConditionOp; value?: unknown };
}

export function conditionShapes(): ConditionShape[] {
  return CONDITION_FIELDS.flatMap((field) =>
    CONDITION_OPS.flatMap((op) =>
      VALUE_KINDS.map(([valueKind, value]) => ({
        field,
        op,
        valueKind,
        condition: value === NO_VALUE ? { field, op } : { field, op, value },
      })),
    ),
  );
}

const EARNING_STATUSES = ['won', 'open'];

/** A deal value of `field` that satisfies the comparison; undefined when none can. */
export function matchingValue(field: string, op: ConditionOp, value: unknown): unknown {
  const list = Array.isArray(value) ? value : [];
  switch (op) {
    case 'exists':
      return field === 'status' ? 'won' : sample(field);
    case 'eq':
      return value;
    case 'ne':
      return different(field, [value]);
    case 'in':
      return field === 'status' ? list.find((member) => EARNING_STATUSES.includes(member as string)) : list[0];
    case 'nin':
      return different(field, list);
    case 'gt':
      return shifted(value, 1);
    case 'gte':
    case 'lte':
      return value;
    case 'lt':
      return shifted(value, -1);
    case 'contains':
      return typeof value === 'string' ? `pre-${value}-post` : [value];
  }
}

function sample(field: string): unknown {
  if (field === 'amount_cents') return 1_000_000;
  if (field === 'close_date') return '2026-03-20';
  return 'sample';
}

/** A value of the field's kind that equals none of `values`. */
function different(field: string, values: unknown[]): unknown {
  const candidates: unknown[] =
    field === 'status'
      ? EARNING_STATUSES
      : field === 'close_date'
        ? ['2026-03-20', '2026-03-21', '2026-03-22']
        : field === 'amount_cents'
          ? [1_000_000, 1_000_001, 1_000_002]
          : ['zzz-not-listed', 'yyy-not-listed', 'xxx-not-listed'];
  return candidates.find((candidate) => !values.includes(candidate));
}

/** One step above or below `value`: a cent, a day or a second. */
function shifted(value: unknown, step: number): unknown {
  if (typeof value === 'number') return value + step;
  if (typeof value !== 'string') return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    return new Date(Date.parse(`${value}T00:00:00Z`) + step * 86_400_000).toISOString().slice(0, 10);
  }
  return new Date(Date.parse(value) + step * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * The `state` of a deal event whose deal satisfies the shape (and is won, unless the shape needs it open), with
 * `custom.shape` set to `tag` so that a chip can single the deal out.
 */
export function matchingEventState(shape: ConditionShape, tag: string): Record<string, unknown> {
  const value = matchingValue(shape.field, shape.op, shape.condition.value);
  const state: Record<string, unknown> = {
    amount_cents: 1_000_000,
    stage: 'closed_won',
    close_date: '2026-03-20',
    owner_external_id: 'rep-shapes',
    custom: { shape: tag },
  };
  if (shape.field.startsWith('custom.')) {
    state.custom = { shape: tag, [shape.field.slice('custom.'.length)]: value };
  } else if (shape.field === 'status') {
    state.stage = value === 'won' ? 'closed_won' : 'negotiation';
  } else {
    state[shape.field] = value;
  }
  return state;
}
