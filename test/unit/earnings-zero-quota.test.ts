import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { proratedQuota } from '../../src/domain/earnings/proration.ts';
import { rampedQuota } from '../../src/domain/earnings/quotas.ts';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { EnginePlanVersion, LineTarget } from '../../src/domain/earnings/types.ts';
import { planDocument } from '../../src/domain/plans/document/model.ts';
import { readPlanFile } from '../../src/domain/plans/planFile.ts';
import { deal, plan, rep } from '../factories/earnings.ts';
import { assertTargetTracesValid } from '../helpers/earningTraceSchema.ts';

// A quota of 0 (docs/plan-features.md, Tiers; docs/quotas.md): read as 0% attainment, never a reason to refuse the
// plan or drop a line. The worked example's plan: 10% base in EMEA and NA, 0% up to 100% of quota then 5%, a
// 2,000.00 bonus at 100% of quota.

const won = deal(1, { amount_cents: 6_000_000, close_date: '2026-04-10', custom: { region: 'EMEA' } });

function linesOf(subject: EnginePlanVersion, options: { quotaTable?: number } = {}): LineTarget[] {
  const evaluation = evaluateLines({
    plan: subject,
    rep,
    deals: [won],
    periods: ['2026-04'],
    today: '2026-04-25',
    ...(options.quotaTable === undefined
      ? {}
      : { quotas: { start_date: null, entries: [{ from: '2026-01-01', quota_cents: options.quotaTable }] } }),
  });
  assert.deepEqual(evaluation.problems, []);
  assertTargetTracesValid(evaluation.targets);
  return evaluation.targets;
}

const byChip = (subject: EnginePlanVersion, lines: LineTarget[]) =>
  Object.fromEntries(
    lines.map((line) => [subject.chips.find((chip) => chip.id === line.line.chip_id)?.key, line] as const),
  );

describe('a quota of 0', () => {
  test('is 0% attainment: the tier chip pays its first band on everything, the bonus is not reached', () => {
    const zero = plan({ quota_cents: 0 });
    const lines = byChip(zero, linesOf(zero));
    assert.equal(lines.base?.earned_cents, 600_000);
    // The first band (0% up to 100% of quota) is never left: nothing above quota, so nothing at 5%.
    const accelerator = lines.accelerator as LineTarget;
    assert.equal(accelerator.earned_cents, 0);
    assert.deepEqual(
      accelerator.trace.steps.flatMap((step) => (step.type === 'tier' ? [[step.band, step.slice_cents]] : [])),
      [[1, 6_000_000]],
    );
    assert.ok(
      accelerator.trace.explanation.includes(
        'The quota is 0.00, read as 0% attainment: no bound in percent of quota is ever passed, so band 1 is the only band and takes the whole amount.',
      ),
    );
    const bonus = lines['quota-bonus'] as LineTarget;
    assert.equal(bonus.earned_cents, 0);
    assert.match(
      bonus.trace.explanation[0] ?? '',
      /60,000\.00, which is 0\.00% of quota 0\.00 \(a quota of 0 is read as 0% attainment\); the threshold of 100% is not reached/,
    );
  });

  test("a rep's own quota of 0 gives the same lines as a plan quota of 0, none dropped", () => {
    const own = linesOf(plan(), { quotaTable: 0 });
    const planZero = linesOf(plan({ quota_cents: 0 }));
    assert.deepEqual(
      own.map((line) => [line.line.chip_id, line.earned_cents]),
      planZero.map((line) => [line.line.chip_id, line.earned_cents]),
    );
    assert.equal(own.length, 4);
  });

  test('a threshold of 0% is reached at a quota of 0; a retroactive chip pays its first rate', () => {
    const subject = plan({
      quota_cents: 0,
      chips: plan().chips.map((chip) => {
        if (chip.kind === 'attainment_bonus') return { ...chip, params: { threshold_pct: 0, amount_cents: 10_000 } };
        if (chip.kind === 'tiered_commission') {
          return {
            ...chip,
            params: {
              mode: 'retroactive' as const,
              tiers: [
                { up_to_pct: 50, rate_bps: 200 },
                { up_to_pct: null, rate_bps: 900 },
              ],
            },
          };
        }
        return chip;
      }),
    });
    const lines = byChip(subject, linesOf(subject));
    assert.equal(lines['quota-bonus']?.earned_cents, 10_000);
    assert.equal(lines.accelerator?.earned_cents, 120_000);
  });

  test('stays 0 when ramped or prorated, where a positive quota is at least one cent', () => {
    assert.deepEqual([rampedQuota(0, [25]), rampedQuota(1, [25])], [0, 1]);
    assert.deepEqual([proratedQuota(0n, 10, 30), proratedQuota(1n, 10, 30)], [0n, 1n]);
    const dated = plan({ quota_cents: 0, assignees: [{ owner_external_id: rep.external_id, from: '2026-04-05' }] });
    const lines = byChip(dated, linesOf(dated));
    assert.equal(lines.accelerator?.earned_cents, 0);
    assert.equal(lines['quota-bonus']?.earned_cents, 0);
  });

  test('a positive quota still climbs the bands', () => {
    const small = plan({ quota_cents: 4_000_000 });
    const lines = byChip(small, linesOf(small));
    // 20,000.00 above 40,000.00 at 5%.
    assert.equal(lines.accelerator?.earned_cents, 100_000);
    assert.equal(lines['quota-bonus']?.earned_cents, 200_000);
  });
});

describe('the plan document of a plan with a quota of 0', () => {
  test('says how the quota is read on the chips that read it', () => {
    const read = readPlanFile(`
key: zero
name: Zero quota
period: monthly
quota_cents: 0
assignees: all
chips:
  - { key: base, name: Base, kind: commission, rate_bps: 1000 }
  - key: accelerator
    name: Accelerator
    kind: tiered_commission
    mode: marginal
    tiers:
      - { up_to_pct: 100, rate_bps: 0 }
      - { up_to_pct: null, rate_bps: 500 }
  - { key: bonus, name: Bonus, kind: attainment_bonus, threshold_pct: 100, amount_cents: 200000 }
`);
    assert.ok(read.ok);
    const document = planDocument({
      plan: read.plan,
      plan_id: 'plan_01kjsj7s80fmtryrzh7j1q721q',
      version_id: 'pv_01kn40wx00ekj8fq0eg5srs2ry',
      version_number: 1,
      applied_at: new Date('2026-05-04T10:00:00Z'),
      currency: 'USD',
      won_stage: 'closed_won',
    });
    const sentence =
      'Your quota is 0, read as 0% attainment: no band in percent of quota is passed, and only a threshold of 0% is reached.';
    assert.deepEqual(
      document.chips.map((chip) => chip.limits.includes(sentence)),
      [false, true, true],
    );
    const period = document.examples.find((example) => example.key === 'period');
    assert.ok(period);
    assert.equal(
      period.lines.filter((line) => line.chip_key !== 'base').reduce((sum, line) => sum + line.amount_cents, 0),
      0,
    );
  });
});
