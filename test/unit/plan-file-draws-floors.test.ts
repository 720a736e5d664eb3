import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { chipDefinitionDigest } from '../../src/domain/plans/digests.ts';
import { validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import type { PlanDefinition } from '../../src/domain/plans/types.ts';
import { planDocument } from '../factories/plans.ts';

// Draws and floors in plan files: the plan's draw, and a chip's floor_cents.

function valid(document: object): PlanDefinition {
  const result = validatePlanDocument(document);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.plan;
}

function problems(document: object) {
  const result = validatePlanDocument(document);
  assert.equal(result.ok, false);
  return result.ok ? [] : result.problems.map((problem) => problem.path).sort();
}

const commission = { key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 };

describe('draws and floors in a plan file', () => {
  test('a draw is kept as given; a plan without one normalises exactly as before', () => {
    const base = planDocument({ key: 'drawn', chips: [commission] });
    assert.deepEqual(valid({ ...base, draw: { amount_cents: 300_000, recoverable: true } }).draw, {
      amount_cents: 300_000,
      recoverable: true,
    });
    assert.equal('draw' in valid(base), false);
    assert.equal('draw' in valid({ ...base, draw: null }), false);
  });

  test('paid: in_advance is kept; at_lock, the default, normalises as a draw without paid; others are refused', () => {
    const base = planDocument({ key: 'drawn', chips: [commission] });
    const draw = { amount_cents: 300_000, recoverable: true };
    assert.deepEqual(valid({ ...base, draw: { ...draw, paid: 'in_advance' } }).draw, { ...draw, paid: 'in_advance' });
    assert.deepEqual(valid({ ...base, draw: { ...draw, paid: 'at_lock' } }), valid({ ...base, draw }));
    assert.deepEqual(problems({ ...base, draw: { ...draw, paid: 'weekly' } }), ['draw.paid']);
  });

  test('a draw without recoverable, with a negative amount or an unknown member is refused, by path', () => {
    const base = planDocument({ key: 'drawn', chips: [commission] });
    assert.ok(problems({ ...base, draw: { amount_cents: 300_000 } }).some((path) => path.startsWith('draw')));
    assert.ok(problems({ ...base, draw: { amount_cents: -1, recoverable: false } }).includes('draw.amount_cents'));
    assert.ok(
      problems({ ...base, draw: { amount_cents: 1, recoverable: false, weekly: true } }).some((path) =>
        path.startsWith('draw'),
      ),
    );
  });

  test("a floor is kept, raises the chip's version, and must not exceed the chip's cap", () => {
    const base = planDocument({ key: 'floored', chips: [commission] });
    const floored = valid({ ...base, chips: [{ ...commission, floor_cents: 100_000 }] });
    const plain = valid(base);
    assert.deepEqual(floored.chips[0]?.params, { rate_bps: 1000, base: 'amount_cents', floor_cents: 100_000 });
    assert.notEqual(
      chipDefinitionDigest(floored, floored.chips[0] as never),
      chipDefinitionDigest(plain, plain.chips[0] as never),
    );
    assert.deepEqual(problems({ ...base, chips: [{ ...commission, floor_cents: 500_000, cap_cents: 400_000 }] }), [
      'chips[0].floor_cents',
    ]);
  });
});
