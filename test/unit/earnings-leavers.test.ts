import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { type LeaverRule, lastPaidDay } from '../../src/domain/earnings/leavers.ts';
import { buildStatement } from '../../src/domain/earnings/statement.ts';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import { validatePlanDocument } from '../../src/domain/plans/planFile.ts';
import { chip, deal, plan, rep } from '../factories/earnings.ts';
import { planDocument } from '../factories/plans.ts';

// Leavers, computed by hand: rep-017 leaves on 2026-04-15 (a 30-day April). The plan pays 10% of each deal, and
// 2,000.00 once the rep reaches 50% of a 100,000.00 monthly quota. Deals: 10,000.00 on 2026-03-20, 60,000.00 on
// 2026-04-10, 50,000.00 on 2026-04-20.
// - pay_through_leaving_date: March 1,000.00; April 10th 6,000.00; April 20th nothing (after the leaving date);
//   April's quota prorated to 15/30 = 50,000.00, half of it 25,000.00 ≤ 60,000.00: the bonus 2,000.00.
// - stop: April was not finished: March 1,000.00, nothing in April.
// - claw_back_unpaid, March paid when the rep was deactivated: as stop here; nothing paid: nothing at all.

function leaverPlan(rule?: LeaverRule) {
  return plan({
    plan_key: 'leaver-plan',
    ...(rule ? { leaver_rule: rule } : {}),
    chips: [
      chip(61, {
        key: 'base',
        name: 'Base',
        kind: 'commission',
        when: null,
        params: { rate_bps: 1000, base: 'amount_cents' },
      }),
      chip(62, {
        key: 'half',
        name: 'Half quota bonus',
        kind: 'attainment_bonus',
        when: null,
        params: { threshold_pct: 50, amount_cents: 200_000 },
      }),
    ],
  });
}

const deals = [
  deal(1, {
    external_id: 'opp-march',
    amount_cents: 1_000_000,
    close_date: '2026-03-20',
    won_at: '2026-03-20T12:00:00.000Z',
  }),
  deal(2, { external_id: 'opp-early', amount_cents: 6_000_000, close_date: '2026-04-10' }),
  deal(3, { external_id: 'opp-late', amount_cents: 5_000_000, close_date: '2026-04-20' }),
];

function paid(rule: LeaverRule | undefined, paidThrough: string | null = null) {
  const evaluation = evaluateLines({
    plan: leaverPlan(rule),
    rep,
    deals,
    periods: ['2026-03', '2026-04'],
    today: '2026-04-25',
    quotas: { start_date: null, entries: [], leaving: { date: '2026-04-15', paid_through: paidThrough } },
  });
  assert.deepEqual(evaluation.problems, []);
  return evaluation.targets;
}

function amounts(targets: ReturnType<typeof paid>) {
  return targets
    .map(
      (target) =>
        `${target.trace.chip.key} ${target.trace.deal?.external_id ?? target.period_id} ${target.earned_cents}`,
    )
    .sort();
}

describe('pay after the leaving date, by hand', () => {
  test('pay_through_leaving_date (the default) pays deals up to the day, with the leaving month prorated', () => {
    const targets = paid(undefined);
    assert.deepEqual(amounts(targets), [
      'base opp-early 600000',
      'base opp-late 0',
      'base opp-march 100000',
      'half 2026-03 0',
      'half 2026-04 200000',
    ]);
    const late = targets.find((target) => target.trace.deal?.external_id === 'opp-late');
    assert.ok(late);
    assert.match(
      late.trace.explanation[0] ?? '',
      /^rep-017 left on 2026-04-15; plan leaver-plan's leaver rule \(pay_through_leaving_date\) pays a leaver for deals dated up to their leaving date, so deals dated after 2026-04-15 earn nothing\.$/,
    );
    assert.ok(late.trace.explanation.some((sentence) => sentence.includes('outside that')));
  });

  test('stop forfeits the period the rep did not finish', () => {
    assert.deepEqual(amounts(paid('stop')), [
      'base opp-early 0',
      'base opp-late 0',
      'base opp-march 100000',
      'half 2026-03 0',
      'half 2026-04 0',
    ]);
    assert.equal(
      lastPaidDay({ period: 'monthly', leaver_rule: 'stop' }, { date: '2026-04-30', paid_through: null }),
      '2026-04-30',
    );
    assert.equal(
      lastPaidDay({ period: 'quarterly', leaver_rule: 'stop' }, { date: '2026-05-15', paid_through: null }),
      '2026-03-31',
    );
  });

  test('claw_back_unpaid keeps only what was paid when the rep was deactivated', () => {
    assert.deepEqual(amounts(paid('claw_back_unpaid', '2026-03-31')), amounts(paid('stop')));
    const nothing = paid('claw_back_unpaid', null);
    assert.ok(nothing.every((target) => target.earned_cents === 0));
    assert.ok(nothing.every((target) => target.trace.explanation[0]?.includes('nothing was paid when they left')));
  });

  test('a rep who has not left is paid as before, and the plan file takes the rule', () => {
    const stays = evaluateLines({ plan: leaverPlan('stop'), rep, deals, periods: ['2026-04'], today: '2026-04-25' });
    assert.ok(
      stays.targets.every((target) => !target.trace.explanation.some((sentence) => sentence.includes('left on'))),
    );
    assert.equal(stays.targets.find((target) => target.trace.deal?.external_id === 'opp-late')?.earned_cents, 500_000);
    const valid = validatePlanDocument(planDocument({ leaver_rule: 'claw_back_unpaid' }));
    assert.ok(valid.ok);
    assert.equal(valid.ok && valid.plan.leaver_rule, 'claw_back_unpaid');
    assert.equal(validatePlanDocument(planDocument({ leaver_rule: 'keep_paying' })).ok, false);
  });
});

describe("a leaver's final statement", () => {
  const statementOf = (leavingDate: string | null, periodId: '2026-04' | '2026-05') =>
    buildStatement({
      user: {
        id: rep.user_id,
        external_id: rep.external_id,
        display_name: null,
        created_at: '2026-01-01T00:00:00.000Z',
      },
      leavingDate,
      period: {
        id: periodId,
        kind: 'monthly',
        ...(periodId === '2026-04'
          ? { starts_on: '2026-04-01', ends_on: '2026-04-30' }
          : { starts_on: '2026-05-01', ends_on: '2026-05-31' }),
        status: 'open',
      },
      plans: [],
      rows: [],
      deals: [],
      today: '2026-05-20',
    });

  test('is the one whose period holds the leaving date, and only that one', () => {
    assert.deepEqual(statementOf('2026-04-15', '2026-04').final, { leaving_date: '2026-04-15' });
    assert.equal('final' in statementOf('2026-04-15', '2026-05'), false);
    assert.equal('final' in statementOf(null, '2026-04'), false);
  });
});
