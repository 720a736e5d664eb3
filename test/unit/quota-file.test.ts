import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  amountInMinorUnits,
  quotaFileHeader,
  quotaFileRow,
  quotaStartProblem,
} from '../../src/domain/imports/quotaRows.ts';

// The quota file's rows (docs/quotas.md, "Uploading a quota file"), checked one by one before anything applies.

const header = (...fields: string[]) => quotaFileHeader({ line: 1, fields });
const columnsOf = (...fields: string[]) => {
  const read = header(...fields);
  assert.ok('columns' in read);
  return read.columns;
};

describe('the quota file header', () => {
  test('names its columns in any order and any case; refuses unknown, repeated or missing ones', () => {
    assert.ok('columns' in header('Quota', 'plan_key', 'REP_EXTERNAL_ID', 'from'));
    const problem = (read: ReturnType<typeof header>) => ('problem' in read ? read.problem.message : '');
    assert.match(problem(header('rep_external_id', 'amount')), /unknown column "amount"/);
    assert.match(problem(header('rep_external_id', 'start_date', 'start_date')), /start_date is repeated/);
    assert.match(problem(header('plan_key', 'from', 'quota')), /no rep_external_id column/);
    assert.match(problem(header('rep_external_id')), /needs plan_key .*, start_date or display_name/);
    assert.ok('columns' in header('rep_external_id', 'display_name'));
    assert.match(problem(header('rep_external_id', 'plan_key', 'quota')), /needs from and quota/);
  });
});

describe('a quota file row', () => {
  const columns = columnsOf('rep_external_id', 'plan_key', 'from', 'quota', 'start_date');
  const row = (line: number, ...fields: string[]) => quotaFileRow({ line, fields }, columns);

  test('sets a quota, the plan quota again, a start date, or clears it', () => {
    assert.deepEqual(row(2, 'rep-1', 'core', '2026-01-01', '120000.50', ''), {
      line: 2,
      rep_external_id: 'rep-1',
      quota: { plan_key: 'core', from: '2026-01-01', amount: '120000.50' },
    });
    assert.deepEqual(row(3, ' rep-2 ', 'core', '2026-04-01', 'PLAN', '2026-02-09'), {
      line: 3,
      rep_external_id: 'rep-2',
      quota: { plan_key: 'core', from: '2026-04-01', amount: null },
      start_date: '2026-02-09',
    });
    assert.deepEqual(row(4, 'rep-3', '', '', '', 'none'), { line: 4, rep_external_id: 'rep-3', start_date: null });
  });

  test('names what is wrong with a row, by line', () => {
    const message = (read: ReturnType<typeof row>) => ('message' in read ? `${read.line}: ${read.message}` : '');
    assert.match(message(row(2, '', 'core', '2026-01-01', '1', '')), /^2: rep_external_id: must be/);
    assert.match(message(row(3, 'rep', 'core', '2026-02-30', '1', '')), /^3: from: "2026-02-30" is not a day/);
    assert.match(message(row(4, 'rep', 'core', '2026-01-01', '1,000', '')), /^4: quota: "1,000" is not an amount/);
    assert.match(message(row(5, 'rep', 'core', '2026-01-01', '', '')), /^5: quota: missing/);
    assert.match(message(row(6, 'rep', '', '2026-01-01', '5', '')), /^6: plan_key: missing/);
    assert.match(message(row(7, 'rep', '', '', '', 'soon')), /^7: start_date: "soon" is not a day/);
    assert.match(message(row(8, 'rep', '', '', '', '')), /^8: the row sets nothing/);
  });
});

describe('the display_name column', () => {
  const columns = columnsOf('rep_external_id', 'start_date', 'display_name');
  const row = (line: number, ...fields: string[]) => quotaFileRow({ line, fields }, columns);

  test('names the rep as an admin would, kept trimmed with single spaces; an empty cell leaves the name alone', () => {
    assert.deepEqual(row(2, 'rep-1', '', '  Dana   Reyes '), {
      line: 2,
      rep_external_id: 'rep-1',
      display_name: 'Dana Reyes',
    });
    assert.deepEqual(row(3, 'rep-2', '2026-02-09', ''), {
      line: 3,
      rep_external_id: 'rep-2',
      start_date: '2026-02-09',
    });
    const message = (read: ReturnType<typeof row>) => ('message' in read ? `${read.line}: ${read.message}` : '');
    assert.match(message(row(4, 'rep-3', '', 'x'.repeat(201))), /^4: display_name: must be at most 200 characters/);
    assert.match(message(row(5, 'rep-4', '', '   ')), /^5: the row sets nothing/);
  });
});

describe('amounts and days', () => {
  test("an amount in major units becomes minor units of the plan's currency, within its decimals", () => {
    assert.equal(amountInMinorUnits('120000.5', 2), 12_000_050);
    assert.equal(amountInMinorUnits('120000', 0), 120_000);
    assert.match(
      String(amountInMinorUnits('1.234', 2)),
      /"1\.234" has 3 decimals: the plan's currency takes at most 2/,
    );
    assert.match(String(amountInMinorUnits('0.00', 2)), /more than 0/);
    assert.match(String(amountInMinorUnits('9999999999999999', 2)), /too large/);
  });

  test("a quota starts on a period's first day", () => {
    assert.equal(quotaStartProblem('2026-05-01', 'monthly'), null);
    assert.equal(quotaStartProblem('2026-07-01', 'quarterly'), null);
    assert.match(String(quotaStartProblem('2026-05-02', 'monthly')), /not the first day of a month/);
    assert.match(String(quotaStartProblem('2026-05-01', 'quarterly')), /not the first day of a quarter/);
  });
});
