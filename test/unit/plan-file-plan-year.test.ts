import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { annualQuotaOf, countingMoves, planYearOf, quotaMovesFrom } from '../../src/domain/earnings/planYear.ts';
import { chipDefinitionDigest } from '../../src/domain/plans/digests.ts';
import { validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import type { PlanDefinition } from '../../src/domain/plans/types.ts';
import { planDocument } from '../factories/plans.ts';

// A plan year paid monthly in plan files (docs/plan-features.md, "A plan year paid monthly"): what the file may say,
// what it may not, and the year's span and annual quota the engine reads.

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

const tiers = {
  key: 'year-tiers',
  name: 'Year to date tiers',
  kind: 'tiered_commission',
  mode: 'marginal',
  tiers: [
    { up_to_pct: 100, rate_bps: 500 },
    { up_to_pct: null, rate_bps: 1000 },
  ],
};
const base = { ...planDocument({ key: 'year-ae', chips: [tiers] }), quota_cents: 120_000_000 };

describe('a plan year in a plan file', () => {
  test('is kept as given; a plan without one (or with null) normalises exactly as before', () => {
    assert.deepEqual(valid({ ...base, plan_year: { starts_month: 4 } }).plan_year, { starts_month: 4 });
    assert.equal('plan_year' in valid(base), false);
    assert.deepEqual(valid({ ...base, plan_year: null }), valid(base));
  });

  test('raises the version of the tiered chips, which count the year, and of no other chip', () => {
    const commission = { key: 'base', name: 'Base', kind: 'commission', rate_bps: 1000 };
    const plain = valid({ ...base, chips: [tiers, commission] });
    const year = valid({ ...base, chips: [tiers, commission], plan_year: { starts_month: 1 } });
    const digest = (plan: PlanDefinition, index: number) => chipDefinitionDigest(plan, plan.chips[index] as never);
    assert.notEqual(digest(year, 0), digest(plain, 0));
    assert.equal(digest(year, 1), digest(plain, 1));
  });

  test('a month outside 1 to 12, or an unknown member, is refused by path', () => {
    assert.deepEqual(problems({ ...base, plan_year: { starts_month: 13 } }), ['plan_year.starts_month']);
    assert.deepEqual(problems({ ...base, plan_year: { starts_month: 0 } }), ['plan_year.starts_month']);
    assert.ok(problems({ ...base, plan_year: {} }).some((path) => path.startsWith('plan_year')));
    assert.ok(
      problems({ ...base, plan_year: { starts_month: 1, negative: 'carry' } }).some((path) =>
        path.startsWith('plan_year'),
      ),
    );
  });

  test('what a plan year does not define is refused, each where the file says it', () => {
    const year = { ...base, plan_year: { starts_month: 1 } };
    assert.deepEqual(problems({ ...year, period: 'quarterly' }), ['plan_year']);
    assert.deepEqual(problems({ ...year, ramp: [50, 100] }), ['ramp']);
    assert.deepEqual(problems({ ...year, draw: { amount_cents: 100, recoverable: true } }), ['draw']);
    const bonus = { key: 'bonus', name: 'Bonus', kind: 'attainment_bonus', threshold_pct: 100, amount_cents: 100 };
    assert.deepEqual(problems({ ...year, chips: [tiers, bonus] }), ['chips[1].kind']);
    assert.deepEqual(problems({ ...year, chips: [{ ...tiers, mode: 'retroactive' }] }), ['chips[0].mode']);
    assert.deepEqual(problems({ ...year, chips: [{ ...tiers, basis: 'per_deal' }] }), ['chips[0].basis']);
    const counted = {
      ...tiers,
      tiers: [
        { up_to_deals: 10, rate_bps: 500 },
        { up_to_deals: null, rate_bps: 900 },
      ],
    };
    assert.deepEqual(problems({ ...year, chips: [counted] }), ['chips[0].tiers']);
  });
});

describe("a plan year's span and annual quota", () => {
  test('a year starting in April runs April to March; a month belongs to the year it falls in', () => {
    const april = planYearOf({ starts_month: 4 }, '2026-03');
    assert.deepEqual([april.starts_on, april.ends_on, april.months.length], ['2025-04-01', '2026-03-31', 12]);
    assert.equal(planYearOf({ starts_month: 4 }, '2026-04').starts_on, '2026-04-01');
    assert.equal(planYearOf({ starts_month: 1 }, '2028-02').ends_on, '2028-12-31');
  });

  test('the quotas of the year and the days assigned blend into one annual quota, rounded once', () => {
    const span = planYearOf({ starts_month: 1 }, '2026-05');
    const raised = { start_date: null, entries: [{ from: '2026-07-01', quota_cents: 180_000_000 }] };
    const open = [{ from: null, until: null }];
    assert.equal(annualQuotaOf({ quota_cents: 120_000_000 }, raised, open, span).quota_cents, 150_246_575);
    // Joining on 1 July: 1,800,000.00 × 184 / 365 = 907,397.26.
    const joined = annualQuotaOf({ quota_cents: 120_000_000 }, raised, [{ from: '2026-07-01', until: null }], span);
    assert.equal(joined.quota_cents, 90_739_726);
    // An entry in force from before the year, and one back to the plan's quota (null) during it.
    const table = {
      start_date: null,
      entries: [
        { from: '2025-10-01', quota_cents: 73_000_000 },
        { from: '2026-04-01', quota_cents: null },
      ],
    };
    // (730,000.00 × 90 + 1,200,000.00 × 275) / 365 = 1,084,109.589… → 1,084,109.59
    assert.equal(annualQuotaOf({ quota_cents: 120_000_000 }, table, open, span).quota_cents, 108_410_959);
    assert.equal(annualQuotaOf({ quota_cents: null }, undefined, open, span).quota_cents, null);
  });

  test('a quota change moves the lines from the first day of its plan year', () => {
    const year = { period: 'monthly' as const, plan_year: { starts_month: 4 } };
    assert.equal(quotaMovesFrom(year, '2026-07-01'), '2026-04-01');
    assert.equal(quotaMovesFrom(year, '2026-02-01'), '2025-04-01');
    assert.equal(quotaMovesFrom({ period: 'monthly', plan_year: null }, '2026-07-01'), '2026-07-01');
  });

  test("an adjustment counted in a month moves that month's and the year's later months' lines", () => {
    const year = { period: 'monthly' as const, plan_year: { starts_month: 4 } };
    assert.deepEqual(
      ['2026-02', '2026-03', '2026-04', '2026-09'].map((periodId) => countingMoves(year, '2026-03', periodId)),
      [false, true, false, false],
    );
    assert.equal(countingMoves(year, '2026-04', '2027-03'), true);
    assert.equal(countingMoves({ period: 'monthly', plan_year: null }, '2026-04', '2026-05'), false);
  });
});
