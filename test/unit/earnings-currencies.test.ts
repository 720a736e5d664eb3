import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import {
  convertMinorUnits,
  type ExchangeRate,
  normaliseRate,
  rateInForce,
  rateProblem,
} from '../../src/domain/earnings/exchange.ts';
import { repHierarchyOf } from '../../src/domain/earnings/hierarchy.ts';
import { roundHalfAwayFromZero } from '../../src/domain/earnings/money.ts';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { DealSnapshot, Rep, TraceStep } from '../../src/domain/earnings/types.ts';
import { chip, baseCommission as commission, deal, plan, rep, testId } from '../factories/earnings.ts';
import { EarningsWorld, type StoredRow } from '../helpers/earningsLedger.ts';

// Currencies (docs/currencies.md): a plan pays in its currency, converting each deal's credited
// amount at the org's rate in force on the deal's date, rounded once to whole minor units; a deal no rate
// converts is an unpriced line, kept visible as a row of 0, and priced when a rate is set.

const TODAY = '2026-04-25';
const usdPlan = plan({ currency: 'USD', chips: [commission] });

function rate(from: string, to: string, effective_on: string, value: string): ExchangeRate {
  return { from_currency: from, to_currency: to, effective_on, rate: value };
}

function stepOf<Type extends TraceStep['type']>(steps: readonly TraceStep[], type: Type) {
  return steps.find((step): step is Extract<TraceStep, { type: Type }> => step.type === type);
}

function standing(rows: readonly StoredRow[]): StoredRow[] {
  return rows.filter((row) => row.status !== 'superseded' && row.status !== 'reversed');
}

describe('a EUR deal on a USD plan', () => {
  test('is converted at the rate in force on its date, which moves when the rate changes between events', () => {
    const world = new EarningsWorld(usdPlan, [rep], TODAY);
    world.money = {
      default_currency: 'USD',
      rates: [rate('EUR', 'USD', '2026-04-01', '1.08'), rate('EUR', 'USD', '2026-04-15', '1.0845')],
    };
    // Event 1: open, closing 2026-04-10: 12,345.67 EUR × 1.08 = 13,333.3236 → 13,333.32 USD; 10% = 1,333.332 → 1,333.33.
    const opened = deal(1, {
      currency: 'EUR',
      amount_cents: 1_234_567,
      status: 'open',
      stage: 'proposal',
      won_at: null,
    });
    world.change(opened);
    const [projected] = world.ledger.live();
    assert.deepEqual([projected?.status, projected?.amount_cents], ['projected', 133_333]);
    const conversion = stepOf(projected?.trace.steps ?? [], 'conversion');
    assert.deepEqual(conversion, {
      type: 'conversion',
      from_currency: 'EUR',
      to_currency: 'USD',
      original_cents: 1_234_567,
      rate: '1.08',
      rate_effective_on: '2026-04-01',
      inverse: false,
      deal_date: '2026-04-10',
      converted_cents: 1_333_332,
    });
    assert.equal(stepOf(projected?.trace.steps ?? [], 'rate')?.base_cents, 1_333_332);

    // Event 2: won with close date 2026-04-20, after the rate changed: 12,345.67 × 1.0845 = 13,388.879115
    // → 13,388.88 USD; 10% = 1,338.888 → 1,338.89. The forecast is superseded by the earning.
    world.change({
      ...opened,
      status: 'won',
      stage: 'closed_won',
      close_date: '2026-04-20',
      won_at: '2026-04-20T09:00:00.000Z',
    });
    const [pending] = world.ledger.live();
    assert.deepEqual([pending?.status, pending?.amount_cents, pending?.period_id], ['pending', 133_889, '2026-04']);
    assert.equal(stepOf(pending?.trace.steps ?? [], 'conversion')?.converted_cents, 1_338_888);
    assert.equal(stepOf(pending?.trace.steps ?? [], 'conversion')?.rate, '1.0845');
    assert.equal(pending?.trace.superseded?.reason?.code, 'deal_won');
    assert.ok(
      pending?.trace.explanation.includes(
        'The plan pays in USD, so the amount is converted at the EUR→USD rate 1.0845 in force on 2026-04-20 (set for 2026-04-15): EUR 12,345.67 × 1.0845 = USD 13,388.88, rounded half away from zero to the USD minor unit.',
      ),
    );
    assert.equal(pending?.trace.deal?.currency, 'EUR');
  });

  test('tiers and attainment count converted amounts, and a deal no rate converts is left out of them, visibly', () => {
    const tiered = plan({
      currency: 'USD',
      quota_cents: 10_000_000,
      chips: [
        chip(2, {
          key: 'accelerator',
          name: 'Accelerator',
          kind: 'tiered_commission',
          when: null,
          params: {
            mode: 'marginal',
            tiers: [
              { up_to_pct: 100, rate_bps: 0 },
              { up_to_pct: null, rate_bps: 500 },
            ],
          },
        }),
      ],
    });
    const money = { default_currency: 'USD', rates: [rate('EUR', 'USD', '2026-04-01', '1.25')] };
    const deals: DealSnapshot[] = [
      deal(1, { amount_cents: 6_000_000, close_date: '2026-04-05', currency: 'USD' }),
      // 40,000.00 EUR × 1.25 = 50,000.00 USD: reaches 110,000.00, so 10,000.00 above quota at 5% = 500.00.
      deal(2, { amount_cents: 4_000_000, close_date: '2026-04-10', currency: 'EUR' }),
      deal(3, { amount_cents: 1_000_000, close_date: '2026-04-12', currency: 'GBP' }),
    ];
    const { targets } = evaluateLines({ plan: tiered, rep, deals, periods: [], today: TODAY, money });
    const byDeal = new Map(targets.map((target) => [target.line.deal_id, target]));
    assert.equal(byDeal.get(deals[1]?.id as string)?.earned_cents, 50_000);
    const gbp = byDeal.get(deals[2]?.id as string);
    assert.deepEqual([gbp?.earned_cents, gbp?.pricing], [0, 'missing_exchange_rate']);
    assert.deepEqual(stepOf(gbp?.trace.steps ?? [], 'missing_exchange_rate'), {
      type: 'missing_exchange_rate',
      from_currency: 'GBP',
      to_currency: 'USD',
      deal_date: '2026-04-12',
    });
    assert.ok(
      byDeal
        .get(deals[1]?.id as string)
        ?.trace.explanation.includes('Not counted in 2026-04 until an exchange rate converts them: deal opp-3.'),
    );
    assert.ok(targets.every((target) => target.currency === 'USD'));
  });
});

describe('a missing rate', () => {
  test('is a row of 0 marked missing_exchange_rate, priced when the rate is set, and never clawed back', () => {
    const world = new EarningsWorld(usdPlan, [rep], TODAY);
    world.money = { default_currency: 'USD', rates: [] };
    const won = deal(1, { currency: 'EUR', amount_cents: 1_000_000, close_date: '2026-04-10' });
    world.change(won);
    const [marker] = world.ledger.live();
    assert.deepEqual(
      [marker?.status, marker?.amount_cents, marker?.pricing, marker?.period_id],
      ['pending', 0, 'missing_exchange_rate', '2026-04'],
    );
    assert.deepEqual(marker?.trace.result, { target_cents: 0, locked_cents: 0, amount_cents: 0, status: 'pending' });

    // April is locked with the line unpriced; in May the rate arrives: the line earns 10% of 11,000.00 USD in May.
    world.ledger.lock('2026-04');
    world.money = { default_currency: 'USD', rates: [rate('EUR', 'USD', '2026-04-01', '1.1')] };
    world.ledger.apply(world.everyTarget([]));
    const line = world.ledger.rowsOf(marker?.line_key as string);
    assert.deepEqual(
      standing(line).map((row) => [row.status, row.amount_cents, row.period_id, row.pricing]),
      [
        ['approved', 0, '2026-04', 'missing_exchange_rate'],
        ['pending', 110_000, '2026-05', 'priced'],
      ],
    );

    // The rate is removed again (a deal moved to a day before any rate): the line holds what was approved.
    world.change({ ...won, close_date: '2026-03-20' });
    const after = standing(world.ledger.rowsOf(marker?.line_key as string));
    assert.ok(
      after.every((row) => row.amount_cents >= 0),
      'an unpriced line is not clawed back',
    );
  });

  test("the opposite pair's rate is used inverted when the pair has none", () => {
    const used = rateInForce([rate('USD', 'EUR', '2026-01-01', '0.8')], 'EUR', 'USD', '2026-04-10');
    assert.deepEqual(used, { rate: '0.8', effective_on: '2026-01-01', inverse: true });
    assert.equal(convertMinorUnits(1_000_000n, 'EUR', 'USD', used ?? assert.fail()).converted, 1_250_000n);
  });

  test('rates dated after the deal are not in force on its date; the latest on or before it is', () => {
    const rates = [rate('EUR', 'USD', '2026-04-01', '1.1'), rate('EUR', 'USD', '2026-05-01', '1.2')];
    assert.equal(rateInForce(rates, 'EUR', 'USD', '2026-03-31'), null);
    assert.equal(rateInForce(rates, 'EUR', 'USD', '2026-04-30')?.rate, '1.1');
    assert.equal(rateInForce(rates, 'EUR', 'USD', '2026-05-01')?.rate, '1.2');
  });
});

describe('minor units', () => {
  test('JPY has no decimals and KWD three: conversions scale by the difference', () => {
    const direct = (value: string) => ({ rate: value, effective_on: '2026-01-01', inverse: false });
    // 1,000,000 yen at 0.0067 USD per yen = 6,700.00 USD.
    assert.equal(convertMinorUnits(1_000_000n, 'JPY', 'USD', direct('0.0067')).converted, 670_000n);
    // 1.000 KWD (1000 fils) at 3.25 USD = 3.25 USD.
    assert.equal(convertMinorUnits(1_000n, 'KWD', 'USD', direct('3.25')).converted, 325n);
    // 100.00 USD at 150.5 JPY per dollar = 15,050 yen.
    assert.equal(convertMinorUnits(10_000n, 'USD', 'JPY', direct('150.5')).converted, 15_050n);
  });

  test('a rate is a positive decimal, kept exactly as written without needless zeros', () => {
    assert.equal(rateProblem('1.0845'), null);
    assert.match(rateProblem('0') ?? '', /greater than 0/);
    assert.match(rateProblem('1e3') ?? '', /decimal/);
    assert.match(rateProblem('-1.2') ?? '', /decimal/);
    assert.equal(normaliseRate('001.08450'), '1.0845');
    assert.equal(normaliseRate('2.000'), '2');
  });
});

describe('properties', () => {
  const rates = fc
    .tuple(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 99_999_999 }), fc.integer({ min: 0, max: 8 }))
    .filter(([whole, fraction]) => whole > 0 || fraction > 0)
    .map(([whole, fraction, digits]) =>
      digits === 0 ? String(whole || 1) : `${whole}.${String(fraction).padStart(8, '0').slice(0, digits)}`,
    )
    .filter((value) => rateProblem(value) === null);
  const currencies = fc.constantFrom('USD', 'EUR', 'JPY', 'KWD');

  test('a conversion is the exact quotient rounded once, half away from zero', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 14n), max: 10n ** 14n }),
        rates,
        currencies,
        currencies,
        fc.boolean(),
        (amount, value, from, to, inverse) => {
          const { converted, numerator, denominator } = convertMinorUnits(amount, from, to, {
            rate: value,
            effective_on: '2026-01-01',
            inverse,
          });
          // |converted − exact| ≤ ½, and an exact half goes away from zero.
          const twiceError = 2n * (converted * denominator - numerator);
          const magnitude = twiceError < 0n ? -twiceError : twiceError;
          assert.ok(magnitude <= denominator);
          if (magnitude === denominator) assert.ok(amount >= 0n ? twiceError > 0n : twiceError < 0n);
        },
      ),
    );
  });

  test('a converted commission line is rounded once more, from the converted amount, exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000_000 }),
        rates,
        fc.integer({ min: 0, max: 10_000 }),
        (amount, value, bps) => {
          const chips = [
            chip(1, { key: 'base', name: 'Base', kind: 'commission', when: null, params: { rate_bps: bps } }),
          ];
          const money = { default_currency: 'USD', rates: [rate('EUR', 'USD', '2026-01-01', value)] };
          const eur = deal(1, { currency: 'EUR', amount_cents: amount });
          const [target] = evaluateLines({
            plan: plan({ currency: 'USD', chips }),
            rep,
            deals: [eur],
            periods: [],
            today: TODAY,
            money,
          }).targets;
          const converted = convertMinorUnits(BigInt(amount), 'EUR', 'USD', {
            rate: value,
            effective_on: '2026-01-01',
            inverse: false,
          }).converted;
          assert.equal(BigInt(target?.earned_cents ?? -1), roundHalfAwayFromZero(converted * BigInt(bps), 10_000n));
        },
      ),
    );
  });

  test('ledger invariants hold as deals change currency and rates come and go, and match a full recompute', () => {
    const steps = fc.array(
      fc.oneof(
        fc.record({
          kind: fc.constant('deal' as const),
          n: fc.integer({ min: 1, max: 3 }),
          currency: fc.constantFrom('USD', 'EUR', 'GBP'),
          amount: fc.integer({ min: 0, max: 5_000_000 }),
          day: fc.constantFrom('2026-03-10', '2026-04-10', '2026-04-20'),
          status: fc.constantFrom('won' as const, 'open' as const, 'lost' as const),
        }),
        fc.record({
          kind: fc.constant('rate' as const),
          from: fc.constantFrom('EUR', 'GBP'),
          day: fc.constantFrom('2026-03-01', '2026-04-15'),
          value: fc.constantFrom('1.1', '0.9', '1.2345'),
        }),
        fc.record({ kind: fc.constant('lock' as const), period: fc.constantFrom('2026-03', '2026-04') }),
      ),
      { maxLength: 14 },
    );
    fc.assert(
      fc.property(steps, (history) => {
        const world = new EarningsWorld(usdPlan, [rep], TODAY);
        world.money = { default_currency: 'USD', rates: [] };
        for (const step of history) {
          if (step.kind === 'deal') {
            world.change(
              deal(step.n, {
                currency: step.currency,
                amount_cents: step.amount,
                close_date: step.day,
                status: step.status,
                stage: step.status === 'won' ? 'closed_won' : step.status === 'lost' ? 'closed_lost' : 'proposal',
                won_at: step.status === 'won' ? `${step.day}T10:00:00.000Z` : null,
              }),
            );
          } else if (step.kind === 'rate') {
            const others: ExchangeRate[] = (world.money?.rates ?? []).filter(
              (known) => !(known.from_currency === step.from && known.effective_on === step.day),
            );
            world.money = { default_currency: 'USD', rates: [...others, rate(step.from, 'USD', step.day, step.value)] };
            // What `quotient fx set` does: the org's lines evaluated again (locked lines with an unpriced row too).
            world.ledger.apply(world.everyTarget([]));
          } else if ((world.ledger.periods.get(step.period) ?? 'open') === 'open') {
            world.ledger.lock(step.period);
          }
        }
        // Incremental evaluation leaves every line where a full evaluation would put it.
        for (const target of world.everyTarget([])) {
          const rows = standing(world.ledger.rowsOf(target.line.line_key));
          const locked = rows.filter((row) => row.status === 'approved' || row.status === 'paid');
          const lockedSum = locked.reduce((sum, row) => sum + row.amount_cents, 0);
          const pending = rows.filter((row) => row.status === 'pending');
          const projected = rows.filter((row) => row.status === 'projected');
          assert.ok(pending.length <= 1 && projected.length <= 1, 'one live row per status');
          for (const row of rows) {
            if (row.amount_cents === 0)
              assert.equal(row.pricing, 'missing_exchange_rate', 'only unpriced rows carry 0');
          }
          if (target.pricing === 'missing_exchange_rate' && target.trace.deal?.status === 'open') {
            // Only the forecast is unknown: a row of 0 shows it (live, or frozen by a lock with no forecast since), and
            // the earning is what an open deal earns, nothing.
            assert.ok(projected.length <= 1);
            assert.ok(projected.every((row) => row.amount_cents === 0 && row.pricing === 'missing_exchange_rate'));
            assert.ok(rows.some((row) => row.pricing === 'missing_exchange_rate'));
            assert.equal(lockedSum + (pending[0]?.amount_cents ?? 0), target.earned_cents, 'E = L + pending');
          } else if (target.pricing === 'missing_exchange_rate') {
            // Its row of 0 is live, or frozen by a lock with nothing after it.
            const newest = rows.at(-1);
            assert.deepEqual([newest?.amount_cents, newest?.pricing], [0, 'missing_exchange_rate']);
            assert.ok([...pending, ...projected].length <= 1);
          } else {
            assert.equal(lockedSum + (pending[0]?.amount_cents ?? 0), target.earned_cents, 'E = L + pending');
            assert.equal(projected[0]?.amount_cents ?? 0, target.projected_cents, 'F = projected');
          }
        }
      }),
    );
  });
});

describe('an override on a EUR deal of a report, on a USD plan', () => {
  // rep-017 reports to mgr-001 from 2026-01-01. The plan pays a 10% commission and a 5% override, in USD. The deal,
  // 12,345.67 EUR won 2026-04-10, credits rep-017 in full: at 1.08, 13,333.3236 → 13,333.32 USD, and the override
  // is 5% of that, 666.666 → 666.67 USD (not 5% of the euros, 617.28).
  const manager: Rep = { user_id: testId('user', 30), external_id: 'mgr-001' };
  const overridePlan = plan({
    currency: 'USD',
    chips: [
      commission,
      chip(2, {
        key: 'override',
        name: 'Manager override',
        kind: 'override',
        when: null,
        params: { rate_bps: 500, depth: 1 },
      }),
    ],
  });
  const hierarchy = repHierarchyOf([
    { rep_external_id: rep.external_id, manager_external_id: manager.external_id, from: '2026-01-01' },
  ]);
  const euroDeal = deal(1, { currency: 'EUR', amount_cents: 1_234_567 });
  const overrideRow = (world: EarningsWorld) =>
    standing(world.ledger.rows).find((row) => row.trace.chip.kind === 'override' && row.amount_cents !== 0);

  test("converts the reports' credited amounts at the rate in force, like a commission", () => {
    const world = new EarningsWorld(overridePlan, [rep, manager], TODAY, hierarchy);
    world.money = { default_currency: 'USD', rates: [rate('EUR', 'USD', '2026-04-01', '1.08')] };
    world.change(euroDeal);
    const row = overrideRow(world);
    assert.equal(row?.amount_cents, 66_667);
    const override = stepOf(row?.trace.steps ?? [], 'override');
    assert.equal(override?.base_cents, 1_234_567);
    assert.deepEqual(
      [
        stepOf(row?.trace.steps ?? [], 'conversion')?.original_cents,
        stepOf(row?.trace.steps ?? [], 'rate')?.base_cents,
      ],
      [1_234_567, 1_333_332],
    );
  });

  test('is an unpriced line without a rate, priced once one is set', () => {
    const world = new EarningsWorld(overridePlan, [rep, manager], TODAY, hierarchy);
    world.money = { default_currency: 'USD', rates: [] };
    world.change(euroDeal);
    const unpriced = standing(world.ledger.rows).filter((row) => row.trace.chip.kind === 'override');
    assert.equal(unpriced.length, 1);
    assert.equal(unpriced[0]?.amount_cents, 0);
    assert.ok(stepOf(unpriced[0]?.trace.steps ?? [], 'missing_exchange_rate'));

    world.money = { default_currency: 'USD', rates: [rate('EUR', 'USD', '2026-04-01', '1.08')] };
    world.ledger.apply(world.everyTarget([]));
    assert.equal(overrideRow(world)?.amount_cents, 66_667);
  });
});

describe('an open deal no rate converts', () => {
  test('keeps the clawback of what it earned when won: an open deal earns nothing, priced or not', () => {
    const world = new EarningsWorld(usdPlan, [rep], '2026-05-05');
    world.money = { default_currency: 'USD', rates: [rate('EUR', 'USD', '2026-04-01', '1.08')] };
    const won = deal(1, { currency: 'EUR', amount_cents: 100_000, close_date: '2026-04-20' });
    world.change(won);
    const lineKey = world.ledger.live()[0]?.line_key as string;
    world.ledger.lock('2026-04');
    const reopened = { ...won, status: 'open' as const, stage: 'proposal', won_at: null };
    world.change(reopened);
    const clawedBack = (rows: StoredRow[]) =>
      standing(rows)
        .filter((row) => row.status !== 'projected')
        .map((row) => [row.status, row.amount_cents, row.period_id]);
    assert.deepEqual(clawedBack(world.ledger.rowsOf(lineKey)), [
      ['approved', 10_800, '2026-04'],
      ['pending', -10_800, '2026-05'],
    ]);
    // Its close date moves to a day before any rate: the forecast is unpriced, the clawback stands (booked in the
    // line's period, March, open).
    world.change({ ...reopened, close_date: '2026-03-20' });
    const rows = world.ledger.rowsOf(lineKey);
    assert.deepEqual(clawedBack(rows), [
      ['approved', 10_800, '2026-04'],
      ['pending', -10_800, '2026-03'],
    ]);
    const forecast = standing(rows).find((row) => row.status === 'projected');
    assert.deepEqual([forecast?.amount_cents, forecast?.pricing], [0, 'missing_exchange_rate']);
    const net = standing(rows)
      .filter((row) => row.status !== 'projected')
      .reduce((sum, row) => sum + row.amount_cents, 0);
    assert.equal(net, 0);
  });
});
