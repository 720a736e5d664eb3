import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { parse } from 'yaml';
import { booksFromLedger, type LedgerRowForBooks } from '../../src/domain/accounting/history.ts';
import { addMonths, monthsBetween } from '../../src/domain/accounting/months.ts';
import { readPolicyFile } from '../../src/domain/accounting/policy.ts';
import { journal } from '../../src/domain/accounting/reports.ts';
import { buildSchedule, type Schedule } from '../../src/domain/accounting/schedule.ts';
import { tableRows, workedExamples } from '../helpers/workedExamples.ts';

// docs/accounting.md, Worked example: the policy, the history, the schedule and the journal entries are read from
// the page, and the schedule and entries are recomputed from the policy and the history.

const section = workedExamples('accounting.md');

/** `10,000.00` → 1000000 cents; an empty cell is 0. */
function cents(money: string): number {
  if (money === '') return 0;
  const [whole = '', fraction = ''] = money.replaceAll(',', '').split('.');
  const sign = whole.startsWith('-') ? -1 : 1;
  return sign * (Math.abs(Number(whole)) * 100 + Number(fraction.padEnd(2, '0')));
}

interface History {
  deal: { id: string; external_id: string; close_date: string; custom: Record<string, unknown> };
  earnings: Array<{ id: string; amount: number; period: string; locked_at: string; status: 'approved' | 'paid' }>;
  deal_events: Array<{ id: string; occurred_at: string; field: string; old: unknown; new: unknown }>;
}

function workedExample(): Schedule {
  const read = readPolicyFile(section('policy'));
  assert.ok(read.ok, 'the policy of the page is valid');
  const history = parse(section('history')) as History;
  const rows: LedgerRowForBooks[] = history.earnings.map((earning) => ({
    id: earning.id,
    line_key: 'rep-1/core-ae/base/opp-2001',
    user_external_id: 'rep-1',
    deal_id: history.deal.id,
    deal_external_id: history.deal.external_id,
    deal_close_date: history.deal.close_date,
    deal_custom: history.deal.custom,
    plan_key: 'core-ae',
    chip_key: 'base',
    amount_minor: Math.round(earning.amount * 100),
    currency: 'USD',
    status: earning.status,
    period_id: earning.period,
    period_ends_on: `${earning.period}-28`,
    period_locked_at: earning.locked_at,
    status_changed_at: earning.locked_at,
  }));
  const changes = history.deal_events.map((event) => ({
    id: event.id,
    deal_id: history.deal.id,
    changes: [{ field: event.field, old: event.old, new: event.new }],
    occurred_at: event.occurred_at,
    created_at: event.occurred_at,
  }));
  const { assets } = booksFromLedger(
    rows,
    changes,
    [{ number: 1, policy: read.policy, created_at: '2026-01-01T00:00:00.000Z' }],
    [],
  );
  const [asset] = assets;
  assert.ok(asset && assets.length === 1);
  const schedule = buildSchedule(asset.input, asset.policy, []);
  assert.ok(schedule);
  return schedule;
}

describe('the worked example of docs/accounting.md', () => {
  const schedule = workedExample();

  test('the schedule is the one on the page, month by month', () => {
    const expected = tableRows(section('schedule')).flatMap(
      ([months = '', opening = '', additions = '', amortisation = '', closing = '']) => {
        const [from = '', to = from] = months.split(' to ');
        const range = monthsBetween(from, to);
        return range.map((month, index) => ({
          month,
          opening: index === 0 ? cents(opening) : null,
          additions: index === 0 ? cents(additions) : 0,
          amortisation: cents(amortisation),
          closing: index === range.length - 1 ? cents(closing) : null,
        }));
      },
    );
    assert.deepEqual(
      schedule.months.map((month, index) => ({
        month: month.month,
        opening: expected[index]?.opening === null ? null : month.opening_minor,
        additions: month.additions_minor,
        amortisation: month.amortisation_minor,
        closing: expected[index]?.closing === null ? null : month.closing_minor,
      })),
      expected,
    );
    assert.equal(schedule.months.at(-1)?.month, addMonths('2026-01', 47));
    assert.equal(schedule.capitalised_minor, 800_000);
  });

  test('the journal entries of the three months are the ones on the page', () => {
    const expected = tableRows(section('journal')).map(([month, entry, account, debit = '', credit = '']) => [
      month,
      entry,
      account,
      cents(debit),
      cents(credit),
    ]);
    const months = [...new Set(expected.map(([month]) => month as string))];
    const computed = months.flatMap((month) =>
      journal([schedule], month).flatMap((entry) =>
        entry.lines.map((line) => [month, entry.kind, line.account, line.debit_minor, line.credit_minor]),
      ),
    );
    assert.deepEqual(computed, expected);
  });

  test('each month of the schedule says how to recompute its amortisation', () => {
    const july = schedule.months.find((month) => month.month === '2026-07');
    assert.deepEqual(july?.trace, [
      'True-up USD -2,000.00: earning earn_b, approved when period 2026-07 locked.',
      'Plan from 2026-07: USD 6,333.38 over 2026-07 to 2028-12, total weight 30 months; each month floor(633338 × weight ÷ 30) minor units, the last month the rest.',
      'Amortisation floor(633338 × 1 ÷ 30) = 21111: USD 211.11.',
    ]);
  });
});
