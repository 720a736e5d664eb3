import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { adjustmentProblem, readAdjustmentFile } from '../../src/domain/adjustments.ts';
import { Refusal } from '../../src/domain/refusal.ts';

// What an admin may add, and how an adjustments file is read row by row (pure; the service resolves and writes).

const HEADER = 'idempotency_key,user_external_id,period_id,amount_cents,currency,category,reason,deal_external_id';

describe('an adjustment', () => {
  test.each([
    [{ amount_cents: 100, category: 'one_off_bonus', reason: 'x' }, null],
    [{ amount_cents: -100, category: 'correction', reason: 'x' }, null],
    [{ amount_cents: -100, category: 'deduction', reason: 'x' }, null],
    [{ amount_cents: 100, category: 'deduction', reason: 'x' }, 'amount_cents: a deduction must be negative'],
    [
      { amount_cents: -1, category: 'guarantee', reason: 'x' },
      'amount_cents: a guarantee adds to pay and must be positive (a correction may be negative)',
    ],
    [{ amount_cents: 0.5, category: 'correction', reason: 'x' }, 'amount_cents: must be a whole number of minor units'],
    [
      { amount_cents: 100, category: 'gift', reason: 'x' },
      'category: "gift" is not one of one_off_bonus, correction, guarantee, deduction',
    ],
    [{ amount_cents: 100, category: 'correction', reason: ' ' }, 'reason: must not be empty'],
  ])('%j: %s', (draft, problem) => {
    assert.equal(adjustmentProblem(draft), problem);
  });
});

describe('an adjustments file', () => {
  test('each row is read on its own, quoted fields and optional columns included, a repeated key refused on its line', async () => {
    const entries = await readAdjustmentFile(
      [
        HEADER,
        'a,rep-1,2026-04,100,,correction,"Fixed, at last",',
        'b,rep-1,2026-13,100,USD,correction,bad month,',
        'a,rep-2,2026-04,5,EUR,one_off_bonus,again,opp-1',
      ].join('\r\n'),
    );
    assert.deepEqual(entries, [
      {
        line: 2,
        idempotency_key: 'a',
        user_external_id: 'rep-1',
        period_id: '2026-04',
        amount_cents: 100,
        currency: null,
        category: 'correction',
        reason: 'Fixed, at last',
        deal_external_id: null,
        counts_toward_attainment: false,
      },
      { line: 3, refusal: 'period_id: "2026-13" is not YYYY-MM (a month) or YYYY-Qn (a quarter)' },
      { line: 4, refusal: 'idempotency_key: a is used on line 2 too' },
    ]);
  });

  test('the counts_toward_attainment column is true or false, false when empty; anything else refuses its row', async () => {
    const entries = await readAdjustmentFile(
      [
        `${HEADER},counts_toward_attainment`,
        'a,rep-1,2026-04,100,,correction,counts,,TRUE',
        'b,rep-1,2026-04,100,,correction,does not,,false',
        'c,rep-1,2026-04,100,,correction,empty,,',
        'd,rep-1,2026-04,100,,correction,unclear,,yes',
      ].join('\n'),
    );
    assert.deepEqual(
      entries.map((entry) => ('refusal' in entry ? entry.refusal : entry.counts_toward_attainment)),
      [true, false, false, 'counts_toward_attainment: "yes" is not true or false'],
    );
  });

  test.each([
    ['idempotency_key,amount_cents\nx,1\n'],
    [`${HEADER},notes\n`],
    [''],
    [`${HEADER}\n"unterminated,rep-1\n`],
  ])('a file whose header or text is wrong is refused whole: %j', async (text) => {
    await assert.rejects(
      readAdjustmentFile(text),
      (error: unknown) => error instanceof Refusal && error.code === 'invalid_body',
    );
  });
});
