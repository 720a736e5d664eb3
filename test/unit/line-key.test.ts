import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { lineKeyOf, parseLineKey } from '../../src/domain/earnings/lineKeys.ts';
import { newId } from '../../src/lib/ids.ts';
import { testId } from '../factories/earnings.ts';

// A row's line key is read back into its parts (tests and tools ask whose line a row is on) with the parser
// beside `lineKeyOf`, never by splitting it by hand.

const plan_id = newId('plan');
const chip_id = newId('chip');
const user_id = newId('user');

describe('parseLineKey', () => {
  test.each([
    { line: 'a deal-level line', deal_id: newId('deal'), period_id: null },
    {
      line: 'a deal-level line of a test id (a run of zeros)',
      deal_id: testId('deal', 1),
      period_id: null,
    },
    { line: 'a monthly period-level line', deal_id: null, period_id: '2026-04' },
    { line: 'a quarterly period-level line', deal_id: null, period_id: '2026-Q2' },
    { line: 'a period-level line in the first allowed year', deal_id: null, period_id: '0001-12' },
    { line: "a deal's release line of one period (pay on cash)", deal_id: newId('deal'), period_id: '2026-05' },
  ])('when the key is of $line, then it parses back into the parts it was made from', ({ deal_id, period_id }) => {
    const parts = { plan_id, chip_id, user_id, deal_id, period_id };
    assert.deepEqual(parseLineKey(lineKeyOf(parts)), parts);
  });

  test.each([
    { key: '', problem: 'empty' },
    { key: `${plan_id}:${chip_id}:${user_id}`, problem: 'missing its last part' },
    { key: `${plan_id}:${chip_id}::2026-04`, problem: 'missing its user' },
    { key: `${plan_id}:${chip_id}:${user_id}:2026-04:extra`, problem: 'one part too many' },
  ])('when the key is $problem, then it is refused by name', ({ key }) => {
    assert.throws(() => parseLineKey(key), { message: `Not a line key: ${JSON.stringify(key)}` });
  });
});
