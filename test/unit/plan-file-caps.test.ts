import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import { chipDefinitionDigest, planContentDigest } from '../../src/domain/plans/digests.ts';
import { readPlanFile, validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import type { PlanDefinition } from '../../src/domain/plans/types.ts';
import { planDocument } from '../factories/plans.ts';

// Caps in plan files: the plan's cap_cents, and a chip's cap_cents and deal_cap_cents.

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

describe('caps in a plan file', () => {
  test('the plan cap and chip caps are kept; a file without caps normalises exactly as before', () => {
    const base = planDocument({ key: 'capped' });
    const capped = valid({
      ...base,
      cap_cents: 1_500_000,
      chips: base.chips.map((chip) =>
        chip.kind === 'attainment_bonus' ? chip : { ...chip, cap_cents: 800_000, deal_cap_cents: 500_000 },
      ),
    });
    assert.equal(capped.cap_cents, 1_500_000);
    assert.deepEqual(
      capped.chips.map((chip) => [chip.key, 'cap_cents' in chip.params ? chip.params.cap_cents : undefined]),
      [
        ['base', 800_000],
        ['accelerator', 800_000],
        ['new-logo', 800_000],
        ['quota-bonus', undefined],
      ],
    );
    const uncapped = valid(base);
    assert.equal('cap_cents' in uncapped, false, 'no cap member when the file sets none');
    assert.ok(uncapped.chips.every((chip) => !('cap_cents' in chip.params) && !('deal_cap_cents' in chip.params)));
    assert.equal(planContentDigest(valid({ ...base, cap_cents: null })), planContentDigest(uncapped));
  });

  test("a chip's version moves with its own cap, and every chip's with the plan cap", () => {
    const base = planDocument({ key: 'capped' });
    const digests = (plan: PlanDefinition) => plan.chips.map((chip) => chipDefinitionDigest(plan, chip));
    const before = digests(valid(base));
    const chipCapped = digests(
      valid({ ...base, chips: base.chips.map((chip, index) => (index === 0 ? { ...chip, cap_cents: 1 } : chip)) }),
    );
    assert.notEqual(chipCapped[0], before[0]);
    assert.deepEqual(chipCapped.slice(1), before.slice(1));
    const planCapped = digests(valid({ ...base, cap_cents: 1 }));
    planCapped.forEach((digest, index) => {
      assert.notEqual(digest, before[index]);
    });
  });

  test('a negative cap, a cap on an attainment bonus, or a cap that is not whole cents is refused by path', () => {
    const base = planDocument({ key: 'capped' });
    assert.deepEqual(
      problems({
        ...base,
        cap_cents: -1,
        chips: base.chips.map((chip, index) =>
          index === 0 ? { ...chip, deal_cap_cents: 1.5 } : index === 3 ? { ...chip, cap_cents: 100 } : chip,
        ),
      }),
      ['cap_cents', 'chips[0].deal_cap_cents', 'chips[3].cap_cents'],
    );
  });
});

test('examples/plans/capped-ae.yaml is a valid plan file with a plan cap and chip caps', () => {
  const text = readFileSync(new URL('../../examples/plans/capped-ae.yaml', import.meta.url), 'utf8');
  const result = readPlanFile(text);
  assert.ok(result.ok, JSON.stringify(result.ok ? null : result.problems));
  assert.equal(result.plan.cap_cents, 1_500_000);
  assert.deepEqual(result.plan.chips[0]?.params, {
    rate_bps: 1000,
    base: 'amount_cents',
    cap_cents: 500_000,
    deal_cap_cents: 250_000,
  });
});
