import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { booksFromLedger, type LedgerRowForBooks, type RateForBooks } from '../../src/domain/accounting/history.ts';
import { addMonths } from '../../src/domain/accounting/months.ts';
import type { AccountingPolicy } from '../../src/domain/accounting/policy.ts';
import { journal, rollForward } from '../../src/domain/accounting/reports.ts';
import {
  type AccountingClose,
  type AssetEvent,
  buildSchedule,
  type Schedule,
} from '../../src/domain/accounting/schedule.ts';
import { convertMinorUnits, rateInForce } from '../../src/domain/earnings/exchange.ts';
import { accountingPolicy, amount, asset, impairment, term } from '../factories/accounting.ts';

// Random histories of earning lines: amounts (the first capitalised, later ones true-ups of either sign), term
// changes, impairments, each recorded some days after its month, and months closed along the way.

const START = '2026-01';

const eventArbitrary: fc.Arbitrary<AssetEvent> = fc
  .tuple(
    fc.integer({ min: 0, max: 40 }),
    fc.integer({ min: 0, max: 70 }),
    fc.oneof(
      {
        weight: 5,
        arbitrary: fc.integer({ min: -3_000_000, max: 3_000_000 }).map((x) => ({ kind: 'amount' as const, x })),
      },
      { weight: 2, arbitrary: fc.integer({ min: 1, max: 72 }).map((x) => ({ kind: 'term' as const, x })) },
      { weight: 1, arbitrary: fc.constant({ kind: 'impair' as const, x: 0 }) },
    ),
  )
  .map(([offset, lateDays, change]) => {
    const month = addMonths(START, offset);
    const recordedAt = new Date(Date.parse(`${month}-01T00:00:00.000Z`) + lateDays * 86_400_000).toISOString();
    if (change.kind === 'amount') return amount(month, change.x, recordedAt);
    if (change.kind === 'term') return term(month, change.x, recordedAt);
    return impairment(month, recordedAt);
  });

const historyArbitrary = fc.record({
  first: fc.integer({ min: 1, max: 50_000_000 }),
  events: fc.array(eventArbitrary, { maxLength: 12 }),
  closedThrough: fc.integer({ min: 0, max: 30 }),
  proration: fc.constantFrom('monthly' as const, 'daily' as const),
  contractStartDay: fc.integer({ min: 1, max: 28 }),
  expedient: fc.constantFrom(12, null),
});

type History = typeof historyArbitrary extends fc.Arbitrary<infer T> ? T : never;

function policyOf(history: History): AccountingPolicy {
  return accountingPolicy({
    amortisation: { method: 'straight_line', proration: history.proration },
    practical_expedient_months: history.expedient,
  });
}

/** One close per month, each ten days after its month ended. */
function closesOf(history: History): AccountingClose[] {
  return Array.from({ length: history.closedThrough }, (_, index) => {
    const month = addMonths(START, index);
    return { month, closed_at: `${addMonths(month, 1)}-10T00:00:00.000Z` };
  });
}

function scheduleOf(history: History, extra: AssetEvent[] = []): Schedule {
  const built = buildSchedule(
    asset([amount(START, history.first), ...history.events, ...extra], {
      contract_start: `${START}-${String(history.contractStartDay).padStart(2, '0')}`,
    }),
    policyOf(history),
    closesOf(history),
  );
  assert.ok(built);
  return built;
}

const RUNS = { numRuns: 300 };

describe('schedules over random histories', () => {
  test('every schedule sums to its capitalised amount, in whole minor units', () => {
    fc.assert(
      fc.property(historyArbitrary, (history) => {
        const built = scheduleOf(history);
        const added = built.months.reduce((sum, month) => sum + month.additions_minor + month.expensed_minor, 0);
        const recognised = built.months.reduce(
          (sum, month) => sum + month.amortisation_minor + month.impairment_minor + month.expensed_minor,
          0,
        );
        const events = [
          history.first,
          ...history.events.map((event) => (event.change.kind === 'amount' ? event.change.amount_minor : 0)),
        ];
        assert.equal(added, built.capitalised_minor);
        assert.equal(
          added,
          events.reduce((sum, x) => sum + x, 0),
        );
        assert.equal(recognised, built.capitalised_minor);
        assert.equal(built.months.at(-1)?.closing_minor, 0);
        for (const month of built.months) {
          for (const value of Object.values(month))
            if (typeof value === 'number') assert.ok(Number.isSafeInteger(value));
        }
      }),
      RUNS,
    );
  });

  test('no minor unit drifts across re-amortisations: every balance is never negative and carries over exactly', () => {
    fc.assert(
      fc.property(historyArbitrary, (history) => {
        const built = scheduleOf(history);
        let previous: Schedule['months'][number] | undefined;
        for (const month of built.months) {
          assert.ok(month.closing_minor >= 0);
          assert.equal(
            month.opening_minor,
            previous?.month === addMonths(month.month, -1) ? previous.closing_minor : 0,
          );
          previous = month;
        }
      }),
      RUNS,
    );
  });

  test('the roll-forward reconciles every month: closing = opening + additions − amortisation − impairments', () => {
    fc.assert(
      fc.property(fc.array(historyArbitrary, { minLength: 1, maxLength: 4 }), (histories) => {
        const schedules = histories.map((history) => scheduleOf(history));
        const rows = rollForward(schedules, START, addMonths(START, 80));
        let opening = 0;
        for (const row of rows) {
          assert.equal(row.opening_minor, opening);
          assert.equal(
            row.closing_minor,
            row.opening_minor + row.additions_minor - row.amortisation_minor - row.impairments_minor,
          );
          opening = row.closing_minor;
        }
      }),
      { numRuns: 100 },
    );
  });

  test('every journal entry balances', () => {
    fc.assert(
      fc.property(fc.array(historyArbitrary, { minLength: 1, maxLength: 4 }), (histories) => {
        const schedules = histories.map((history) => scheduleOf(history));
        const months = new Set(schedules.flatMap((schedule) => schedule.months.map((month) => month.month)));
        for (const month of months) {
          for (const entry of journal(schedules, month)) {
            const debits = entry.lines.reduce((sum, line) => sum + line.debit_minor, 0);
            const credits = entry.lines.reduce((sum, line) => sum + line.credit_minor, 0);
            assert.equal(debits, credits, `${month} ${entry.kind}`);
            assert.ok(entry.lines.every((line) => line.debit_minor >= 0 && line.credit_minor >= 0));
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  test('a closed month never changes: what Quotient learns after the close lands in later months', () => {
    fc.assert(
      fc.property(historyArbitrary, fc.array(eventArbitrary, { minLength: 1, maxLength: 4 }), (history, later) => {
        const closed = closesOf(history);
        const lastClose = closed.at(-1);
        if (!lastClose) return;
        const afterClose = new Date(Date.parse(lastClose.closed_at) + 1).toISOString();
        const before = scheduleOf(history);
        const after = scheduleOf(
          history,
          later.map((event) => ({ ...event, recorded_at: afterClose })),
        );
        const inClosed = (schedule: Schedule) => schedule.months.filter((month) => month.month <= lastClose.month);
        assert.deepEqual(inClosed(after), inClosed(before));
      }),
      RUNS,
    );
  });
});

// Ledgers whose lines are in the book's currency or in EUR or JPY, with a rate for each month of the rows' periods
// (EUR→USD direct, JPY through the USD→JPY rate inverted), some rows retired later.

const RATE_MONTHS = 24;

const ledgerArbitrary = fc.record({
  rows: fc.array(
    fc.record({
      line: fc.integer({ min: 0, max: 5 }),
      month: fc.integer({ min: 0, max: RATE_MONTHS - 1 }),
      amount: fc.integer({ min: -2_000_000, max: 5_000_000 }),
      retiredAfterMonths: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
    }),
    { minLength: 1, maxLength: 14 },
  ),
  eurRates: fc.array(fc.integer({ min: 1, max: 2_000_000 }), { minLength: RATE_MONTHS, maxLength: RATE_MONTHS }),
  jpyRates: fc.array(fc.integer({ min: 1, max: 300_000 }), { minLength: RATE_MONTHS, maxLength: RATE_MONTHS }),
});

type Ledger = typeof ledgerArbitrary extends fc.Arbitrary<infer T> ? T : never;

const LINE_CURRENCIES = ['USD', 'EUR', 'JPY'];

function ratesOf(ledger: Ledger): RateForBooks[] {
  const dated = (values: number[], from: string, to: string, scale: number) =>
    values.map((value, index) => ({
      from_currency: from,
      to_currency: to,
      effective_on: `${addMonths(START, index)}-01`,
      rate: (value / scale).toFixed(Math.log10(scale)),
      set_at: '2025-01-01T00:00:00.000Z',
    }));
  return [...dated(ledger.eurRates, 'EUR', 'USD', 1_000_000), ...dated(ledger.jpyRates, 'USD', 'JPY', 1_000)];
}

function ledgerRowsOf(ledger: Ledger): LedgerRowForBooks[] {
  return ledger.rows.map((entry, index) => {
    const month = addMonths(START, entry.month);
    const endsOn = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0))
      .toISOString()
      .slice(0, 10);
    const lockedAt = `${addMonths(month, 1)}-03T09:00:00.000Z`;
    return {
      id: `earn_${index}`,
      line_key: `line-${entry.line}`,
      user_external_id: 'rep-1',
      deal_id: `deal_${entry.line}`,
      deal_external_id: `opp-${entry.line}`,
      deal_close_date: `${START}-15`,
      deal_custom: { contract_months: 24 },
      plan_key: 'core-ae',
      chip_key: 'base',
      amount_minor: entry.amount,
      currency: LINE_CURRENCIES[entry.line % LINE_CURRENCIES.length] ?? 'USD',
      status: entry.retiredAfterMonths === null ? 'approved' : 'reversed',
      period_id: month,
      period_ends_on: endsOn,
      period_locked_at: lockedAt,
      status_changed_at:
        entry.retiredAfterMonths === null
          ? lockedAt
          : `${addMonths(month, entry.retiredAfterMonths + 1)}-10T00:00:00.000Z`,
    };
  });
}

describe('books over random ledgers in several currencies', () => {
  test('converted rows: each schedule sums to its rows converted one by one, and the roll-forward reconciles', () => {
    fc.assert(
      fc.property(ledgerArbitrary, (ledger) => {
        const rows = ledgerRowsOf(ledger);
        const rates = ratesOf(ledger);
        const policy = accountingPolicy();
        const { assets, left_out } = booksFromLedger(
          rows,
          [],
          [{ number: 1, policy, created_at: '2025-12-01T00:00:00.000Z' }],
          rates,
        );
        assert.deepEqual(left_out, []);
        const schedules = assets.flatMap((built) => buildSchedule(built.input, built.policy, []) ?? []);
        for (const schedule of schedules) {
          const expected = rows
            .filter((row) => row.line_key === schedule.asset_id && row.status === 'approved')
            .reduce((sum, row) => {
              const used = rateInForce(rates, row.currency, 'USD', row.period_ends_on);
              assert.ok(row.currency === 'USD' || used);
              const converted =
                row.currency === 'USD' || !used
                  ? BigInt(row.amount_minor)
                  : convertMinorUnits(BigInt(row.amount_minor), row.currency, 'USD', used).converted;
              return sum + converted;
            }, 0n);
          assert.equal(schedule.capitalised_minor, Number(expected));
          const recognised = schedule.months.reduce(
            (sum, month) => sum + month.amortisation_minor + month.impairment_minor + month.expensed_minor,
            0,
          );
          assert.equal(recognised, schedule.capitalised_minor);
        }
        let opening = 0;
        for (const row of rollForward(schedules, START, addMonths(START, 80))) {
          assert.equal(row.opening_minor, opening);
          assert.equal(
            row.closing_minor,
            row.opening_minor + row.additions_minor - row.amortisation_minor - row.impairments_minor,
          );
          opening = row.closing_minor;
        }
        assert.equal(opening, 0);
      }),
      { numRuns: 150 },
    );
  });
});
