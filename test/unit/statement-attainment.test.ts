import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { attainmentIn } from '../../src/domain/earnings/attainment.ts';
import type { ExchangeRate } from '../../src/domain/earnings/exchange.ts';
import { attainmentOf, type StatementPlanInfo } from '../../src/domain/earnings/statement.ts';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { DealSnapshot, EngineChip, EnginePlanVersion } from '../../src/domain/earnings/types.ts';
import { chip, deal, otherRep, plan, rep } from '../factories/earnings.ts';

// A statement's attainment counts what the plan's tiers and attainment bonuses count: the rep's credited part of
// each won deal, in the plan's currency, dated in the rep's assignment windows, against the prorated quota. Before,
// it added the deals' whole amounts in their own currencies against the whole quota, so a rep on a split deal or
// a EUR deal saw an attainment the accelerator did not use.

const TODAY = '2026-04-25';
const user = { id: rep.user_id, external_id: rep.external_id } as unknown as Parameters<typeof attainmentOf>[1]['user'];

function info(overrides: Partial<StatementPlanInfo> = {}): StatementPlanInfo {
  return {
    id: 'plan_1',
    key: 'core-ae',
    name: 'Core AE',
    period: 'monthly',
    quota_cents: 10_000_000,
    currency: 'USD',
    draw: null,
    assignees: 'all',
    ...overrides,
  };
}

function rate(from: string, to: string, effective_on: string, value: string): ExchangeRate {
  return { from_currency: from, to_currency: to, effective_on, rate: value };
}

describe("a statement's attainment", () => {
  test('counts the rep’s share of a split deal, not the whole amount', () => {
    const solo = deal(1, { amount_cents: 3_000_000, close_date: '2026-04-05' });
    // 50,000.01 split 60/40: the rep is credited 30,000.01 (largest remainder gives the odd cent to the first).
    const shared = deal(2, {
      amount_cents: 5_000_001,
      close_date: '2026-04-20',
      splits: [
        { owner_external_id: rep.external_id, share_bps: 6000 },
        { owner_external_id: otherRep.external_id, share_bps: 4000 },
      ],
    });
    // Owned by the rep but credited to someone else entirely: counts nothing for the rep.
    const handedOver = deal(3, {
      amount_cents: 9_000_000,
      close_date: '2026-04-21',
      splits: [{ owner_external_id: otherRep.external_id, share_bps: 10000 }],
    });
    const attainment = attainmentOf(info(), { user, deals: [solo, shared, handedOver], today: TODAY }, '2026-04');
    assert.deepEqual(attainment, {
      won_cents: 6_000_001,
      quota_cents: 10_000_000,
      percent: 60,
      quota_explanation: 'quota 100,000.00: plan quota.',
    });
  });

  test('converts a deal in another currency at the rate of its date, and leaves out one no rate converts', () => {
    const eur = deal(1, { currency: 'EUR', amount_cents: 1_000_000, close_date: '2026-04-10' });
    const jpy = deal(2, { currency: 'JPY', amount_cents: 500_000, close_date: '2026-04-11' });
    const usd = deal(3, { amount_cents: 2_500_000, close_date: '2026-04-12' });
    const money = { default_currency: 'USD', rates: [rate('EUR', 'USD', '2026-04-01', '1.1')] };
    // 10,000.00 EUR × 1.1 = 11,000.00 USD; 500,000 JPY has no rate: left out; 25,000.00 USD as is.
    const attainment = attainmentOf(info(), { user, deals: [eur, jpy, usd], today: TODAY, money }, '2026-04');
    assert.deepEqual(attainment, {
      won_cents: 3_600_000,
      quota_cents: 10_000_000,
      percent: 36,
      quota_explanation: 'quota 100,000.00: plan quota.',
    });
  });

  test('a rep assigned for part of the period counts only the deals in its window, against the prorated quota', () => {
    const before = deal(1, { amount_cents: 4_000_000, close_date: '2026-04-10' });
    const inside = deal(2, { amount_cents: 2_000_000, close_date: '2026-04-20' });
    // Assigned from the 16th: 15 of April's 30 days, so the quota is 100,000.00 × 15 / 30 = 50,000.00.
    const plan = info({ assignees: [{ owner_external_id: rep.external_id, from: '2026-04-16' }] });
    const attainment = attainmentOf(plan, { user, deals: [before, inside], today: TODAY }, '2026-04');
    assert.deepEqual(attainment, {
      won_cents: 2_000_000,
      quota_cents: 5_000_000,
      percent: 40,
      quota_explanation: 'quota 100,000.00: plan quota.',
    });
  });

  test('open and lost deals, deals of other periods and periods of another kind count nothing', () => {
    const deals = [
      deal(1, { amount_cents: 1_000_000, close_date: '2026-04-10' }),
      deal(2, { status: 'open', stage: 'proposal', won_at: null, close_date: '2026-04-15' }),
      deal(3, { status: 'lost', stage: 'closed_lost', won_at: null, close_date: '2026-04-16' }),
      deal(4, { close_date: '2026-05-02' }),
    ];
    assert.equal(attainmentOf(info(), { user, deals, today: TODAY }, '2026-04').won_cents, 1_000_000);
    assert.equal(attainmentOf(info(), { user, deals, today: TODAY }, '2026-Q2').won_cents, 0);
  });

  test('adjustments that count toward attainment add their amount in the plan period holding theirs', () => {
    const deals = [deal(1, { amount_cents: 4_000_000, close_date: '2026-04-10' })];
    const credits = [
      { id: 'adj_april', period_id: '2026-04', amount_cents: 1_000_000, currency: 'USD' },
      // 5,000.00 EUR at 1.1 on 2026-04-30: 5,500.00 USD.
      { id: 'adj_april_eur', period_id: '2026-04', amount_cents: 500_000, currency: 'EUR' },
      { id: 'adj_may', period_id: '2026-05', amount_cents: 9_000_000, currency: 'USD' },
      // No rate converts JPY: left out.
      { id: 'adj_jpy', period_id: '2026-04', amount_cents: 100_000, currency: 'JPY' },
    ];
    const money = { default_currency: 'USD', rates: [rate('EUR', 'USD', '2026-04-01', '1.1')] };
    const april = attainmentOf(info(), { user, deals, today: TODAY, money, credits }, '2026-04');
    assert.deepEqual(april, {
      won_cents: 5_550_000,
      adjustments_cents: 1_550_000,
      quota_cents: 10_000_000,
      percent: 55.5,
      quota_explanation: 'quota 100,000.00: plan quota.',
    });
    // Under a quarterly plan, April's and May's count in Q2; a month's statement of it counts nothing.
    const quarterly = info({ period: 'quarterly' });
    const q2 = attainmentOf(quarterly, { user, deals, today: TODAY, money, credits }, '2026-Q2');
    assert.equal(q2.adjustments_cents, 10_550_000);
    assert.equal(q2.won_cents, 14_550_000);
    assert.equal(attainmentOf(quarterly, { user, deals, today: TODAY, money, credits }, '2026-04').won_cents, 0);
    // A rep not on the plan during the period counts none of them.
    const elsewhere = info({ assignees: [{ owner_external_id: rep.external_id, from: '2026-05-01' }] });
    assert.equal(
      attainmentOf(elsewhere, { user, deals, today: TODAY, money, credits }, '2026-04').adjustments_cents,
      undefined,
    );
  });
});

describe('equals what the attainment bonus counts', () => {
  const bonus: EngineChip = chip(1, {
    key: 'quota-bonus',
    name: 'Quota attainment bonus',
    kind: 'attainment_bonus',
    when: null,
    params: { threshold_pct: 100, amount_cents: 100_000 },
  });
  const currencies = ['USD', 'EUR', 'GBP'] as const;
  const rates = [rate('EUR', 'USD', '2026-04-01', '1.0845'), rate('USD', 'GBP', '2026-04-12', '0.79')];
  const dealArbitrary = fc.record({
    amount_cents: fc.integer({ min: 0, max: 50_000_000 }),
    day: fc.integer({ min: 1, max: 30 }),
    currency: fc.constantFrom(...currencies),
    status: fc.constantFrom('won', 'won', 'open', 'lost'),
    owner: fc.constantFrom(rep.external_id, otherRep.external_id),
    repShare: fc.option(fc.integer({ min: 0, max: 10000 }), { nil: undefined }),
  });
  // Adjustments counting toward attainment: April's count, March's and a quarter's (its last month, June) do not.
  const creditArbitrary = fc.record({
    amount_cents: fc.integer({ min: -5_000_000, max: 20_000_000 }).filter((cents) => cents !== 0),
    currency: fc.constantFrom(...currencies),
    period_id: fc.constantFrom('2026-04', '2026-04', '2026-03', '2026-Q2'),
  });

  test('for any deals, splits, currencies, assignment window and adjustments counting toward attainment', () => {
    fc.assert(
      fc.property(
        fc.array(dealArbitrary, { maxLength: 8 }),
        fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
        fc.constantFrom('USD', 'EUR'),
        fc.array(creditArbitrary, { maxLength: 4 }),
        (generated, fromDay, planCurrency, generatedCredits) => {
          const credits = generatedCredits.map((credit, index) => ({ ...credit, id: `adj_${index}` }));
          const deals: DealSnapshot[] = generated.map((g, index) => {
            const close = `2026-04-${String(g.day).padStart(2, '0')}`;
            return deal(index + 1, {
              amount_cents: g.amount_cents,
              close_date: close,
              currency: g.currency,
              owner_external_id: g.owner,
              status: g.status as DealSnapshot['status'],
              stage: g.status === 'won' ? 'closed_won' : g.status === 'lost' ? 'closed_lost' : 'proposal',
              won_at: g.status === 'won' ? `${close}T12:00:00.000Z` : null,
              ...(g.repShare === undefined
                ? {}
                : {
                    splits: [
                      { owner_external_id: rep.external_id, share_bps: g.repShare },
                      { owner_external_id: otherRep.external_id, share_bps: 10000 - g.repShare },
                    ].filter((split) => split.share_bps > 0),
                  }),
            });
          });
          const assignees: EnginePlanVersion['assignees'] =
            fromDay === undefined
              ? 'all'
              : [{ owner_external_id: rep.external_id, from: `2026-04-${String(fromDay).padStart(2, '0')}` }];
          const engine = plan({ chips: [bonus], currency: planCurrency, assignees });
          const money = { default_currency: 'USD', rates };
          const evaluation = evaluateLines({
            plan: engine,
            rep,
            deals,
            periods: ['2026-04'],
            today: TODAY,
            money,
            credits,
          });
          const line = evaluation.targets.find((target) => target.line.chip_id === bonus.id);
          const threshold = line?.trace.steps.find((step) => step.type === 'threshold');
          assert.ok(threshold && threshold.type === 'threshold', 'the bonus line has its threshold step');
          const counted = attainmentIn({
            plan: engine,
            repExternalId: rep.external_id,
            deals,
            periodId: '2026-04',
            today: TODAY,
            money,
            credits,
          });
          assert.equal(Number(counted.won_cents), Number(threshold.attained_cents));
          const listed = (threshold.counted_adjustments ?? []).map((each) => each.counted_cents);
          assert.equal(
            Number(counted.adjustments_cents),
            listed.reduce((sum, cents) => sum + cents, 0),
          );
          assert.equal(counted.adjustments_cents === null, listed.length === 0);
          assert.equal(Number(counted.quota_cents), threshold.quota_cents);
        },
      ),
      { numRuns: 300 },
    );
  });
});
