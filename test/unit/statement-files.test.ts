import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { plainDecimal } from '../../src/domain/earnings/money.ts';
import type { Statement } from '../../src/domain/earnings/statement.ts';
import { statementCsv, statementFileName } from '../../src/domain/earnings/statementCsv.ts';
import { statementPdfDocument } from '../../src/domain/earnings/statementPdf.ts';

// A statement's CSV file: amounts in the currency's own decimals, text a spreadsheet would run defused, quoting.

function statement(currency: string, dealExternalId: string, amountCents: number): Statement {
  const line = {
    earning_id: 'earn_01kwq3m7a0f5b8k2x9y4z6c1d3',
    status: 'pending' as const,
    amount_cents: amountCents,
    pricing: 'priced' as const,
    deal_id: 'deal_01kwq3m79zf5b8k2x9y4z6c1d2',
    deal_external_id: dealExternalId,
    rule_chip_id: 'chip_01kjsj7s80f46tah0m36zt24hj',
    chip_key: 'base',
    chip_name: 'Base, "core"',
    chip_kind: 'commission' as const,
    explanation: 'Base commission: 10.00% of 60,000 = 6,000.',
  };
  const totals = { projected_cents: 0, pending_cents: amountCents, approved_cents: 0, paid_cents: 0 };
  return {
    user: {
      id: 'user_01knvyqwr3fmtr77g6vdncr588',
      external_id: 'rep/017 ü',
      display_name: null,
      created_at: '2026-04-10T15:04:05.120Z',
    },
    period: { id: '2026-05', kind: 'monthly', starts_on: '2026-05-01', ends_on: '2026-05-31', status: 'open' },
    plans: [
      {
        plan_id: 'plan_01kjsj7s80fmtryrzh7j1q721q',
        plan_key: 'core',
        plan_name: 'Core',
        currency,
        attainment: { won_cents: 0, quota_cents: null, percent: null },
        lines: [line],
        adjustments: [],
        draw: null,
        totals,
        payable_cents: amountCents,
      },
    ],
    totals,
    by_currency: [{ currency, totals, manual_adjustments_cents: 0, payable_cents: amountCents }],
    manual_adjustments: [],
    manual_adjustments_cents: 0,
    held_pending_acceptance_cents: 0,
    payable_cents: amountCents,
  } as Statement;
}

describe('statement files', () => {
  test.each([
    [600000n, 2, '6000.00'],
    [-1050n, 2, '-10.50'],
    [5000n, 0, '5000'],
    [1500n, 3, '1.500'],
  ])('plainDecimal(%s, %s) is %s', (cents, exponent, expected) => {
    assert.equal(plainDecimal(cents, exponent), expected);
  });

  test('a yen amount has no decimals; quotes and commas are quoted; a formula is defused', () => {
    const [header, row] = statementCsv(statement('JPY', '=cmd|calc', 600000)).split('\r\n');
    assert.equal(header?.split(',').length, 14);
    assert.equal(
      row,
      '2026-05,core,Core,JPY,line,,earn_01kwq3m7a0f5b8k2x9y4z6c1d3,pending,\'=cmd|calc,base,"Base, ""core""",600000,600000,"Base commission: 10.00% of 60,000 = 6,000."',
    );
  });

  test('the PDF names the rep by display name with their external id, else by external id', () => {
    const base = statement('USD', 'opp-1', 1);
    const at = new Date('2026-06-01T00:00:00Z');
    assert.equal(statementPdfDocument(base, at).subtitle, 'rep/017 ü');
    const named = { ...base, user: { ...base.user, display_name: 'Dana Reyes' } };
    const document = statementPdfDocument(named, at);
    assert.equal(document.subtitle, 'Dana Reyes (rep/017 ü)');
    const facts = document.blocks[0];
    assert.ok(facts?.kind === 'keyValues');
    assert.deepEqual(facts.rows[0], { key: 'Rep', value: 'Dana Reyes (rep/017 ü)' });
    // The file name keeps the external id: it is stable whatever the rep is called.
    assert.equal(statementFileName(named, 'pdf'), 'statement-rep_017_-2026-05.pdf');
  });

  test('the file name keeps only safe characters of the rep', () => {
    assert.equal(statementFileName(statement('USD', 'opp-1', 1), 'pdf'), 'statement-rep_017_-2026-05.pdf');
  });

  test('a manual adjustment is a row of its own, beside the plans, in its currency’s decimals', () => {
    const base = statement('EUR', 'opp-1', 600000);
    const adjusted = {
      ...base,
      manual_adjustments: [
        {
          id: 'adj_01kwq3m7a0f5b8k2x9y4z6c1d4',
          user_id: base.user.id,
          user_external_id: base.user.external_id,
          period_id: '2026-05',
          amount_cents: -12550,
          currency: 'EUR',
          category: 'deduction',
          reason: '=Equipment not returned',
          deal_id: null,
          status: 'pending',
          voids_id: null,
          voided_by_id: null,
        },
      ],
    } as unknown as Statement;
    const rows = statementCsv(adjusted).trimEnd().split('\r\n');
    assert.equal(rows.length, 3);
    assert.equal(
      rows[2],
      "2026-05,,,EUR,manual_adjustment,,adj_01kwq3m7a0f5b8k2x9y4z6c1d4,pending,,deduction,,-12550,-125.50,'=Equipment not returned",
    );
  });
});
