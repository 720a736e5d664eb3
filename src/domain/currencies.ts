import { formatDecimalAmount, formatMoney, plainDecimal } from './earnings/money.ts';

// ISO 4217 currencies (docs/currencies.md): the codes Quotient accepts and each one's minor-unit exponent, the
// number of decimals its amounts are counted in (`amount_cents` is in minor units: cents of USD and EUR, yen of
// JPY, fils of KWD). Active codes of the ISO 4217 list; funds codes, precious metals and testing codes are left
// out because nobody pays commissions in them.

const BY_EXPONENT: Record<0 | 2 | 3 | 4, string> = {
  0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF',
  2:
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF ' +
    'CNY COP CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF ' +
    'IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR ' +
    'MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD ' +
    'SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UZS VES WST XCD YER ZAR ZMW ZWG',
  3: 'BHD IQD JOD KWD LYD OMR TND',
  4: 'CLF UYW',
};

const EXPONENTS: ReadonlyMap<string, number> = new Map(
  Object.entries(BY_EXPONENT).flatMap(([exponent, codes]) =>
    codes.split(' ').map((code) => [code, Number(exponent)] as const),
  ),
);

/** The currency of an org that has not chosen one. */
export const DEFAULT_CURRENCY = 'USD';

export const CURRENCY_PATTERN = /^[A-Z]{3}$/;

export function isKnownCurrency(code: unknown): code is string {
  return typeof code === 'string' && EXPONENTS.has(code);
}

/** The number of decimals of the currency's minor unit: 2 for USD, 0 for JPY, 3 for KWD. */
export function minorUnitExponent(code: string): number {
  const exponent = EXPONENTS.get(code);
  if (exponent === undefined) throw new RangeError(`${code} is not a known ISO 4217 currency`);
  return exponent;
}

/** The decimals of a currency's minor unit for printing amounts: its exponent, 2 for an unknown or absent code. */
export function decimalsOf(code: string | null | undefined): number {
  return (code ? EXPONENTS.get(code) : undefined) ?? 2;
}

/** Why a value is not a currency code, or null when it is one: for error reasons that say what to send. */
export function currencyProblem(value: unknown): string | null {
  if (typeof value !== 'string' || !CURRENCY_PATTERN.test(value)) {
    return 'must be an ISO 4217 code, three upper-case letters such as USD';
  }
  return isKnownCurrency(value) ? null : `${value} is not a known ISO 4217 currency`;
}

/**
 * Minor units as money in the currency's own decimals (its ISO 4217 exponent), for every place that shows an amount
 * to people: the server's explanations and PDFs (`code`: (123456, EUR) → `EUR 1,234.56`, (5000, JPY) →
 * `JPY 5,000`) and the console and the portal (`symbol`: `€1,234.56`, `¥5,000`, `-$10.50`). An unknown code is
 * shown with two decimals.
 */
export function formatMinorUnits(amount: bigint | number, code: string, display: 'code' | 'symbol' = 'code'): string {
  const exponent = decimalsOf(code);
  const minor = typeof amount === 'bigint' ? amount : BigInt(amount);
  if (display === 'code') return `${code} ${formatMoney(minor, exponent)}`;
  return formatDecimalAmount(plainDecimal(minor, exponent), { min: exponent, max: exponent }, code);
}

/**
 * What a person typed as a signed amount in major units of the currency (`-1,200.50`, `5000` yen), as minor units, or
 * why it is not one, saying when it has more decimals than the currency (`USD amounts have at most 2 decimals`). The
 * console reads typed amounts with it, as formatMinorUnits shows them.
 */
export function parseMajorUnits(text: string, code: string): { minor: number } | { problem: string } {
  const exponent = decimalsOf(code);
  const typed = text.trim().replaceAll(',', '');
  const match = /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(typed);
  if (!match) return { problem: `${JSON.stringify(text.trim())} is not an amount such as 1200.50 or -50` };
  const [, sign = '', whole = '', fraction = ''] = match;
  if (fraction.length > exponent) {
    return {
      problem:
        exponent === 0 ? `${code} amounts have no decimals` : `${code} amounts have at most ${exponent} decimals`,
    };
  }
  const minor = BigInt(whole) * 10n ** BigInt(exponent) + BigInt(fraction.padEnd(exponent, '0') || '0');
  const value = Number(sign === '-' ? -minor : minor);
  if (!Number.isSafeInteger(value)) return { problem: 'the amount is too large' };
  return { minor: value };
}
