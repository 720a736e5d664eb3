import { formatMinorUnits, minorUnitExponent } from '../currencies.ts';
import type { CalendarDate } from '../periods.ts';
import { roundHalfAwayFromZero } from './money.ts';
import type { TraceStep } from './types.ts';

// Currency conversion (docs/currencies.md). An org keeps dated exchange rates: a rate from one currency to another
// is in force from its day until the pair's next rate. A plan pays in its currency: a deal's credited amount in
// another currency is converted at the rate in force on the deal's date (close date, else the day it was won,
// else today for an open deal), rounded once, half away from zero, to whole minor units of the plan's currency;
// that converted amount is what the chip, tiers, quotas and caps count. Rates are exact decimals; the arithmetic
// is BigInt, so nothing is lost to binary floating point.
//
// When the pair has no rate on or before that day, the opposite pair's rate is used inverted (1 / rate, exactly,
// before the one rounding); when neither has one, the amount cannot be converted: the line is unpriced.

/** One dated rate: `rate` units of `to_currency` per unit of `from_currency`, an exact decimal string. */
export interface ExchangeRate {
  from_currency: string;
  to_currency: string;
  /** The first day the rate is in force. */
  effective_on: CalendarDate;
  rate: string;
}

/** Positive decimals with at most 12 digits before and 12 after the point: `1.0845`, `0.0067`, `150`. */
const RATE_PATTERN = /^(\d{1,12})(?:\.(\d{1,12}))?$/;

/** Why a value is not a rate, or null when it is one. */
export function rateProblem(value: string): string | null {
  const match = RATE_PATTERN.exec(value);
  if (!match) return 'must be a positive decimal number such as 1.0845 (at most 12 digits before and after the point)';
  return decimalFraction(value).numerator === 0n ? 'must be greater than 0' : null;
}

/** A rate as written, normalised: no leading zeros before the point other than one, no trailing zeros after it. */
export function normaliseRate(value: string): string {
  const [whole = '0', fraction = ''] = value.split('.');
  const trimmedWhole = whole.replace(/^0+(?=\d)/, '');
  const trimmedFraction = fraction.replace(/0+$/, '');
  return trimmedFraction === '' ? trimmedWhole : `${trimmedWhole}.${trimmedFraction}`;
}

function decimalFraction(value: string): { numerator: bigint; denominator: bigint } {
  const [whole = '0', fraction = ''] = value.split('.');
  return { numerator: BigInt(`${whole}${fraction}`), denominator: 10n ** BigInt(fraction.length) };
}

/** The rate a conversion used: the pair's own, or the opposite pair's inverted. */
export interface RateInForce {
  rate: string;
  effective_on: CalendarDate;
  /** True when only the opposite pair had a rate, which is used as 1 / rate. */
  inverse: boolean;
}

function latestOnOrBefore(
  rates: readonly ExchangeRate[],
  from: string,
  to: string,
  day: CalendarDate,
): ExchangeRate | null {
  let found: ExchangeRate | null = null;
  for (const rate of rates) {
    if (rate.from_currency !== from || rate.to_currency !== to || rate.effective_on > day) continue;
    if (found === null || rate.effective_on > found.effective_on) found = rate;
  }
  return found;
}

/** The rate from `from` to `to` in force on `day`: the pair's latest on or before it, else the opposite pair's. */
export function rateInForce(
  rates: readonly ExchangeRate[],
  from: string,
  to: string,
  day: CalendarDate,
): RateInForce | null {
  const direct = latestOnOrBefore(rates, from, to, day);
  if (direct) return { rate: direct.rate, effective_on: direct.effective_on, inverse: false };
  const opposite = latestOnOrBefore(rates, to, from, day);
  return opposite ? { rate: opposite.rate, effective_on: opposite.effective_on, inverse: true } : null;
}

/** A converted amount: whole minor units of the target currency, with the exact quotient it was rounded from. */
export interface Conversion {
  converted: bigint;
  numerator: bigint;
  denominator: bigint;
}

/**
 * `amount` minor units of `from` in minor units of `to` at `rate`, rounded once, half away from zero. Exactly:
 * amount × rate × 10^(exponent of to) / 10^(exponent of from), or with the rate's inverse, amount / rate × ….
 */
export function convertMinorUnits(amount: bigint, from: string, to: string, used: RateInForce): Conversion {
  const rate = decimalFraction(used.rate);
  const [rateNumerator, rateDenominator] = used.inverse
    ? [rate.denominator, rate.numerator]
    : [rate.numerator, rate.denominator];
  const numerator = amount * rateNumerator * 10n ** BigInt(minorUnitExponent(to));
  const denominator = rateDenominator * 10n ** BigInt(minorUnitExponent(from));
  return { converted: roundHalfAwayFromZero(numerator, denominator), numerator, denominator };
}

/** The conversion of a deal's credited amount as a trace step and the sentence that redoes it. */
export function conversionTrace(
  amount: bigint,
  from: string,
  to: string,
  used: RateInForce,
  conversion: Conversion,
  day: CalendarDate,
): { step: TraceStep; sentence: string } {
  const step: TraceStep = {
    type: 'conversion',
    from_currency: from,
    to_currency: to,
    original_cents: Number(amount),
    rate: used.rate,
    rate_effective_on: used.effective_on,
    inverse: used.inverse,
    deal_date: day,
    converted_cents: Number(conversion.converted),
  };
  return { step, sentence: conversionSentence(`The plan pays in ${to}`, { amount, from, to, used, conversion, day }) };
}

/** What a conversion used and gave: the original amount, the pair, the rate in force on the day, the result. */
export interface ConversionFacts {
  amount: bigint;
  from: string;
  to: string;
  used: RateInForce;
  conversion: Conversion;
  day: CalendarDate;
}

/** The sentence that redoes a conversion: the rate, the day it was in force, the original and converted amounts. */
export function conversionSentence(why: string, facts: ConversionFacts): string {
  const { amount, from, to, used, conversion, day } = facts;
  const applied = used.inverse
    ? `the ${to}→${from} rate ${used.rate} of ${used.effective_on} inverted (there is no ${from}→${to} rate on or before ${day}): ${formatMinorUnits(amount, from)} / ${used.rate}`
    : `the ${from}→${to} rate ${used.rate} in force on ${day} (set for ${used.effective_on}): ${formatMinorUnits(amount, from)} × ${used.rate}`;
  return `${why}, so the amount is converted at ${applied} = ${formatMinorUnits(conversion.converted, to)}, rounded half away from zero to the ${to} minor unit.`;
}

/** The step and sentence of an amount that cannot be converted: no rate for the pair, either way, on or before the day. */
export function missingRateTrace(from: string, to: string, day: CalendarDate): { step: TraceStep; sentence: string } {
  return {
    step: { type: 'missing_exchange_rate', from_currency: from, to_currency: to, deal_date: day },
    sentence: `The plan pays in ${to} but the deal is in ${from}, and the org has no ${from}→${to} rate (nor ${to}→${from}) in force on ${day}, so this line is unpriced: it earns nothing until a rate is set (quotient fx set ${from} ${to} <rate> --from <date>), and is then evaluated again.`,
  };
}
