import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { decimalsOf } from '../../src/domain/currencies.ts';
import { parseLineKey } from '../../src/domain/earnings/lineKeys.ts';
import { formatExactMoney, formatMoney } from '../../src/domain/earnings/money.ts';
import { buildStatement } from '../../src/domain/earnings/statement.ts';
import { baseCommission as commission, deal, otherRep, plan, rep } from '../factories/earnings.ts';
import { EarningsWorld } from '../helpers/earningsLedger.ts';

// Explanations print amounts in the decimals of their currency: a JPY plan's amounts are whole yen (minor unit =
// major unit), a KWD plan's have three decimals. Before, every amount was printed as cents, so a JPY line of
// 123,457 yen read "1,234.57": a rep asking "why was I paid this?" got a sentence off by a factor of 100.

const TODAY = '2026-04-25';

describe('money in its own decimals', () => {
  test.each([
    [500_000n, 0, '500,000'],
    [-1_050n, 2, '-10.50'],
    [1_234n, 3, '1.234'],
    [5_000_000n, 2, '50,000.00'],
  ])('formatMoney(%s, %s) is %s', (cents, decimals, shown) => {
    assert.equal(formatMoney(cents, decimals), shown);
  });

  test.each([
    // millionths of a minor unit
    [123_456_700_000n, 0, '123,456.7'],
    [5_000_000_000_000n, 0, '5,000,000'],
    [123_400_000n, 3, '0.1234'],
    [5_000_000n, 2, '0.05'],
  ])('formatExactMoney(%s, %s) is %s', (exact, decimals, shown) => {
    assert.equal(formatExactMoney(exact, decimals), shown);
  });

  test('decimalsOf reads the ISO 4217 exponent, 2 when the code is absent or unknown', () => {
    assert.deepEqual(
      ['JPY', 'USD', 'KWD', undefined, null, 'XXZ'].map((code) => decimalsOf(code)),
      [0, 2, 3, 2, 2, 2],
    );
  });
});

describe('a plan paying in JPY', () => {
  const jpyPlan = plan({ currency: 'JPY', chips: [commission], quota_cents: null });

  test('explains a commission in whole yen, and a later change against what was approved', () => {
    const world = new EarningsWorld(jpyPlan, [rep], TODAY);
    world.money = { default_currency: 'JPY', rates: [] };
    // ¥1,234,567 at 10% = ¥123,456.7, rounded to ¥123,457.
    const won = deal(1, { amount_cents: 1_234_567 });
    world.change(won);
    const [row] = world.ledger.live();
    assert.equal(row?.amount_cents, 123_457);
    assert.ok(row?.trace.explanation.includes('10.00% of 1,234,567 = 123,456.7'), row?.trace.explanation.join('\n'));
    assert.ok(row?.trace.explanation.includes('123,456.7 rounded half away from zero is 123,457'));

    world.ledger.lock('2026-04');
    world.change({ ...won, amount_cents: 1_000_000 });
    const adjustment = world.ledger.live().find((live) => live.period_id === '2026-05');
    assert.equal(adjustment?.amount_cents, -23_457);
    assert.ok(
      adjustment?.trace.explanation.includes(
        'Already approved or paid on this line, 123,457, so this row is 100,000 - 123,457 = -23,457, a clawback',
      ),
      adjustment?.trace.explanation.join('\n'),
    );
  });

  test('a EUR deal split between two reps is explained in euros up to the conversion, then in yen', () => {
    const world = new EarningsWorld(jpyPlan, [rep, otherRep], TODAY);
    world.money = {
      default_currency: 'JPY',
      rates: [{ from_currency: 'EUR', to_currency: 'JPY', effective_on: '2026-04-01', rate: '160' }],
    };
    // EUR 10,000.01 split 60/40: the rep is credited EUR 6,000.01 = ¥960,001.6 → ¥960,002; 10% = ¥96,000.2 → ¥96,000.
    world.change(
      deal(1, {
        currency: 'EUR',
        amount_cents: 1_000_001,
        splits: [
          { owner_external_id: rep.external_id, share_bps: 6000 },
          { owner_external_id: otherRep.external_id, share_bps: 4000 },
        ],
      }),
    );
    const row = world.ledger.live().find((live) => parseLineKey(live.line_key).user_id === rep.user_id);
    const explanation = row?.trace.explanation ?? [];
    assert.equal(row?.amount_cents, 96_000);
    assert.ok(
      explanation.includes(
        'Deal opp-1 is split (rep-018 40.00%); rep-017 is credited 60.00% of amount_cents 10,000.01 = 6,000.01.',
      ),
      explanation.join('\n'),
    );
    assert.ok(explanation.includes('10.00% of 960,002 = 96,000.2'), explanation.join('\n'));
  });

  test("a statement's sentences use the plan's decimals", () => {
    const world = new EarningsWorld(jpyPlan, [rep], TODAY);
    world.money = { default_currency: 'JPY', rates: [] };
    world.change(deal(1, { amount_cents: 1_234_567 }));
    const statement = buildStatement({
      user: { id: rep.user_id, external_id: rep.external_id } as never,
      period: { id: '2026-04', kind: 'monthly', starts_on: '2026-04-01', ends_on: '2026-04-30', status: 'open' },
      plans: [
        {
          id: jpyPlan.plan_id,
          key: jpyPlan.plan_key,
          name: 'JPY plan',
          period: 'monthly',
          quota_cents: null,
          currency: 'JPY',
          draw: null,
        },
      ],
      rows: world.ledger.live().map((live) => ({
        ...live,
        status: live.status as 'pending',
        deal_id: null,
        plan_id: jpyPlan.plan_id,
        rule_chip_id: commission.id,
        pricing: 'priced' as const,
      })),
      deals: [],
      today: TODAY,
    });
    assert.equal(
      statement.plans[0]?.lines[0]?.explanation,
      'Base commission on deal opp-1: 10.00% of 1,234,567 = 123,457.',
    );
  });
});
