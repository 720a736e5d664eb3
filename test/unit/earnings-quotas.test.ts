import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { chipReadsQuota } from '../../src/domain/earnings/proration.ts';
import { type QuotaEntry, quotaForPeriod, type RepQuotas, rampedQuota } from '../../src/domain/earnings/quotas.ts';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { DealSnapshot, LineTarget } from '../../src/domain/earnings/types.ts';
import { chipDefinitionDigest } from '../../src/domain/plans/digests.ts';
import { validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import { deal, plan, rep } from '../factories/earnings.ts';
import { planDocument } from '../factories/plans.ts';

// A rep's own quota (docs/quotas.md): the quota table's entry in force, else the plan's, ramped from the rep's start
// date; what the engine does with it; and the plan file's ramp.

const TODAY = '2026-04-25';
const PERIODS = ['2026-02', '2026-03', '2026-04', '2026-05'];
const ramped = plan({ ramp: [25, 50, 75, 100] });

describe('quotaForPeriod', () => {
  test("the plan's quota without entries; the entry in force from its day on; null is the plan's again", () => {
    assert.deepEqual(quotaForPeriod(plan(), undefined, '2026-04'), {
      quota_cents: 10_000_000,
      full_cents: 10_000_000,
      source: 'plan',
      set_from: null,
      ramp: null,
      explanation: 'quota 100,000.00: plan quota.',
    });
    const entries: QuotaEntry[] = [
      { from: '2026-05-01', quota_cents: null },
      { from: '2026-03-01', quota_cents: 8_000_000 },
    ];
    const quotas: RepQuotas = { start_date: null, entries };
    assert.equal(quotaForPeriod(plan(), quotas, '2026-02').quota_cents, 10_000_000);
    const march = quotaForPeriod(plan(), quotas, '2026-04');
    assert.deepEqual([march.quota_cents, march.source, march.set_from], [8_000_000, 'rep', '2026-03-01']);
    assert.equal(march.explanation, 'quota 80,000.00: quota set for this rep from 2026-03-01.');
    assert.equal(quotaForPeriod(plan(), quotas, '2026-06').explanation, 'quota 100,000.00: plan quota.');
  });

  test('a ramp counts months from the start month; before the start and past the ramp, the full quota', () => {
    const quotas: RepQuotas = { start_date: '2026-02-17', entries: [] };
    const month = (periodId: string) => quotaForPeriod(ramped, quotas, periodId);
    assert.equal(month('2026-01').quota_cents, 10_000_000);
    assert.equal(month('2026-02').quota_cents, 2_500_000);
    assert.equal(
      month('2026-04').explanation,
      'quota 75,000.00: ramp month 3 of 4, 75% of 100,000.00, the plan quota; the rep started on 2026-02-17.',
    );
    // Month 4 of the ramp is at 100%: no ramp to speak of.
    assert.deepEqual([month('2026-05').quota_cents, month('2026-05').ramp], [10_000_000, null]);
    assert.equal(month('2026-07').explanation, 'quota 100,000.00: plan quota.');
  });

  test("a ramp is a percentage of the rep's own quota when one is set", () => {
    const quotas: RepQuotas = { start_date: '2026-03-01', entries: [{ from: '2026-01-01', quota_cents: 12_000_000 }] };
    const figure = quotaForPeriod(ramped, quotas, '2026-04');
    assert.equal(figure.quota_cents, 6_000_000);
    assert.equal(
      figure.explanation,
      'quota 60,000.00: ramp month 2 of 4, 50% of 120,000.00, the quota set for this rep from 2026-01-01; the rep started on 2026-03-01.',
    );
  });

  test("a quarter's quota is the full quota times the average of its months' percents, rounded half away from zero", () => {
    const quarterly = plan({ period: 'quarterly', ramp: [25, 50] });
    const figure = quotaForPeriod(quarterly, { start_date: '2026-02-03', entries: [] }, '2026-Q1');
    // January is before the start (100%), February month 1 (25%), March month 2 (50%): 175 / 3 = 58.33…%.
    assert.equal(figure.quota_cents, 5_833_333);
    assert.equal(
      figure.explanation,
      'quota 58,333.33: ramp of 2 months in 2026-Q1 (its months at 100%, 25%, 50%), on average 58.33% of 100,000.00, the plan quota; the rep started on 2026-02-03.',
    );
    assert.equal(rampedQuota(1, [1]), 1);
    assert.equal(rampedQuota(150, [1]), 2);
  });
});

/** Every line of the rep, by chip key and period (deal lines by deal too). */
function linesOf(quotas: RepQuotas | undefined, deals: readonly DealSnapshot[], subject = ramped) {
  const { targets, problems } = evaluateLines({
    plan: subject,
    rep,
    deals,
    periods: PERIODS,
    today: TODAY,
    ...(quotas ? { quotas } : {}),
  });
  assert.deepEqual(problems, []);
  return targets;
}

const keyOf = (subject: typeof ramped, target: LineTarget) =>
  `${subject.chips.find((chip) => chip.id === target.line.chip_id)?.key}/${target.line.deal_id ?? target.period_id}`;

describe('the engine with a ramped rep', () => {
  const aprilDeal = deal(1, { amount_cents: 6_000_000, close_date: '2026-04-10', custom: { region: 'EMEA' } });

  test('tier bands and the attainment bonus count against the ramped quota, and the trace says where it came from', () => {
    // Unramped, 60,000.00 is 60% of 100,000.00: no accelerator, no bonus.
    const plain = linesOf(undefined, [aprilDeal]);
    const earned = (targets: LineTarget[]) =>
      Object.fromEntries(targets.map((target) => [keyOf(ramped, target), target.earned_cents]));
    assert.deepEqual(earned(plain), {
      [`base/${aprilDeal.id}`]: 600_000,
      [`accelerator/${aprilDeal.id}`]: 0,
      [`new-logo/${aprilDeal.id}`]: 0,
      'quota-bonus/2026-02': 0,
      'quota-bonus/2026-03': 0,
      'quota-bonus/2026-04': 0,
      'quota-bonus/2026-05': 0,
    });
    // Started 2026-03-20: April is ramp month 2, 50,000.00. 10,000.00 above it at 5%, and the bonus.
    const ramp = linesOf({ start_date: '2026-03-20', entries: [] }, [aprilDeal]);
    assert.deepEqual(earned(ramp), {
      ...earned(plain),
      [`accelerator/${aprilDeal.id}`]: 50_000,
      'quota-bonus/2026-04': 200_000,
    });
    const bonus = ramp.find((target) => keyOf(ramped, target) === 'quota-bonus/2026-04');
    const sentence =
      'quota 50,000.00: ramp month 2 of 4, 50% of 100,000.00, the plan quota; the rep started on 2026-03-20.';
    assert.equal(bonus?.trace.explanation[0], sentence);
    const threshold = bonus?.trace.steps.find((step) => step.type === 'threshold');
    assert.equal(threshold && 'quota_cents' in threshold ? threshold.quota_cents : null, 5_000_000);
    const accelerator = ramp.find((target) => keyOf(ramped, target) === `accelerator/${aprilDeal.id}`);
    assert.equal(accelerator?.trace.explanation[0], sentence);
    // Lines that do not read the quota say nothing of it.
    const base = ramp.find((target) => keyOf(ramped, target) === `base/${aprilDeal.id}`);
    assert.deepEqual(base?.trace, plain.find((target) => keyOf(ramped, target) === `base/${aprilDeal.id}`)?.trace);
  });

  test('a ramped quota is prorated when a dated assignment covers part of the period', () => {
    const dated = plan({
      ramp: [50],
      assignees: [{ owner_external_id: rep.external_id, from: '2026-04-16' }],
    });
    const late = deal(2, { amount_cents: 3_000_000, close_date: '2026-04-20' });
    const targets = linesOf({ start_date: '2026-04-16', entries: [] }, [late], dated);
    const bonus = targets.find((target) => keyOf(dated, target) === 'quota-bonus/2026-04');
    // 50% of 100,000.00 = 50,000.00, × 15 / 30 days = 25,000.00: 30,000.00 reaches it.
    assert.equal(bonus?.earned_cents, 200_000);
    assert.deepEqual(bonus?.trace.explanation.slice(0, 2), [
      'quota 50,000.00: ramp month 1 of 1, 50% of 100,000.00, the plan quota; the rep started on 2026-04-16.',
      'rep-017 is assigned to plan core-ae for 15 of the 30 days of 2026-04, so the quota is prorated: 50,000.00 × 15 / 30, rounded half away from zero, is 25,000.00.',
    ]);
  });
});

describe('a quota change', () => {
  const deals = fc.array(
    fc
      .record({
        n: fc.integer({ min: 1, max: 8 }),
        amount: fc.integer({ min: 0, max: 9_000_000 }),
        close_date: fc.constantFrom('2026-02-14', '2026-03-03', '2026-03-28', '2026-04-10', '2026-05-30'),
        status: fc.constantFrom('won' as const, 'won' as const, 'open' as const),
        region: fc.constantFrom('EMEA', 'APAC'),
      })
      .map(({ n, amount, close_date, status, region }) =>
        deal(n, {
          amount_cents: amount,
          close_date,
          status,
          stage: status === 'won' ? 'closed_won' : 'proposal',
          won_at: status === 'won' ? `${close_date}T09:00:00.000Z` : null,
          custom: { region },
        }),
      ),
    { maxLength: 10 },
  );
  const quotas = fc.record({
    start_date: fc.constantFrom(null, '2026-01-31', '2026-03-15', '2026-04-01'),
    entries: fc.subarray([
      { from: '2026-03-01', quota_cents: 3_000_000 },
      { from: '2026-04-01', quota_cents: null },
      { from: '2026-05-01', quota_cents: 20_000_000 },
    ]),
  });

  test('moves exactly the quota-reading lines of the periods whose quota it changes, and nothing else', () => {
    fc.assert(
      fc.property(deals, quotas, quotas, (history, before, after) => {
        const unique = [...new Map(history.map((each) => [each.id, each])).values()];
        const was = new Map(linesOf(before, unique).map((target) => [target.line.line_key, target]));
        const is = linesOf(after, unique);
        assert.equal(is.length, was.size);
        const readsQuota = new Set(ramped.chips.filter(chipReadsQuota).map((chip) => chip.id));
        for (const target of is) {
          const previous = was.get(target.line.line_key);
          const moved =
            quotaForPeriod(ramped, before, target.period_id).quota_cents !==
            quotaForPeriod(ramped, after, target.period_id).quota_cents;
          if (!readsQuota.has(target.line.chip_id)) {
            assert.deepEqual(target, previous, 'a line that does not read the quota never moves');
          } else if (!moved) {
            assert.deepEqual(
              [target.earned_cents, target.projected_cents],
              [previous?.earned_cents, previous?.projected_cents],
              'a quota-reading line of a period whose quota did not change keeps its amounts',
            );
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('the plan file ramp', () => {
  test('a ramp of whole percents is kept; out of range or without quota_cents it is refused by path', () => {
    const good = validatePlanDocument(planDocument({ ramp: [25, 50, 75, 100] }));
    assert.ok(good.ok);
    assert.deepEqual(good.plan.ramp, [25, 50, 75, 100]);
    const bad = validatePlanDocument(planDocument({ ramp: [0, 150] }));
    assert.equal(bad.ok, false);
    assert.deepEqual(bad.ok ? [] : [...new Set(bad.problems.map((problem) => problem.path))], ['ramp[0]', 'ramp[1]']);
    const noQuota = validatePlanDocument(
      planDocument({
        quota_cents: null,
        ramp: [50],
        chips: [{ key: 'b', name: 'B', kind: 'commission', rate_bps: 1 }],
      }),
    );
    assert.equal(noQuota.ok, false);
    assert.deepEqual(noQuota.ok ? [] : noQuota.problems.map((problem) => problem.path), ['ramp']);
  });

  test('a ramp changes the rule version of the chips that read the quota only; plans without one keep their digests', () => {
    const file = validatePlanDocument(planDocument());
    const withRamp = validatePlanDocument(planDocument({ ramp: [50] }));
    assert.ok(file.ok && withRamp.ok);
    const digests = (definition: typeof file.plan) =>
      definition.chips.map((chip) => chipDefinitionDigest(definition, chip));
    const [base, accelerator, spiff, bonus] = digests(file.plan);
    const [base2, accelerator2, spiff2, bonus2] = digests(withRamp.plan);
    assert.deepEqual([base2, spiff2], [base, spiff]);
    assert.notEqual(accelerator2, accelerator);
    assert.notEqual(bonus2, bonus);
  });
});
