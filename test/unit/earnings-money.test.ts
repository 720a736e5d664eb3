import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import {
  exactCentsString,
  exactRate,
  formatExactMoney,
  formatMoney,
  formatRate,
  formatRatioAsPercent,
  fractionOfDecimal,
  rateOfWholeBps,
  roundExactCents,
  roundHalfAwayFromZero,
} from '../../src/domain/earnings/money.ts';

describe('rounding half away from zero', () => {
  test('ties go away from zero, on both sides of it', () => {
    assert.equal(roundHalfAwayFromZero(5n, 2n), 3n);
    assert.equal(roundHalfAwayFromZero(-5n, 2n), -3n);
    assert.equal(roundHalfAwayFromZero(1n, 2n), 1n);
    assert.equal(roundHalfAwayFromZero(-1n, 2n), -1n);
    assert.equal(roundHalfAwayFromZero(7n, 4n), 2n);
    assert.equal(roundHalfAwayFromZero(5n, 4n), 1n);
    assert.equal(roundHalfAwayFromZero(-5n, 4n), -1n);
    assert.equal(roundHalfAwayFromZero(-7n, 4n), -2n);
    assert.equal(roundHalfAwayFromZero(5n, -2n), -3n);
    assert.equal(roundHalfAwayFromZero(0n, 3n), 0n);
  });

  test('a rate of a few cents rounds once, at the end: 10% of 0.05 is 0.005, which rounds to 0.01', () => {
    const exact = exactRate(5n, rateOfWholeBps(1000n));
    assert.equal(exactCentsString(exact), '0.5');
    assert.equal(roundExactCents(exact), 1n);
    assert.equal(roundExactCents(-exact), -1n);
    assert.equal(roundExactCents(exactRate(4n, rateOfWholeBps(1000n))), 0n);
    assert.equal(roundExactCents(exactRate(-4n, rateOfWholeBps(1000n))), 0n);
  });

  test('for any fraction, the rounded value is within half of it and symmetric around zero', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }),
        fc.bigInt({ min: 1n, max: 10n ** 6n }),
        (n, d) => {
          const rounded = roundHalfAwayFromZero(n, d);
          const error = rounded * d - n;
          assert.ok(2n * (error < 0n ? -error : error) <= d);
          assert.equal(roundHalfAwayFromZero(-n, d), -rounded);
          if (2n * (error < 0n ? -error : error) === d) assert.ok(rounded < 0n ? error < 0n : error > 0n);
        },
      ),
    );
  });
});

describe('money for people and for the contract', () => {
  test('cents show as amounts with thousands separators', () => {
    assert.equal(formatMoney(5_000_000n), '50,000.00');
    assert.equal(formatMoney(0n), '0.00');
    assert.equal(formatMoney(7n), '0.07');
    assert.equal(formatMoney(-1_050n), '-10.50');
    assert.equal(formatMoney(123_456_789_01n), '123,456,789.01');
  });

  test('exact amounts keep the fraction of a cent the rounding removes', () => {
    assert.equal(formatExactMoney(exactRate(5_000_000n, rateOfWholeBps(1000n))), '5,000.00');
    assert.equal(formatExactMoney(exactRate(5n, rateOfWholeBps(1000n))), '0.005');
    assert.equal(formatExactMoney(exactRate(-123n, rateOfWholeBps(1n))), '-0.000123');
    assert.equal(exactCentsString(exactRate(5_000_000n, rateOfWholeBps(1000n))), '500000');
    assert.equal(exactCentsString(exactRate(-123n, rateOfWholeBps(1n))), '-0.0123');
    assert.equal(exactCentsString(0n), '0');
  });

  test('rates in basis points show as percentages', () => {
    assert.equal(formatRate(1000n), '10.00%');
    assert.equal(formatRate(1n), '0.01%');
    assert.equal(formatRate(12_345n), '123.45%');
    assert.equal(formatRatioAsPercent(11_000_000n, 10_000_000n), '110.00%');
    assert.equal(formatRatioAsPercent(2n, 3n), '66.67%');
  });

  test('a percentage written in decimal is read exactly, not as the nearest double', () => {
    assert.deepEqual(fractionOfDecimal(100), { numerator: 100n, denominator: 1n });
    assert.deepEqual(fractionOfDecimal(87.5), { numerator: 875n, denominator: 10n });
    assert.deepEqual(fractionOfDecimal(0.1), { numerator: 1n, denominator: 10n });
    assert.deepEqual(fractionOfDecimal(1e21), { numerator: 10n ** 21n, denominator: 1n });
    assert.deepEqual(fractionOfDecimal(1.5e-7), { numerator: 15n, denominator: 10n ** 8n });
    assert.throws(() => fractionOfDecimal(Number.NaN), RangeError);
  });
});
