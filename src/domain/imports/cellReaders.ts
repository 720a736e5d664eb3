import { createHash } from 'node:crypto';
import { canonicalJson, type JsonObject, type JsonValue } from '../json.ts';
import { type Evidence, plainNumber, readBoolean, ValueProblem } from './locale.ts';
import type { CustomColumn } from './mapping.ts';
import type { Cell, ReadContext } from './recordMapper.ts';

// The readers of one cell of a record beyond locale.ts's numbers and dates: an amount's currency mark, a typed
// (XLSX, JSON) number, a custom column's value; and the dedup key of the event a record becomes.

/** "EUR 1,200.00", "1.200,00 €", "$1,200" → the number, and the code or symbol that marks it. */
export function currencyMarked(text: string): { number: string; currency?: string } {
  const trimmed = text.trim();
  const code = /^([A-Za-z]{3})\s*([-\u2212(]?[\d.,].*)$/.exec(trimmed) ?? /^(.*[\d)])\s*([A-Za-z]{3})$/.exec(trimmed);
  if (code) {
    const [first, second] = [code[1] as string, code[2] as string];
    const [currency, number] = /^[A-Za-z]{3}$/.test(first) ? [first, second] : [second, first];
    return { number, currency: currency.toUpperCase() };
  }
  const symbol = /^([$€£¥])\s*(.+)$/.exec(trimmed) ?? /^(.+?)\s*([$€£¥])$/.exec(trimmed);
  if (symbol) {
    const [first, second] = [symbol[1] as string, symbol[2] as string];
    return /^[$€£¥]$/.test(first) ? { number: second, currency: first } : { number: first, currency: second };
  }
  return { number: trimmed };
}

/** A currency symbol fits the currencies it is written for: € EUR, £ GBP, ¥ JPY or CNY, $ a dollar or peso. */
export function symbolFits(symbol: string, currency: string): boolean {
  switch (symbol) {
    case '€':
      return currency === 'EUR';
    case '£':
      return currency === 'GBP';
    case '¥':
      return currency === 'JPY' || currency === 'CNY';
    default:
      return /D$/.test(currency) || ['MXN', 'ARS', 'CLP', 'COP', 'BRL'].includes(currency);
  }
}

/**
 * `import:<external_id>:<digest of the event>`: the same row imports to the same key, so a second run replays it
 * and writes nothing; a row the CRM changed since imports as a new event of the same deal. At most 255 characters.
 */
export function dedupKeyOf(event: JsonObject): string {
  const digest = createHash('sha256').update(canonicalJson(event)).digest('hex').slice(0, 32);
  return `import:${String(event.external_id).slice(0, 200)}:${digest}`;
}

/** A number cell (XLSX, JSON) as a plain decimal, without the exponent JavaScript writes large or small ones in. */
export function plainOfNumber(value: number): string {
  if (!Number.isFinite(value)) throw new ValueProblem(`${value} is not a number`);
  const fixed = value.toFixed(Math.min(20, Math.max(0, 15 - Math.floor(Math.log10(Math.abs(value) || 1)))));
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

export function typed(value: Cell, spec: CustomColumn, context: ReadContext, evidence: Evidence): JsonValue {
  switch (spec.type) {
    case 'string':
      return value instanceof Date ? value.toISOString() : String(value);
    case 'number': {
      if (typeof value === 'number') return value;
      return Number(plainNumber(String(value), context.conventions.decimal, evidence));
    }
    case 'boolean':
      return typeof value === 'boolean' ? value : readBoolean(String(value));
  }
}
