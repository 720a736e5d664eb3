import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { evaluateCondition } from '../../src/domain/earnings/conditions.ts';
import type { Condition, FieldCondition } from '../../src/domain/earnings/types.ts';
import { conditionProblems } from '../../src/domain/plans/conditionRules.ts';
import { deal } from '../factories/earnings.ts';

const opportunity = deal(1, {
  amount_cents: 5_000_000,
  stage: 'closed_won',
  close_date: '2026-04-20',
  status: 'won',
  custom: {
    region: 'NA',
    new_logo: true,
    seats: 40,
    products: ['core', 'analytics'],
    signed_at: '2026-04-19T10:00:00Z',
    note: null,
  },
});

function holds(condition: Condition): boolean {
  return evaluateCondition(condition, opportunity).result;
}

function compare(field: string, op: FieldCondition['op'], value?: unknown): boolean {
  return holds(value === undefined ? { field, op } : { field, op, value });
}

describe('comparison operators', () => {
  test('eq and ne compare values of the same type', () => {
    assert.equal(compare('stage', 'eq', 'closed_won'), true);
    assert.equal(compare('stage', 'eq', 'Closed_Won'), false);
    assert.equal(compare('custom.new_logo', 'eq', true), true);
    assert.equal(compare('custom.seats', 'eq', 40), true);
    assert.equal(compare('custom.seats', 'eq', '40'), false, 'a number never equals a string');
    assert.equal(compare('custom.products', 'eq', ['core', 'analytics']), true);
    assert.equal(compare('stage', 'ne', 'open'), true);
    assert.equal(compare('stage', 'ne', 'closed_won'), false);
    assert.equal(compare('custom.seats', 'ne', '40'), true);
  });

  test('in and nin look the value up in a list', () => {
    assert.equal(compare('custom.region', 'in', ['EMEA', 'NA']), true);
    assert.equal(compare('custom.region', 'in', ['EMEA', 'APAC']), false);
    assert.equal(compare('custom.region', 'nin', ['EMEA', 'APAC']), true);
    assert.equal(compare('custom.region', 'nin', ['EMEA', 'NA']), false);
    assert.equal(compare('custom.seats', 'in', [10, 40]), true);
    assert.equal(compare('custom.region', 'in', 'NA'), false, 'in without a list is false, not an error');
  });

  test('numbers compare as numbers', () => {
    assert.equal(compare('amount_cents', 'gt', 4_999_999), true);
    assert.equal(compare('amount_cents', 'gt', 5_000_000), false);
    assert.equal(compare('amount_cents', 'gte', 5_000_000), true);
    assert.equal(compare('amount_cents', 'gte', 5_000_001), false);
    assert.equal(compare('amount_cents', 'lt', 5_000_001), true);
    assert.equal(compare('amount_cents', 'lt', 5_000_000), false);
    assert.equal(compare('amount_cents', 'lte', 5_000_000), true);
    assert.equal(compare('amount_cents', 'lte', 4_999_999), false);
    assert.equal(compare('custom.seats', 'gt', 9), true, 'as numbers: 40 > 9, though "40" < "9" as text');
  });

  test('dates compare as dates and timestamps as instants', () => {
    assert.equal(compare('close_date', 'gte', '2026-04-01'), true);
    assert.equal(compare('close_date', 'lt', '2026-04-20'), false);
    assert.equal(compare('close_date', 'lte', '2026-04-20'), true);
    assert.equal(compare('close_date', 'gt', '2026-12-31'), false);
    assert.equal(compare('close_date', 'eq', '2026-04-20'), true);
    assert.equal(compare('custom.signed_at', 'lt', '2026-04-19T12:00:00+01:00'), true, '10:00Z is before 11:00Z');
    assert.equal(compare('custom.signed_at', 'gt', '2026-04-19T12:00:00+03:00'), true, '10:00Z is after 09:00Z');
  });

  test('values of different kinds are not comparable, so the comparison is false', () => {
    assert.equal(compare('stage', 'gt', 'a'), false, 'text is not ordered');
    assert.equal(compare('close_date', 'gt', 20260101), false);
    assert.equal(compare('amount_cents', 'lt', '2026-04-20'), false);
    assert.equal(compare('close_date', 'lt', '2026-04-21T00:00:00Z'), false, 'a date is not a timestamp');
  });

  test('contains finds a substring in text and a member in a list', () => {
    assert.equal(compare('stage', 'contains', 'won'), true);
    assert.equal(compare('stage', 'contains', 'lost'), false);
    assert.equal(compare('custom.products', 'contains', 'analytics'), true);
    assert.equal(compare('custom.products', 'contains', 'billing'), false);
    assert.equal(compare('custom.seats', 'contains', 4), false, 'a number contains nothing');
  });

  test('exists tests presence; null counts as missing', () => {
    assert.equal(compare('custom.region', 'exists'), true);
    assert.equal(compare('custom.territory', 'exists'), false);
    assert.equal(compare('custom.note', 'exists'), false);
    assert.equal(compare('status', 'exists'), true);
  });
});

describe('a missing field', () => {
  const ops: FieldCondition['op'][] = ['eq', 'ne', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'contains'];

  test('makes every comparison false, ne and nin included, and never throws', () => {
    for (const op of ops) {
      const value = op === 'in' || op === 'nin' ? ['EMEA'] : 'EMEA';
      assert.equal(compare('custom.territory', op, value), false, op);
      assert.equal(compare('custom.note', op, value), false, `${op} on null`);
    }
    const withoutAmount = deal(2, { amount_cents: null, close_date: null });
    assert.equal(evaluateCondition({ field: 'amount_cents', op: 'lt', value: 1 }, withoutAmount).result, false);
    assert.equal(
      evaluateCondition({ field: 'close_date', op: 'ne', value: '2026-04-01' }, withoutAmount).result,
      false,
    );
  });

  test('is recorded as null among the inputs, and said so', () => {
    const outcome = evaluateCondition({ field: 'custom.territory', op: 'ne', value: 'EMEA' }, opportunity);
    assert.deepEqual(outcome.inputs, { 'custom.territory': null });
    assert.deepEqual(outcome.sentences, ['custom.territory is missing, so "custom.territory ne EMEA" is false']);
  });

  test('can be tested for with not and exists', () => {
    assert.equal(holds({ not: { field: 'custom.territory', op: 'exists' } }), true);
  });
});

describe('combinations', () => {
  const inNorthAmerica: Condition = { field: 'custom.region', op: 'eq', value: 'NA' };
  const large: Condition = { field: 'amount_cents', op: 'gte', value: 10_000_000 };

  test('all, any and not combine, and nest', () => {
    assert.equal(holds({ all: [inNorthAmerica, large] }), false);
    assert.equal(holds({ any: [inNorthAmerica, large] }), true);
    assert.equal(holds({ not: large }), true);
    assert.equal(
      holds({ all: [inNorthAmerica, { not: large }, { any: [large, { field: 'stage', op: 'exists' }] }] }),
      true,
    );
  });

  test('every comparison is evaluated, so the inputs list every field the condition names', () => {
    const outcome = evaluateCondition(
      { any: [inNorthAmerica, large, { field: 'custom.territory', op: 'exists' }] },
      opportunity,
    );
    assert.equal(outcome.result, true);
    assert.deepEqual(outcome.inputs, { 'custom.region': 'NA', amount_cents: 5_000_000, 'custom.territory': null });
    assert.deepEqual(outcome.sentences, [
      'custom.region is NA, which equals NA',
      'amount_cents is 5000000, which is less than 10000000',
      'custom.territory is missing, so "custom.territory exists" is false',
    ]);
  });

  test('a custom name with dots is read verbatim, as ingestion stores custom members flat', () => {
    const dotted = deal(3, { custom: { 'billing.country': 'FR' } });
    assert.equal(evaluateCondition({ field: 'custom.billing.country', op: 'eq', value: 'FR' }, dotted).result, true);
  });
});

describe('condition problems, for the plan checks', () => {
  test('a well-formed condition has none', () => {
    assert.deepEqual(
      conditionProblems(
        {
          all: [
            { field: 'custom.region', op: 'in', value: ['NA'] },
            { field: 'stage', op: 'exists' },
          ],
        },
        'when',
      ),
      [],
    );
  });

  test('each problem is named by its path', () => {
    assert.deepEqual(
      conditionProblems(
        {
          any: [
            { field: 'region', op: 'eq', value: 'NA' },
            { field: 'custom.region', op: 'in', value: 'NA' },
            { field: 'custom.region', op: 'exists', value: false },
            { field: 'stage', op: 'matches', value: 'x' },
            { field: 'amount_cents', op: 'gt', value: 'big' },
            { field: 'stage', op: 'eq' },
          ],
        },
        'chips[0].when',
      ).map((problem) => problem.path),
      [
        'chips[0].when.any[0].field',
        'chips[0].when.any[1].value',
        'chips[0].when.any[2].value',
        'chips[0].when.any[3].op',
        'chips[0].when.any[4].value',
        'chips[0].when.any[5].value',
      ],
    );
    assert.deepEqual(conditionProblems({ all: [] }, 'when'), [
      { path: 'when.all', message: 'must be a non-empty list of conditions' },
    ]);
    assert.equal(conditionProblems('NA', 'when')[0]?.message, 'must be a condition object');
  });
});
