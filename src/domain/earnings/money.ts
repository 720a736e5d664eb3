// Exact money arithmetic for the chip engine: amounts are integer cents, rates integer hundredths of a basis
// point, and a line is rounded once, at the end, half away from zero. Intermediate values are BigInt so that
// nothing is lost to floating point before that single rounding.

/**
 * An exact, unrounded amount of cents held as an integer count of millionths of a cent. Every rate the engine
 * applies is cents × hundredths of a basis point / 1,000,000, so this scale holds it exactly.
 */
export type ExactCents = bigint;

export const EXACT_SCALE = 1_000_000n;

export function exactFromCents(cents: bigint): ExactCents {
  return cents * EXACT_SCALE;
}

/**
 * A chip's rate as the engine holds it: an integer count of hundredths of a basis point (a millionth), so that a
 * plan file's `rate_bps: 1000` (10%) is 100000 and `rate_bps: 133.33` (1.3333%) is 13333.
 */
export type Rate = bigint;

const RATE_UNITS_PER_BPS = 100n;

/** Whole basis points (shares, plain rates) as a rate. */
export function rateOfWholeBps(bps: bigint): Rate {
  return bps * RATE_UNITS_PER_BPS;
}

/**
 * A plan file's `rate_bps` (a JSON number with at most two decimals) as a rate, read from its decimal digits, not
 * from the binary double nearest to it; `null` when it has more than two decimals or is negative.
 */
export function rateOfBps(value: number): Rate | null {
  if (!Number.isFinite(value) || value < 0) return null;
  const { numerator, denominator } = fractionOfDecimal(value);
  const units = numerator * RATE_UNITS_PER_BPS;
  return units % denominator === 0n ? units / denominator : null;
}

/** A rate as the trace's `rate_bps`: basis points as a JSON number (`1000`, `133.33`). */
export function rateOnWire(rate: Rate): number {
  return Number(plainDecimal(rate, 2));
}

/** `base_cents` × rate, exactly (a rate of 1000 bps on 5 cents is 0.5 cents). */
export function exactRate(baseCents: bigint, rate: Rate): ExactCents {
  return baseCents * rate;
}

/** numerator / denominator rounded to an integer, ties away from zero (so −0.5 → −1, 2.5 → 3). */
export function roundHalfAwayFromZero(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError('division by zero');
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = n / d;
  const rounded = (n % d) * 2n >= d ? quotient + 1n : quotient;
  return negative ? -rounded : rounded;
}

export function roundExactCents(exact: ExactCents): bigint {
  return roundHalfAwayFromZero(exact, EXACT_SCALE);
}

/** Whole cents as the JSON number the API and the database driver carry; refuses what a double cannot hold. */
export function centsAsNumber(cents: bigint): number {
  const value = Number(cents);
  if (!Number.isSafeInteger(value)) throw new RangeError(`${cents} cents is beyond what an amount can hold`);
  return value;
}

/**
 * A running total (or a band bound derived from one) as the trace carries it: a JSON number while it is exact
 * in one (up to 2^53 − 1), else the exact value as a decimal string. Totals are never capped or rounded.
 */
export function runningTotalOnWire(cents: bigint): number | string {
  return cents <= BigInt(Number.MAX_SAFE_INTEGER) && cents >= -BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(cents)
    : cents.toString();
}

/** True when a total is past what `runningTotalOnWire` can give as a number. */
export function isBeyondNumberRange(cents: bigint): boolean {
  return typeof runningTotalOnWire(cents) === 'string';
}

/**
 * A non-negative or negative integer as `int.fraction` with `decimals` digits, trailing zeros kept; the whole part as
 * its digits. Cut from the magnitude's digits rather than divided: traces format several amounts per row.
 */
function fixedPoint(value: bigint, decimals: number): { sign: string; whole: string; fraction: string } {
  const sign = value < 0n ? '-' : '';
  const digits = (value < 0n ? -value : value).toString().padStart(decimals + 1, '0');
  const cut = digits.length - decimals;
  return { sign, whole: digits.slice(0, cut), fraction: digits.slice(cut) };
}

/** Minor units as a plain decimal for files machines read: no grouping, `.` as the separator (−1050, 2 → `-10.50`). */
export function plainDecimal(cents: bigint, exponent = 2): `${number}` {
  const { sign, whole, fraction } = fixedPoint(cents, exponent);
  return `${sign}${whole}${exponent === 0 ? '' : `.${fraction}`}` as `${number}`;
}

/** The contract's `DecimalCents`: exact cents as a decimal string without trailing zeros, `"50000"`, `"12.5"`. */
export function exactCentsString(exact: ExactCents): string {
  const { sign, whole, fraction } = fixedPoint(exact, 6);
  const trimmed = fraction.replace(/0+$/, '');
  if (whole === '0' && trimmed === '') return '0';
  return `${sign}${whole}${trimmed === '' ? '' : `.${trimmed}`}`;
}

const AMOUNT_FORMATS = new Map<string, Intl.NumberFormat>();

/**
 * The one way Quotient writes money for people (explanations, PDFs, the console and the portal): Intl.NumberFormat
 * in `en-US` (`,` between thousands, `.` before the decimals), given the exact amount as a decimal string so nothing
 * passes through a binary double. With `currency`, the currency's sign (`€1,234.56`); the decimals are always those
 * asked for, which callers take from the ISO 4217 table (currencies.ts), not from the browser's idea of them.
 */
export function formatDecimalAmount(
  decimal: `${number}`,
  decimals: { min: number; max: number },
  currency?: string,
): string {
  const key = `${decimals.min}:${decimals.max}:${currency ?? ''}`;
  let format = AMOUNT_FORMATS.get(key);
  if (format === undefined) {
    format = new Intl.NumberFormat('en-US', {
      ...(currency === undefined ? {} : { style: 'currency', currency }),
      minimumFractionDigits: decimals.min,
      maximumFractionDigits: decimals.max,
    });
    AMOUNT_FORMATS.set(key, format);
  }
  return format.format(decimal);
}

/**
 * Minor units as money for people, in the currency's decimals (`exponent`: 2 for USD, 0 for JPY, 3 for KWD):
 * 5000000 → `50,000.00`, −1050 → `-10.50`; with exponent 0, 500000 → `500,000`.
 */
export function formatMoney(cents: bigint, exponent = 2): string {
  const { sign, whole, fraction } = fixedPoint(cents, exponent);
  return `${sign}${grouped(whole)}${exponent === 0 ? '' : `.${fraction}`}`;
}

/**
 * The whole part's digits with `,` between thousands, as Intl.NumberFormat writes them in `en-US`. formatMoney and
 * formatExactMoney write their digits themselves, never rounding (the digits are exactly those the format keeps):
 * traces format several amounts per row, and Intl's formatting of a decimal string was the largest single cost of
 * an import's evaluation. test/unit/money-format.test.ts compares both with formatDecimalAmount.
 */
function grouped(whole: string): string {
  if (whole.length <= 3) return whole;
  const head = whole.length % 3 || 3;
  let out = whole.slice(0, head);
  for (let at = head; at < whole.length; at += 3) out += `,${whole.slice(at, at + 3)}`;
  return out;
}

/**
 * An exact amount as money, with as many decimals as it needs but at least the currency's, so explanations
 * never hide the part of a minor unit that the final rounding removes: `0.005`, `5,000.00`; with exponent 0,
 * `12.5`, `5,000`.
 */
export function formatExactMoney(exact: ExactCents, exponent = 2): string {
  const { sign, whole, fraction } = fixedPoint(exact, exponent + 6);
  let end = fraction.length;
  while (end > exponent && fraction.charCodeAt(end - 1) === 48) end--;
  return `${sign}${grouped(whole)}${end === 0 ? '' : `.${fraction.slice(0, end)}`}`;
}

/**
 * The decimals an explanation prints amounts with: those of the deal's currency (its amount, a split's shares)
 * and of the plan's (converted bases, earnings, quotas, caps).
 */
export interface AmountDecimals {
  deal: number;
  plan: number;
}

export const TWO_DECIMALS: AmountDecimals = { deal: 2, plan: 2 };

/** Basis points as a percentage with two decimals (exact, since 1 bp = 0.01%): 1000 → `10.00%`. */
export function formatRate(rateBps: bigint): string {
  const { sign, whole, fraction } = fixedPoint(rateBps, 2);
  return `${sign}${whole}.${fraction}%`;
}

/**
 * A chip's rate as a percentage, exact: two decimals for whole basis points (`10.00%`), up to four for finer ones
 * (133.33 bps → `1.3333%`).
 */
export function formatChipRate(rate: Rate): string {
  const { sign, whole, fraction } = fixedPoint(rate, 4);
  return `${sign}${whole}.${fraction.replace(/0{1,2}$/, '')}%`;
}

/** An exact rational; plan files give percentages as JSON numbers such as `100` or `87.5`. */
export interface Fraction {
  numerator: bigint;
  denominator: bigint;
}

/**
 * The exact value of a finite JSON number as written in decimal. `87.5` is 875/10, not the binary
 * double nearest to it, so `87.5%` of a quota is computed exactly.
 */
export function fractionOfDecimal(value: number): Fraction {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(value));
  if (!match) throw new RangeError(`not a decimal number: ${value}`);
  const [, sign = '', whole = '0', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText) - fraction.length;
  const digits = BigInt(`${sign}${whole}${fraction}`);
  return exponent >= 0
    ? { numerator: digits * 10n ** BigInt(exponent), denominator: 1n }
    : { numerator: digits, denominator: 10n ** BigInt(-exponent) };
}

/** A plan's percentage as people wrote it: `100%`, `87.5%`. */
export function formatPercent(value: number): string {
  return `${value}%`;
}

/**
 * part / whole as a percentage with two decimals, rounded half away from zero (for sentences only). A whole of 0 (a
 * quota of 0) is read as 0%.
 */
export function formatRatioAsPercent(part: bigint, whole: bigint): string {
  if (whole === 0n) return formatRate(0n);
  const hundredthsOfPercent = roundHalfAwayFromZero(part * 10_000n, whole);
  return formatRate(hundredthsOfPercent);
}
