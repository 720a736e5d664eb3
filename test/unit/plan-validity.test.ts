import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { checkPlanForEngine } from '../../src/domain/earnings/chipRules.ts';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { DealSnapshot, EnginePlanVersion } from '../../src/domain/earnings/types.ts';
import { validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import type { PlanDefinition } from '../../src/domain/plans/types.ts';
import { CONDITION_FIELDS, type ConditionShape, conditionShapes, matchingValue } from '../factories/conditionShapes.ts';
import { deal, rep, testId } from '../factories/earnings.ts';

// One rule set for plan validity: a plan file is either refused with its problem named, or every chip of it is
// evaluated. For every condition shape (field kind × operator × kind of value) the file check accepts, the engine
// finds nothing wrong with the stored plan and a deal that satisfies the condition earns.

const TODAY = '2026-03-25';

function documentWith(shape: ConditionShape) {
  return {
    key: 'shapes',
    name: 'Shapes',
    assignees: 'all',
    chips: [{ key: 'spiff', name: 'SPIFF', kind: 'flat', amount_cents: 10_000, when: shape.condition }],
  };
}

function enginePlanOf(plan: PlanDefinition): EnginePlanVersion {
  return {
    plan_id: testId('plan', 1),
    plan_key: plan.key,
    version_id: testId('pv', 1),
    version_number: 1,
    period: plan.period,
    quota_cents: plan.quota_cents,
    assignees: plan.assignees,
    chips: plan.chips.map((chip, index) => ({ ...chip, id: testId('chip', index + 1), version: '1' })),
  };
}

/** The base deal (won, 2026-03) with the shape's field set to a value that satisfies it. */
function matchingDeal(shape: ConditionShape): DealSnapshot | null {
  const value = matchingValue(shape.field, shape.op, shape.condition.value);
  if (value === undefined) return null;
  const base = deal(1, { close_date: '2026-03-20', won_at: '2026-03-20T12:00:00.000Z' });
  if (shape.field.startsWith('custom.')) return { ...base, custom: { [shape.field.slice('custom.'.length)]: value } };
  if (shape.field === 'status') {
    return value === 'open' ? { ...base, status: 'open', won_at: null } : { ...base, status: value as 'won' };
  }
  return { ...base, [shape.field]: value };
}

const SHAPES = conditionShapes();
const BY_FIELD_AND_OP = [...new Set(SHAPES.map((shape) => `${shape.field} ${shape.op}`))];

describe('plan validity: one rule set for the plan-file check and the engine', () => {
  test.each(BY_FIELD_AND_OP)('every accepted "%s" condition is evaluated, and a matching deal earns', (fieldAndOp) => {
    for (const shape of SHAPES.filter((candidate) => `${candidate.field} ${candidate.op}` === fieldAndOp)) {
      const label = `${fieldAndOp} with ${shape.valueKind}`;
      const read = validatePlanDocument(documentWith(shape));
      if (!read.ok) {
        assert.ok(read.problems.length > 0, label);
        for (const problem of read.problems) {
          assert.match(problem.path, /^chips\[0\]\.when/, `${label}: the problem names the condition`);
          assert.ok(problem.message.length > 0, label);
        }
        continue;
      }
      const plan = enginePlanOf(read.plan);
      assert.deepEqual(checkPlanForEngine(plan), [], `${label}: the engine refuses what the file check accepted`);
      const matching = matchingDeal(shape);
      assert.ok(matching, `${label}: accepted, but no deal can match it`);
      const owner = { ...rep, external_id: matching.owner_external_id ?? rep.external_id };
      const evaluation = evaluateLines({ plan, rep: owner, deals: [matching], periods: [], today: TODAY });
      assert.deepEqual(evaluation.problems, [], label);
      const [line] = evaluation.targets;
      assert.ok(line, `${label}: no line`);
      assert.equal(line.earned_cents + line.projected_cents, 10_000, `${label}: the matching deal earns nothing`);
    }
  });

  test('the file check accepts at least one value of every field and operator that can apply', () => {
    const accepted = new Set(
      SHAPES.filter((shape) => validatePlanDocument(documentWith(shape)).ok).map(
        (shape) => `${shape.field} ${shape.op}`,
      ),
    );
    const inapplicable = [
      'stage gt',
      'stage gte',
      'stage lt',
      'stage lte',
      'owner_external_id gt',
      'owner_external_id gte',
      'owner_external_id lt',
      'owner_external_id lte',
      'status gt',
      'status gte',
      'status lt',
      'status lte',
      'amount_cents contains',
      'close_date contains',
      'status contains',
    ];
    assert.deepEqual(BY_FIELD_AND_OP.filter((fieldAndOp) => !accepted.has(fieldAndOp)).sort(), inapplicable.sort());
    assert.equal(CONDITION_FIELDS.length * 10, BY_FIELD_AND_OP.length);
  });

  test.each([
    [{ field: 'custom.tier', op: 'gt', value: 'gold' }, 'chips[0].when.value'],
    [{ field: 'close_date', op: 'eq', value: '0000-06-15' }, 'chips[0].when.value'],
    [{ field: 'status', op: 'eq', value: 'lost' }, 'chips[0].when.value'],
    [{ field: 'status', op: 'nin', value: ['open', 'won'] }, 'chips[0].when.value'],
    [{ field: 'amount_cents', op: 'lt', value: -5 }, 'chips[0].when.value'],
    [{ field: 'amount_cents', op: 'lt', value: 0 }, 'chips[0].when.value'],
  ])('a condition that could never pay is refused with its problem named: %j', (condition, path) => {
    const read = validatePlanDocument({
      key: 'never',
      name: 'Never',
      assignees: 'all',
      chips: [{ key: 'spiff', name: 'SPIFF', kind: 'flat', amount_cents: 10_000, when: condition }],
    });
    assert.equal(read.ok, false);
    assert.deepEqual(read.ok ? [] : read.problems.map((problem) => problem.path), [path]);
  });
});
