import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { monthsToClose } from '../../src/domain/accounting/closes.ts';
import { readPolicyFile } from '../../src/domain/accounting/policy.ts';
import { journal, rollForward, waterfall } from '../../src/domain/accounting/reports.ts';
import { buildSchedule, type Schedule } from '../../src/domain/accounting/schedule.ts';
import { accountingPolicy, amount, asset, impairment, POLICY_YAML, term } from '../factories/accounting.ts';

function schedule(...args: Parameters<typeof buildSchedule>): Schedule {
  const built = buildSchedule(...args);
  assert.ok(built, 'a schedule');
  return built;
}

function amortisations(built: Schedule): number[] {
  return built.months.map((month) => month.amortisation_minor);
}

describe('the policy file', () => {
  test('when the file is valid, then defaults are filled in and plans are sorted', () => {
    const result = readPolicyFile(POLICY_YAML);
    assert.ok(result.ok);
    assert.deepEqual(result.policy.capitalise, [{ plan: 'core-ae', chips: 'all' }]);
    assert.equal(result.policy.practical_expedient_months, 12);
    assert.equal(result.policy.amortisation.proration, 'monthly');
    assert.equal(result.policy.gl_accounts.impairment_expense, '6120');
  });

  test('when members are wrong, then each problem is reported with its path and line', () => {
    const result = readPolicyFile(
      `${POLICY_YAML.replace('currency: USD', 'currency: XYZ').replace('default_months: 36', 'default_months: 0')}`,
    );
    assert.ok(!result.ok);
    assert.deepEqual(
      result.problems.map((problem) => `${problem.path}:${problem.line}`),
      ['benefit_period.default_months:7'],
    );
    const currency = readPolicyFile(POLICY_YAML.replace('currency: USD', 'currency: XYZ'));
    assert.ok(!currency.ok);
    assert.deepEqual(currency.problems, [
      { path: 'currency', line: 2, message: 'XYZ is not a known ISO 4217 currency' },
    ]);
  });

  test('when a plan is listed twice or an account serves two roles, then the rules say where', () => {
    const result = readPolicyFile(
      POLICY_YAML.replace('  - plan: core-ae\n', '  - plan: core-ae\n  - plan: core-ae\n').replace(
        'commission_expense: "6100"',
        'commission_expense: "1450"',
      ),
    );
    assert.ok(!result.ok);
    assert.deepEqual(
      result.problems.map((problem) => `${problem.path}: ${problem.message}`),
      [
        'capitalise[1].plan: repeats capitalise[0].plan',
        'gl_accounts.commission_expense: is also gl_accounts.deferred_commission_asset; each role needs its own account',
      ],
    );
  });

  test('when a member is unknown, then the problem names the members expected', () => {
    const result = readPolicyFile(`${POLICY_YAML}practical_expedient: 12\n`);
    assert.ok(!result.ok);
    assert.match(result.problems[0]?.message ?? '', /did you mean practical_expedient_months\?/);
  });
});

describe('the practical expedient', () => {
  test('when the benefit period is 12 months or fewer, then the commission is expensed at once', () => {
    const built = schedule(asset([term('2026-01', 12), amount('2026-01', 120_000)]), accountingPolicy(), []);
    assert.equal(built.treatment, 'expensed');
    assert.deepEqual(
      built.months.map((month) => [month.month, month.expensed_minor, month.closing_minor]),
      [['2026-01', 120_000, 0]],
    );
    assert.deepEqual(journal([built], '2026-01'), [
      {
        month: '2026-01',
        kind: 'expensed',
        description: 'Commissions expensed when incurred (practical expedient)',
        lines: [
          { account: '6100', debit_minor: 120_000, credit_minor: 0 },
          { account: '2150', debit_minor: 0, credit_minor: 120_000 },
        ],
      },
    ]);
  });

  test('when renewals make the benefit period longer than 12 months, then the commission is capitalised', () => {
    const policy = accountingPolicy();
    const renewing = { ...policy, benefit_period: { ...policy.benefit_period, anticipated_renewal_months: 12 } };
    const built = schedule(asset([term('2026-01', 12), amount('2026-01', 240_000)]), renewing, []);
    assert.equal(built.treatment, 'capitalised');
    assert.equal(built.benefit_months, 24);
    assert.deepEqual(amortisations(built), Array(24).fill(10_000));
  });

  test('when the policy does not elect the expedient, then a 12-month contract is capitalised', () => {
    const built = schedule(
      asset([term('2026-01', 12), amount('2026-01', 100)]),
      accountingPolicy({ practical_expedient_months: null }),
      [],
    );
    assert.equal(built.treatment, 'capitalised');
    assert.deepEqual(amortisations(built), [8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 12]);
  });

  test('when an expensed commission is clawed back, then the clawback reverses expense at once', () => {
    const built = schedule(
      asset([term('2026-01', 6), amount('2026-01', 50_000), amount('2026-03', -20_000)]),
      accountingPolicy(),
      [],
    );
    assert.deepEqual(
      built.months.map((month) => [month.month, month.expensed_minor]),
      [
        ['2026-01', 50_000],
        ['2026-03', -20_000],
      ],
    );
  });
});

describe('straight-line amortisation', () => {
  test('the rounding remainder goes in the last month', () => {
    const built = schedule(asset([term('2026-01', 13), amount('2026-01', 1_000)]), accountingPolicy(), []);
    assert.deepEqual(amortisations(built), [...Array(12).fill(76), 88]);
    assert.equal(
      amortisations(built).reduce((sum, x) => sum + x, 0),
      1_000,
    );
  });

  test('daily proration weighs each month by its days within the benefit period', () => {
    const policy = accountingPolicy({ amortisation: { method: 'straight_line', proration: 'daily' } });
    // 2026-01-16 to 2027-01-16 (exclusive) is 365 days: 16 in January 2026, 15 in January 2027.
    const built = schedule(
      asset([term('2026-01', 13), amount('2026-01', 365_00)], { contract_start: '2026-01-16' }),
      { ...policy, benefit_period: { ...policy.benefit_period, default_months: 13 } },
      [],
    );
    assert.equal(built.benefit_last_month, '2027-02');
    const byMonth = Object.fromEntries(built.months.map((month) => [month.month, month.amortisation_minor]));
    // 13 months from 2026-01-16 end on 2027-02-16: 396 days; January 2026 has 16 of them, February 2026 28.
    assert.equal(byMonth['2026-01'], Math.floor((36_500 * 16) / 396));
    assert.equal(byMonth['2026-02'], Math.floor((36_500 * 28) / 396));
    assert.equal(
      built.months.reduce((sum, month) => sum + month.amortisation_minor, 0),
      36_500,
    );
  });

  test('when the commission is capitalised after the contract started, then the elapsed months are caught up', () => {
    const built = schedule(
      asset([term('2026-04', 24), amount('2026-04', 240_000)], { contract_start: '2026-01-10' }),
      accountingPolicy(),
      [],
    );
    assert.deepEqual(built.months[0], {
      ...built.months[0],
      month: '2026-04',
      amortisation_minor: 40_000,
    });
    assert.equal(built.benefit_last_month, '2027-12');
    assert.equal(built.months.length, 21);
  });

  test('amounts stay in the minor units of the book currency (JPY has none)', () => {
    const built = schedule(
      asset([term('2026-01', 36), amount('2026-01', 100_000)]),
      accountingPolicy({ currency: 'JPY' }),
      [],
    );
    assert.equal(built.currency, 'JPY');
    assert.deepEqual(amortisations(built), [...Array(35).fill(2_777), 2_805]);
    assert.match(built.months[0]?.trace.join(' ') ?? '', /JPY 100,000\b/);
  });
});

describe('true-ups, impairments and extensions', () => {
  test('when a clawback takes more than the balance, then the rest reverses amortisation expense', () => {
    const built = schedule(
      asset([term('2026-01', 24), amount('2026-01', 24_000), amount('2027-12', -5_000)]),
      accountingPolicy(),
      [],
    );
    const last = built.months.at(-1);
    assert.deepEqual(
      [last?.month, last?.opening_minor, last?.additions_minor, last?.amortisation_minor, last?.closing_minor],
      ['2027-12', 1_000, -5_000, -4_000, 0],
    );
  });

  test('when the deal is lost after the fact, then the remaining balance is impaired', () => {
    const built = schedule(
      asset([term('2026-01', 10 * 12), amount('2026-01', 120_000), impairment('2026-03')]),
      accountingPolicy(),
      [],
    );
    assert.deepEqual(
      built.months.map((month) => [month.month, month.amortisation_minor, month.impairment_minor, month.closing_minor]),
      [
        ['2026-01', 1_000, 0, 119_000],
        ['2026-02', 1_000, 0, 118_000],
        ['2026-03', 0, 118_000, 0],
      ],
    );
    assert.deepEqual(journal([built], '2026-03')[0]?.lines, [
      { account: '6120', debit_minor: 118_000, credit_minor: 0 },
      { account: '1450', debit_minor: 0, credit_minor: 118_000 },
    ]);
  });

  test('when the contract is shortened below the months passed, then the balance is amortised at once', () => {
    const built = schedule(
      asset([term('2026-01', 36), amount('2026-01', 36_000), term('2026-06', 3)]),
      accountingPolicy(),
      [],
    );
    assert.deepEqual(built.months.at(-1), {
      ...built.months.at(-1),
      month: '2026-06',
      amortisation_minor: 31_000,
      closing_minor: 0,
    });
  });
});

describe('closed months', () => {
  test('when an event of a closed month arrives after the close, then it lands in the next open month', () => {
    const closes = [{ month: '2026-02', closed_at: '2026-03-05T00:00:00.000Z' }];
    const built = schedule(
      asset([term('2026-01', 24), amount('2026-01', 24_000), amount('2026-02', -2_400, '2026-03-20T00:00:00.000Z')]),
      accountingPolicy(),
      closes,
    );
    assert.deepEqual(
      built.months.slice(0, 3).map((month) => [month.month, month.additions_minor]),
      [
        ['2026-01', 24_000],
        ['2026-02', 0],
        ['2026-03', -2_400],
      ],
    );
    assert.match(built.months[2]?.trace[0] ?? '', /of 2026-02, a closed month/);
  });

  test('months close in order, once they have ended, and never twice', () => {
    assert.deepEqual(monthsToClose([], '2026-03', '2026-05'), { ok: true, months: ['2026-03'] });
    assert.deepEqual(monthsToClose([{ month: '2026-01', closed_at: 'x' }], '2026-03', '2026-05'), {
      ok: true,
      months: ['2026-02', '2026-03'],
    });
    assert.deepEqual(monthsToClose([], '2026-05', '2026-05'), {
      ok: false,
      reason: 'month: 2026-05 has not ended yet',
    });
    assert.deepEqual(monthsToClose([{ month: '2026-03', closed_at: 'x' }], '2026-02', '2026-05'), {
      ok: false,
      reason: 'month: 2026-02 is already closed (closed through 2026-03)',
    });
  });
});

describe('reports', () => {
  const policy = accountingPolicy();
  const schedules = [
    schedule(asset([term('2026-01', 24), amount('2026-01', 24_000)]), policy, []),
    schedule(
      asset([term('2026-02', 6), amount('2026-02', 6_000)], {
        asset_id: 'line-2',
        deal_external_id: 'opp-2',
        user_external_id: 'rep-2',
      }),
      policy,
      [],
    ),
  ];

  test('the roll-forward carries each closing balance into the next month', () => {
    assert.deepEqual(rollForward(schedules, '2026-01', '2026-02'), [
      {
        month: '2026-01',
        opening_minor: 0,
        additions_minor: 24_000,
        amortisation_minor: 1_000,
        impairments_minor: 0,
        closing_minor: 23_000,
        expensed_minor: 0,
      },
      {
        month: '2026-02',
        opening_minor: 23_000,
        additions_minor: 0,
        amortisation_minor: 1_000,
        impairments_minor: 0,
        closing_minor: 22_000,
        expensed_minor: 6_000,
      },
    ]);
  });

  test('the waterfall has a row per rep and a column per month of expense recognised', () => {
    assert.deepEqual(waterfall(schedules, 'rep', '2026-01', '2026-03'), {
      months: ['2026-01', '2026-02', '2026-03'],
      rows: [
        { key: 'rep-1', amounts_minor: [1_000, 1_000, 1_000], total_minor: 3_000 },
        { key: 'rep-2', amounts_minor: [0, 6_000, 0], total_minor: 6_000 },
      ],
    });
    assert.deepEqual(
      waterfall(schedules, 'deal', '2026-01', '2026-01').rows.map((row) => row.key),
      ['opp-1', 'opp-2'],
    );
  });
});
