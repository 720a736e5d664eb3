import { isCalendarDate } from '../periods.ts';
import { CONDITION_OPS, type ConditionOp, type ConditionScalar, type PlanFileProblem } from './types.ts';

// The one rule set for chip conditions (`when`), used by the plan-file check and by the engine alike, so a plan
// file is either refused with the problem named or its conditions are evaluated: a comparison the engine could
// not make is never stored. What each rule allows is exactly what src/domain/earnings/conditions.ts can compare:
// numbers with numbers, YYYY-MM-DD dates with dates, RFC 3339 timestamps with timestamps, any scalar for
// equality and membership.

export const STANDARD_CONDITION_FIELDS = ['amount_cents', 'stage', 'close_date', 'owner_external_id', 'status'];
export const CUSTOM_PREFIX = 'custom.';
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const DEAL_STATUSES = ['open', 'won', 'lost', 'deleted'];
const EARNING_STATUSES = ['open', 'won'];
const ORDERABLE_FIELDS = 'amount_cents, close_date or a custom field';
const FIELD_MESSAGE = 'must be amount_cents, stage, close_date, owner_external_id, status or custom.<name>';

export interface ConditionRuleOptions {
  /**
   * Whether to report wrong shapes (not an object, unknown members, an unknown field or operator, an empty
   * list). The plan-file check leaves them to the published JSON Schema, which names them in its own words;
   * the engine, reading conditions back from a JSON column, reports them itself.
   */
  shapes: boolean;
}

export function isConditionField(field: string): boolean {
  return (
    STANDARD_CONDITION_FIELDS.includes(field) ||
    (field.startsWith(CUSTOM_PREFIX) && field.length > CUSTOM_PREFIX.length)
  );
}

/** What is wrong with a condition, each problem named by its path under `path` (e.g. `chips[2].when`). */
export function conditionProblems(
  condition: unknown,
  path: string,
  options: ConditionRuleOptions = { shapes: true },
): PlanFileProblem[] {
  const shapeProblem = (at: string, message: string): PlanFileProblem[] =>
    options.shapes ? [{ path: at, message }] : [];
  if (!isObject(condition)) return shapeProblem(path, 'must be a condition object');
  const keys = Object.keys(condition);
  for (const combinator of ['all', 'any'] as const) {
    if (combinator in condition) {
      if (keys.length !== 1 && options.shapes) return shapeProblem(path, `"${combinator}" must be the only member`);
      const list = condition[combinator];
      if (!Array.isArray(list) || list.length === 0) {
        return shapeProblem(`${path}.${combinator}`, 'must be a non-empty list of conditions');
      }
      return list.flatMap((member, index) => conditionProblems(member, `${path}.${combinator}[${index}]`, options));
    }
  }
  if ('not' in condition) {
    if (keys.length !== 1 && options.shapes) return shapeProblem(path, '"not" must be the only member');
    return conditionProblems(condition.not, `${path}.not`, options);
  }

  const problems: PlanFileProblem[] = [];
  const unknown = keys.filter((key) => !['field', 'op', 'value'].includes(key));
  if (unknown.length > 0) problems.push(...shapeProblem(path, `unknown member ${unknown.join(', ')}`));
  const { field, op } = condition;
  const knownField = typeof field === 'string' && isConditionField(field);
  if (!knownField) problems.push(...shapeProblem(`${path}.field`, FIELD_MESSAGE));
  if (!isConditionOp(op)) {
    problems.push(...shapeProblem(`${path}.op`, `must be one of ${CONDITION_OPS.join(', ')}`));
    return problems;
  }
  if (!knownField) return problems;
  return [...problems, ...comparisonProblems(field, op, condition, path)];
}

/** The rules on one comparison whose field and operator are known. */
function comparisonProblems(
  field: string,
  op: ConditionOp,
  condition: Record<string, unknown>,
  path: string,
): PlanFileProblem[] {
  const problems: PlanFileProblem[] = [];
  if (field.startsWith(CUSTOM_PREFIX)) {
    const name = field.slice(CUSTOM_PREFIX.length);
    if (RESERVED_NAMES.has(name))
      problems.push({ path: `${path}.field`, message: `custom field name ${name} is reserved` });
  }
  const valuePath = `${path}.value`;
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
  const wrongScalar = (at: string, candidate: unknown) => {
    const wrong = scalarProblem(field, candidate);
    if (wrong) problems.push({ path: at, message: wrong });
  };
  switch (op) {
    case 'in':
    case 'nin':
      if (!Array.isArray(value) || value.length === 0) {
        problems.push({ path: valuePath, message: `must be a non-empty list with op ${op}` });
      } else {
        value.forEach((member, index) => {
          wrongScalar(`${valuePath}[${index}]`, member);
        });
      }
      break;
    case 'eq':
    case 'ne':
      wrongScalar(valuePath, value);
      break;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (field !== 'amount_cents' && field !== 'close_date' && !field.startsWith(CUSTOM_PREFIX)) {
        problems.push({ path: `${path}.op`, message: `${op} compares ${ORDERABLE_FIELDS}, not ${field}` });
      } else if (field.startsWith(CUSTOM_PREFIX)) {
        if (!isOrderable(value)) {
          problems.push({
            path: valuePath,
            message: `must be a number, a date YYYY-MM-DD or a timestamp (RFC 3339) with op ${op}`,
          });
        }
      } else {
        wrongScalar(valuePath, value);
        if (field === 'amount_cents' && op === 'lt' && value === 0) {
          problems.push({ path: valuePath, message: 'lt 0 admits no amount: deal amounts are 0 or more' });
        }
      }
      break;
    case 'contains':
      if (field === 'amount_cents' || field === 'close_date' || field === 'status') {
        problems.push({
          path: `${path}.op`,
          message: `contains tests text or a list (stage, owner_external_id or a custom field), not ${field}`,
        });
      } else {
        wrongScalar(valuePath, value);
      }
      break;
  }
  if (field === 'status' && problems.length === 0 && !admitsEarningStatus(op, value)) {
    problems.push({
      path: valuePath,
      message: 'admits only lost or deleted deals, which earn nothing: the chip could never pay',
    });
  }
  return problems;
}

/** Whether a (valid) comparison on `status` lets an open or a won deal through: only those earn. */
function admitsEarningStatus(op: ConditionOp, value: unknown): boolean {
  const listed = Array.isArray(value) ? value : [value];
  return EARNING_STATUSES.some((status) => {
    switch (op) {
      case 'eq':
      case 'in':
        return listed.includes(status);
      case 'ne':
      case 'nin':
        return !listed.includes(status);
      default:
        return true;
    }
  });
}

/** Why `value` cannot be compared with `field`, if it cannot. */
function scalarProblem(field: string, value: unknown): string | undefined {
  switch (field) {
    case 'amount_cents':
      // Deal amounts are integers from 0 (ingestion refuses others): a negative bound could match no deal.
      return Number.isSafeInteger(value) && (value as number) >= 0
        ? undefined
        : 'must be an integer amount in cents, 0 or more, to compare with amount_cents';
    case 'close_date':
      return isDate(value) ? undefined : 'must be a date YYYY-MM-DD to compare with close_date';
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

/** What an order comparison can compare with: a number, a date or a timestamp (conditions.ts compareOrdered). */
function isOrderable(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  return isDate(value) || (typeof value === 'string' && TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value)));
}

function isDate(value: unknown): boolean {
  return typeof value === 'string' && isCalendarDate(value);
}

function isConditionOp(op: unknown): op is ConditionOp {
  return CONDITION_OPS.includes(op as ConditionOp);
}

function isScalar(value: unknown): value is ConditionScalar {
  return (
    typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
