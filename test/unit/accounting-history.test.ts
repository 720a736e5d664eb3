import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  booksFromLedger,
  conversionsToRecord,
  type DealChangeForBooks,
  type LedgerRowForBooks,
  type RateForBooks,
  type RecordedConversion,
} from '../../src/domain/accounting/history.ts';
import { buildSchedule } from '../../src/domain/accounting/schedule.ts';
import { accountingPolicy } from '../factories/accounting.ts';

// From ledger rows and deal events to each line's accounting history.

function row(overrides: Partial<LedgerRowForBooks> = {}): LedgerRowForBooks {
  return {
    id: 'earn_1',
    line_key: 'line-1',
    user_external_id: 'rep-1',
    deal_id: 'deal_1',
    deal_external_id: 'opp-1',
    deal_close_date: '2026-01-10',
    deal_custom: { contract_months: 24 },
    plan_key: 'core-ae',
    chip_key: 'base',
    amount_minor: 240_000,
    currency: 'USD',
    status: 'approved',
    period_id: '2026-01',
    period_ends_on: '2026-01-31',
    period_locked_at: '2026-02-02T09:00:00.000Z',
    status_changed_at: '2026-02-02T09:00:00.000Z',
    ...overrides,
  };
}

function change(id: string, at: string, field: string, old: unknown, next: unknown): DealChangeForBooks {
  return { id, deal_id: 'deal_1', changes: [{ field, old, new: next }], occurred_at: at, created_at: at };
}

const VERSIONS = [{ number: 1, policy: accountingPolicy(), created_at: '2025-12-01T00:00:00.000Z' }];

function scheduleOf(rows: LedgerRowForBooks[], changes: DealChangeForBooks[] = []) {
  const { assets } = booksFromLedger(rows, changes, VERSIONS, []);
  assert.equal(assets.length, 1);
  const [asset] = assets;
  assert.ok(asset);
  const schedule = buildSchedule(asset.input, asset.policy, []);
  assert.ok(schedule);
  return schedule;
}

describe('the books from the ledger', () => {
  test('a row counts once its period locks, in the last month of its period; a quarter books in its last month', () => {
    const schedule = scheduleOf([
      row(),
      row({ id: 'earn_2', amount_minor: 0, status: 'pending', period_id: '2026-02', period_locked_at: null }),
      row({ id: 'earn_3', amount_minor: 24_000, period_id: '2026-Q1', period_ends_on: '2026-03-31' }),
    ]);
    assert.deepEqual(
      schedule.months.slice(0, 3).map((month) => [month.month, month.additions_minor]),
      [
        ['2026-01', 240_000],
        ['2026-02', 0],
        ['2026-03', 24_000],
      ],
    );
    assert.equal(schedule.contract_months, 24);
  });

  test('a row retired after its lock is taken back when it was retired; one retired before never counted', () => {
    const schedule = scheduleOf([
      row({ status: 'reversed', status_changed_at: '2026-04-15T00:00:00.000Z' }),
      row({ id: 'earn_2', status: 'superseded', status_changed_at: '2026-01-20T00:00:00.000Z', amount_minor: 99 }),
      row({ id: 'earn_3', amount_minor: 120_000, status: 'paid' }),
    ]);
    assert.deepEqual(
      schedule.months
        .filter((month) => month.additions_minor !== 0)
        .map((month) => [month.month, month.additions_minor]),
      [
        ['2026-01', 360_000],
        ['2026-04', -240_000],
      ],
    );
  });

  test('lines of plans or chips the policy does not capitalise are not in the book', () => {
    const { assets, left_out } = booksFromLedger(
      [
        row({ line_key: 'other-plan', plan_key: 'smb' }),
        row({ line_key: 'other-chip', chip_key: 'bonus' }),
        row({ line_key: 'unlocked', period_locked_at: null, status: 'pending' }),
      ],
      [],
      [
        {
          number: 1,
          policy: accountingPolicy({ capitalise: [{ plan: 'core-ae', chips: ['base'] }] }),
          created_at: '2025-12-01T00:00:00.000Z',
        },
      ],
      [],
    );
    assert.deepEqual(assets, []);
    assert.deepEqual(left_out, []);
  });

  test('the term is the deal field before its first change, then each change re-amortises', () => {
    const schedule = scheduleOf(
      [row({ deal_custom: { contract_months: 36 } })],
      [change('de_1', '2026-06-10T00:00:00.000Z', 'custom.contract_months', 24, 36)],
    );
    assert.equal(schedule.contract_months, 36);
    assert.equal(schedule.benefit_last_month, '2028-12');
    assert.equal(schedule.months[0]?.amortisation_minor, 10_000);
    assert.equal(schedule.months[5]?.amortisation_minor, Math.floor(190_000 / 31));
  });

  test('a deal lost after the commission was capitalised impairs it; one lost and won again before does not', () => {
    const lostLater = scheduleOf([row()], [change('de_1', '2026-05-03T00:00:00.000Z', 'status', 'won', 'lost')]);
    assert.deepEqual(
      lostLater.months.map((month) => [month.month, month.impairment_minor, month.closing_minor]).at(-1),
      ['2026-05', 200_000, 0],
    );
    const lostBefore = scheduleOf(
      [row()],
      [
        change('de_1', '2026-01-12T00:00:00.000Z', 'status', 'won', 'lost'),
        change('de_2', '2026-01-13T00:00:00.000Z', 'status', 'lost', 'won'),
      ],
    );
    assert.equal(
      lostBefore.months.reduce((sum, month) => sum + month.impairment_minor, 0),
      0,
    );
  });

  test("the benefit period starts at the deal's close date as it stood when the line was capitalised", () => {
    const schedule = scheduleOf(
      [row({ deal_close_date: '2026-09-01' })],
      [change('de_1', '2026-04-01T00:00:00.000Z', 'close_date', '2026-01-10', '2026-09-01')],
    );
    assert.equal(schedule.benefit_start, '2026-01-10');
    assert.equal(schedule.benefit_last_month, '2027-12');
  });

  test('a line keeps the policy version in force when it was first capitalised', () => {
    const later = accountingPolicy({ practical_expedient_months: null });
    const { assets } = booksFromLedger(
      [row()],
      [],
      [...VERSIONS, { number: 2, policy: later, created_at: '2026-03-01T00:00:00.000Z' }],
      [],
    );
    assert.equal(assets[0]?.policy_version, 1);
  });
});

describe('earnings in another currency than the book', () => {
  const EARLY = '2025-01-01T00:00:00.000Z';
  const EUR_USD = [
    { from_currency: 'EUR', to_currency: 'USD', effective_on: '2026-01-15', rate: '1.0845', set_at: EARLY },
    { from_currency: 'EUR', to_currency: 'USD', effective_on: '2026-02-01', rate: '1.1', set_at: EARLY },
  ];

  test('each row is converted at the rate in force on the last day of its period, rounded half away from zero', () => {
    const { assets, left_out } = booksFromLedger(
      [row({ currency: 'EUR', amount_minor: 1_234_567 })],
      [],
      VERSIONS,
      EUR_USD,
    );
    assert.deepEqual(left_out, []);
    const [asset] = assets;
    assert.ok(asset);
    const schedule = buildSchedule(asset.input, asset.policy, []);
    assert.ok(schedule);
    // 1,234,567 euro cents × 1.0845 = 1,338,887.9115 dollar cents, the rate of 2026-01-15 in force on 2026-01-31.
    assert.equal(schedule.capitalised_minor, 1_338_888);
    assert.equal(schedule.currency, 'USD');
    assert.ok(
      schedule.months[0]?.trace.includes(
        'The book is in USD, so the amount is converted at the EUR→USD rate 1.0845 in force on 2026-01-31 (set for 2026-01-15): EUR 12,345.67 × 1.0845 = USD 13,388.88, rounded half away from zero to the USD minor unit.',
      ),
    );
  });

  test('a retired row takes back exactly what its capitalisation converted, whatever the rate of its retirement', () => {
    const schedule = scheduleOfRates(
      [
        row({
          currency: 'EUR',
          amount_minor: 1_001,
          status: 'reversed',
          status_changed_at: '2026-04-15T00:00:00.000Z',
        }),
      ],
      EUR_USD,
    );
    // 1,001 × 1.0845 = 1,085.5845 → 1,086; April's rate (1.1) plays no part.
    assert.deepEqual(
      schedule.months.filter((month) => month.additions_minor !== 0).map((month) => month.additions_minor),
      [1_086, -1_086],
    );
    assert.equal(schedule.months.at(-1)?.closing_minor, 0);
  });

  test('a rate set after the month closed brings the line in the first open month; the closed month is unchanged', () => {
    const { assets } = booksFromLedger([row({ currency: 'EUR', amount_minor: 1_001 })], [], VERSIONS, [
      {
        from_currency: 'EUR',
        to_currency: 'USD',
        effective_on: '2026-01-15',
        rate: '1.0845',
        set_at: '2026-03-20T00:00:00.000Z',
      },
    ]);
    const [asset] = assets;
    assert.ok(asset);
    const schedule = buildSchedule(asset.input, asset.policy, [
      { month: '2026-01', closed_at: '2026-02-10T00:00:00.000Z' },
      { month: '2026-02', closed_at: '2026-03-10T00:00:00.000Z' },
    ]);
    assert.equal(schedule?.months[0]?.month, '2026-03');
    assert.equal(schedule?.months[0]?.additions_minor, 1_086);
  });

  test('only the opposite pair has a rate: it is used inverted, and the trace says so', () => {
    const schedule = scheduleOfRates(
      [row({ currency: 'JPY', amount_minor: 150_000 })],
      [{ from_currency: 'USD', to_currency: 'JPY', effective_on: '2025-06-01', rate: '150', set_at: EARLY }],
    );
    // 150,000 yen ÷ 150 × 100 = 100,000 cents.
    assert.equal(schedule.capitalised_minor, 100_000);
    assert.ok(
      schedule.months[0]?.trace.some((sentence) => sentence.includes('the USD→JPY rate 150 of 2025-06-01 inverted')),
    );
  });

  test('when no rate converts a row of the line, the line is left out with the reason missing_exchange_rate', () => {
    const { assets, left_out } = booksFromLedger(
      [
        row({ line_key: 'in-eur', currency: 'EUR' }),
        row({ id: 'earn_2', line_key: 'in-gbp', currency: 'GBP' }),
        row({ id: 'earn_3', line_key: 'early', currency: 'EUR', period_id: '2025-12', period_ends_on: '2025-12-31' }),
      ],
      [],
      VERSIONS,
      EUR_USD,
    );
    assert.deepEqual(
      assets.map((asset) => asset.input.asset_id),
      ['in-eur'],
    );
    assert.deepEqual(left_out, [
      {
        line_key: 'in-gbp',
        reason: 'missing_exchange_rate',
        detail:
          'earning earn_2 is in GBP and no GBP→USD rate (either way) is in force on 2026-01-31, the day it is capitalised: quotient fx set GBP USD RATE --from 2026-01-31',
      },
      {
        line_key: 'early',
        reason: 'missing_exchange_rate',
        detail:
          'earning earn_3 is in EUR and no EUR→USD rate (either way) is in force on 2025-12-31, the day it is capitalised: quotient fx set EUR USD RATE --from 2025-12-31',
      },
    ]);
  });
});

describe('conversions recorded when a month closes', () => {
  const SET_AT = '2026-01-20T00:00:00.000Z';
  const RATE = { from_currency: 'EUR', to_currency: 'USD', effective_on: '2026-01-15', rate: '1.0845', set_at: SET_AT };
  const REPLACED = { ...RATE, rate: '1.2', set_at: '2026-03-20T00:00:00.000Z' };
  const CLOSES = [{ month: '2026-01', closed_at: '2026-02-10T00:00:00.000Z' }];
  const RECORDED: RecordedConversion = {
    earning_id: 'earn_1',
    book_currency: 'USD',
    rate: '1.0845',
    inverse: false,
    rate_effective_on: '2026-01-15',
    rate_set_at: SET_AT,
    converted_minor: 1_086,
  };

  test('the books give each converted row its conversion; a close records those of its months not recorded yet', () => {
    const { conversions } = booksFromLedger(
      [
        row({ currency: 'EUR', amount_minor: 1_001 }),
        row({ id: 'earn_2', currency: 'EUR', amount_minor: -500, period_id: '2026-02', period_ends_on: '2026-02-28' }),
        row({ id: 'earn_3', line_key: 'line-usd' }),
      ],
      [],
      VERSIONS,
      [RATE],
    );
    // -500 × 1.0845 = -542.25 → -542, half away from zero.
    assert.deepEqual(conversions, [
      { ...RECORDED, month: '2026-01' },
      { ...RECORDED, earning_id: 'earn_2', converted_minor: -542, month: '2026-02' },
    ]);
    assert.deepEqual(
      conversionsToRecord(conversions, [], '2026-01').map((conversion) => conversion.earning_id),
      ['earn_1'],
    );
    assert.deepEqual(
      conversionsToRecord(conversions, [RECORDED], '2026-02').map((conversion) => conversion.earning_id),
      ['earn_2'],
    );
  });

  test('a recorded conversion is used, not a rate replaced after it: the closed month and the later ones keep it', () => {
    const schedules = [[RATE], [REPLACED], []].map((rates) => {
      const { assets, left_out } = booksFromLedger(
        [
          row({
            currency: 'EUR',
            amount_minor: 1_001,
            status: 'reversed',
            status_changed_at: '2026-04-15T00:00:00.000Z',
          }),
        ],
        [],
        VERSIONS,
        rates,
        [RECORDED],
      );
      assert.deepEqual(left_out, []);
      const [asset] = assets;
      assert.ok(asset);
      return buildSchedule(asset.input, asset.policy, CLOSES);
    });
    const [recorded, replaced, withoutRates] = schedules;
    assert.deepEqual(replaced, recorded);
    assert.deepEqual(withoutRates, recorded);
    assert.deepEqual(
      recorded?.months
        .filter((month) => month.additions_minor !== 0)
        .map((month) => [month.month, month.additions_minor]),
      [
        ['2026-01', 1_086],
        ['2026-04', -1_086],
      ],
    );
  });

  test('without its recorded conversion, a replaced rate moves the row out of the closed month', () => {
    const [asset] = booksFromLedger([row({ currency: 'EUR', amount_minor: 1_001 })], [], VERSIONS, [REPLACED]).assets;
    assert.ok(asset);
    const schedule = buildSchedule(asset.input, asset.policy, CLOSES);
    // 1,001 × 1.2 = 1,201.2 → 1,201, learnt when the rate was replaced, after January closed.
    assert.deepEqual([schedule?.months[0]?.month, schedule?.months[0]?.additions_minor], ['2026-02', 1_201]);
  });

  test('a conversion recorded into another currency than the book is not used', () => {
    const { conversions } = booksFromLedger(
      [row({ currency: 'EUR', amount_minor: 1_001 })],
      [],
      VERSIONS,
      [REPLACED],
      [{ ...RECORDED, book_currency: 'GBP' }],
    );
    assert.deepEqual(
      conversions.map((conversion) => [conversion.book_currency, conversion.rate]),
      [['USD', '1.2']],
    );
  });
});

function scheduleOfRates(rows: LedgerRowForBooks[], rates: RateForBooks[]) {
  const { assets, left_out } = booksFromLedger(rows, [], VERSIONS, rates);
  assert.deepEqual(left_out, []);
  const [asset] = assets;
  assert.ok(asset);
  const schedule = buildSchedule(asset.input, asset.policy, []);
  assert.ok(schedule);
  return schedule;
}

describe('deal events received before the line was capitalised', () => {
  const june = {
    deal_close_date: '2026-06-12',
    deal_custom: {},
    amount_minor: 360_000,
    period_id: '2026-06',
    period_ends_on: '2026-06-30',
    period_locked_at: '2026-07-15T09:00:00.000Z',
    status_changed_at: '2026-07-15T09:00:00.000Z',
  };
  const churned = (id: string, at: string, old: unknown, next: unknown) => change(id, at, 'custom.churned', old, next);
  const churnPolicy = [
    {
      number: 1,
      policy: accountingPolicy({ impairment: { churn_field: 'custom.churned' } }),
      created_at: '2025-12-01T00:00:00.000Z',
    },
  ];
  function churnSchedule(changes: DealChangeForBooks[], rows = [row(june)]) {
    const [asset] = booksFromLedger(rows, changes, churnPolicy, []).assets;
    assert.ok(asset);
    const schedule = buildSchedule(asset.input, asset.policy, []);
    assert.ok(schedule);
    return schedule;
  }

  test('a churn dated after the capitalisation month but received before the late lock impairs in its month', () => {
    const schedule = churnSchedule([churned('de_1', '2026-07-10T00:00:00.000Z', null, true)]);
    assert.deepEqual(
      schedule.months.map((month) => [
        month.month,
        month.amortisation_minor,
        month.impairment_minor,
        month.closing_minor,
      ]),
      [
        ['2026-06', 10_000, 0, 350_000],
        ['2026-07', 0, 350_000, 0],
      ],
    );
  });

  test('a churn received before the lock impairs as the same churn received after it does', () => {
    const before = churnSchedule([churned('de_1', '2026-07-10T00:00:00.000Z', null, true)]);
    const after = churnSchedule([
      { ...churned('de_1', '2026-07-10T00:00:00.000Z', null, true), created_at: '2026-07-20T00:00:00.000Z' },
    ]);
    assert.deepEqual(
      before.months.map((month) => [month.month, month.impairment_minor]),
      after.months.map((month) => [month.month, month.impairment_minor]),
    );
  });

  test('a churn undone before the lock does not impair', () => {
    const schedule = churnSchedule([
      churned('de_1', '2026-07-01T00:00:00.000Z', null, true),
      churned('de_2', '2026-07-05T00:00:00.000Z', true, false),
    ]);
    assert.equal(
      schedule.months.reduce((sum, month) => sum + month.impairment_minor, 0),
      0,
    );
    assert.equal(schedule.treatment, 'capitalised');
  });

  test('a contract churned within the month its commission is capitalised leaves no asset: it is expensed', () => {
    for (const period of [
      { period_id: '2026-06', period_ends_on: '2026-06-30' },
      { period_id: '2026-Q2', period_ends_on: '2026-06-30' },
    ]) {
      const schedule = churnSchedule(
        [churned('de_1', '2026-06-25T00:00:00.000Z', null, true)],
        [row({ ...june, ...period, deal_close_date: '2026-06-10' })],
      );
      assert.equal(schedule.treatment, 'expensed');
      assert.deepEqual(
        schedule.months.map((month) => [
          month.month,
          month.additions_minor,
          month.expensed_minor,
          month.impairment_minor,
          month.closing_minor,
        ]),
        [['2026-06', 0, 360_000, 0, 0]],
      );
      assert.match(schedule.months[0]?.trace.join(' ') ?? '', /no longer exists.*ASC 340-40-35-3/);
    }
  });

  test('a deal created with its term set has that term from the start: a 6-month contract is expensed at once', () => {
    const created: DealChangeForBooks = {
      id: 'de_0',
      deal_id: 'deal_1',
      changes: [
        { field: 'amount_cents', old: null, new: 3_600_000 },
        { field: 'custom.contract_months', old: null, new: 6 },
        { field: 'status', old: null, new: 'won' },
      ],
      occurred_at: null,
      created_at: '2026-07-03T00:00:00.000Z',
    };
    const schedule = churnSchedule([created], [row({ ...june, deal_custom: { contract_months: 6 } })]);
    assert.equal(schedule.contract_months, 6);
    assert.equal(schedule.treatment, 'expensed');
    assert.deepEqual(
      schedule.months.map((month) => [month.month, month.expensed_minor, month.amortisation_minor]),
      [['2026-06', 360_000, 0]],
    );
  });

  test('a term change of an earlier month moved to the first amount is not called a closed month when none is', () => {
    const schedule = churnSchedule(
      [change('de_1', '2026-05-10T00:00:00.000Z', 'custom.contract_months', 24, 30)],
      [row({ ...june, period_id: '2026-Q2', deal_custom: { contract_months: 30 } })],
    );
    assert.equal(schedule.contract_months, 30);
    assert.doesNotMatch(schedule.months[0]?.trace.join(' ') ?? '', /closed month/);
  });
});
