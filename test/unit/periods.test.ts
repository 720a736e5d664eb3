import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import {
  calendarDateOfInstant,
  comparePeriodIds,
  isCalendarDate,
  isPeriodId,
  nextPeriodId,
  parsePeriodId,
  periodBounds,
  periodIdOf,
  periodKindOf,
} from '../../src/domain/periods.ts';

describe('period ids', () => {
  test('a date falls in the month and the quarter that contain it', () => {
    assert.equal(periodIdOf('2026-04-10', 'monthly'), '2026-04');
    assert.equal(periodIdOf('2026-04-10', 'quarterly'), '2026-Q2');
    assert.equal(periodIdOf('2026-03-31', 'quarterly'), '2026-Q1');
    assert.equal(periodIdOf('2026-10-01', 'quarterly'), '2026-Q4');
    assert.equal(periodIdOf('2026-12-31', 'monthly'), '2026-12');
  });

  test('ids are parsed into kind, year and index, and anything else is refused', () => {
    assert.deepEqual(parsePeriodId('2026-04'), { kind: 'monthly', year: 2026, index: 4 });
    assert.deepEqual(parsePeriodId('2026-Q2'), { kind: 'quarterly', year: 2026, index: 2 });
    for (const bad of [
      '2026-4',
      '2026-13',
      '2026-00',
      '2026-Q5',
      '2026-Q0',
      '2026-q2',
      '26-04',
      '0000-01',
      '2026-04-01',
      '',
    ]) {
      assert.equal(parsePeriodId(bad), null, bad);
      assert.equal(isPeriodId(bad), false, bad);
    }
    assert.equal(periodKindOf('2026-Q3'), 'quarterly');
    assert.throws(() => periodKindOf('2026-Q9'), RangeError);
  });

  test('a period starts on its first day and ends on its last, leap years included', () => {
    assert.deepEqual(periodBounds('2026-04'), { starts_on: '2026-04-01', ends_on: '2026-04-30' });
    assert.deepEqual(periodBounds('2026-02'), { starts_on: '2026-02-01', ends_on: '2026-02-28' });
    assert.deepEqual(periodBounds('2028-02'), { starts_on: '2028-02-01', ends_on: '2028-02-29' });
    assert.deepEqual(periodBounds('2100-02'), { starts_on: '2100-02-01', ends_on: '2100-02-28' });
    assert.deepEqual(periodBounds('2000-02'), { starts_on: '2000-02-01', ends_on: '2000-02-29' });
    assert.deepEqual(periodBounds('2026-Q1'), { starts_on: '2026-01-01', ends_on: '2026-03-31' });
    assert.deepEqual(periodBounds('2026-Q4'), { starts_on: '2026-10-01', ends_on: '2026-12-31' });
  });

  test('the next period rolls over the year end', () => {
    assert.equal(nextPeriodId('2026-04'), '2026-05');
    assert.equal(nextPeriodId('2026-12'), '2027-01');
    assert.equal(nextPeriodId('2026-Q3'), '2026-Q4');
    assert.equal(nextPeriodId('2026-Q4'), '2027-Q1');
  });

  test('periods order by their first day, and a month before the quarter that starts with it', () => {
    const sorted = ['2027-01', '2026-Q2', '2026-12', '2026-04', '2026-Q1', '2026-05'].sort(comparePeriodIds);
    assert.deepEqual(sorted, ['2026-Q1', '2026-04', '2026-Q2', '2026-05', '2026-12', '2027-01']);
    assert.equal(comparePeriodIds('2026-04', '2026-04'), 0);
  });

  test('calendar dates are real UTC dates', () => {
    assert.equal(isCalendarDate('2028-02-29'), true);
    assert.equal(isCalendarDate('2026-02-29'), false);
    assert.equal(isCalendarDate('2026-04-31'), false);
    assert.equal(isCalendarDate('2026-4-1'), false);
    assert.throws(() => periodIdOf('2026-02-30', 'monthly'), RangeError);
  });

  test('a timestamp counts on its UTC date, whatever offset it was written with', () => {
    assert.equal(calendarDateOfInstant('2026-04-30T23:30:00.000Z'), '2026-04-30');
    assert.equal(calendarDateOfInstant('2026-04-30T23:30:00-02:00'), '2026-05-01');
    assert.equal(calendarDateOfInstant('2026-05-01T00:30:00+02:00'), '2026-04-30');
    assert.throws(() => calendarDateOfInstant('yesterday'), RangeError);
  });
});

describe('period maths, for any date', () => {
  const dates = fc
    .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T00:00:00Z'), noInvalidDate: true })
    .map((date) => date.toISOString().slice(0, 10));
  const kinds = fc.constantFrom('monthly' as const, 'quarterly' as const);

  test('the period of a date contains it, and its id round-trips', () => {
    fc.assert(
      fc.property(dates, kinds, (date, kind) => {
        const id = periodIdOf(date, kind);
        const { starts_on, ends_on } = periodBounds(id);
        assert.ok(starts_on <= date && date <= ends_on);
        assert.equal(parsePeriodId(id)?.kind, kind);
        assert.equal(periodIdOf(starts_on, kind), id);
        assert.equal(periodIdOf(ends_on, kind), id);
      }),
    );
  });

  test('the next period starts the day after this one ends', () => {
    fc.assert(
      fc.property(dates, kinds, (date, kind) => {
        const id = periodIdOf(date, kind);
        const next = nextPeriodId(id);
        const dayAfter = new Date(Date.parse(`${periodBounds(id).ends_on}T00:00:00Z`) + 86_400_000);
        assert.equal(periodBounds(next).starts_on, dayAfter.toISOString().slice(0, 10));
        assert.ok(comparePeriodIds(id, next) < 0);
      }),
    );
  });
});
