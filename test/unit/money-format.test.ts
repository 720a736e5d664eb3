import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { formatMinorUnits } from '../../src/domain/currencies.ts';
import { formatDecimalAmount, formatExactMoney, formatMoney, plainDecimal } from '../../src/domain/earnings/money.ts';
import { describeChip } from '../../src/domain/plans/describe.ts';

// The one money formatter the server, the console and the portal share: the currency's ISO 4217 decimals, en-US
// grouping, exact for amounts beyond a double.

describe('formatMinorUnits', () => {
  test.each([
    [123456, 'EUR', 'symbol', '€1,234.56'],
    [123456, 'EUR', 'code', 'EUR 1,234.56'],
    [-1050, 'USD', 'symbol', '-$10.50'],
    [5000, 'JPY', 'symbol', '¥5,000'],
    [5000, 'JPY', 'code', 'JPY 5,000'],
    [1234567, 'KWD', 'code', 'KWD 1,234.567'],
    [1234567, 'KWD', 'symbol', 'KWD 1,234.567'],
    // ISO 4217 gives the Iraqi dinar three decimals where browsers' locale data (CLDR) shows none.
    [1500, 'IQD', 'code', 'IQD 1.500'],
    [0, 'USD', 'symbol', '$0.00'],
  ] as const)('(%s, %s, %s) is %s', (amount, code, display, expected) => {
    assert.equal(formatMinorUnits(amount, code, display).replace(/\u00a0/g, ' '), expected);
  });

  test('a bigint past what a double holds exactly is written to the last minor unit', () => {
    assert.equal(formatMinorUnits(123456789012345678901n, 'USD', 'symbol'), '$1,234,567,890,123,456,789.01');
    assert.equal(formatMoney(-900719925474099312n), '-9,007,199,254,740,993.12');
  });

  test('an exact amount keeps the decimals the rounding removes, at least the currency’s', () => {
    assert.equal(formatExactMoney(500_000n, 2), '0.005');
    assert.equal(formatExactMoney(500_000_000_000_000n, 2), '5,000,000.00');
    assert.equal(formatExactMoney(12_500_000n, 0), '12.5');
    assert.equal(formatExactMoney(-5_000_000_000n, 0), '-5,000');
  });

  test('formatMoney and formatExactMoney write what Intl.NumberFormat in en-US writes for the same digits', () => {
    let seed = 43n;
    const next = () => {
      seed = (seed * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
      return seed;
    };
    for (let case_ = 0; case_ < 2_000; case_++) {
      const magnitude = next() % 10n ** (next() % 22n);
      const value = next() % 2n === 0n ? magnitude : -magnitude;
      const exponent = Number(next() % 4n);
      assert.equal(
        formatMoney(value, exponent),
        formatDecimalAmount(plainDecimal(value, exponent), { min: exponent, max: exponent }),
      );
      assert.equal(
        formatExactMoney(value, exponent),
        formatDecimalAmount(plainDecimal(value, exponent + 6), { min: exponent, max: exponent + 6 }),
      );
    }
  });

  test('a chip summary names its amounts in the plan’s currency', () => {
    const flat = { key: 'spiff', name: 'Spiff', kind: 'flat', params: { amount_cents: 50000 } } as const;
    assert.equal(describeChip(flat as never, 'JPY'), 'Flat amount: JPY 50,000 per deal');
    assert.equal(describeChip(flat as never, 'EUR'), 'Flat amount: EUR 500.00 per deal');
  });
});
