import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  booksFromLedger,
  type DealChangeForBooks,
  type LedgerRowForBooks,
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
  const { assets } = booksFromLedger(rows, changes, VERSIONS);
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

  test('lines of plans or chips the policy does not capitalise are not in the book; another currency is left out', () => {
    const { assets, left_out } = booksFromLedger(
      [
        row({ line_key: 'other-plan', plan_key: 'smb' }),
        row({ line_key: 'in-eur', currency: 'EUR' }),
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
    );
    assert.deepEqual(assets, []);
    assert.deepEqual(left_out, [{ line_key: 'in-eur', reason: "in EUR, not the book's currency USD" }]);
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
    );
    assert.equal(assets[0]?.policy_version, 1);
  });
});
