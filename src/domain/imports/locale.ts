import { Refusal } from '../refusal.ts';

// How an export writes numbers and dates. A CRM writes them in the exporting user's locale: 12,500.00 and 3/14/2026
// (en-US), 12.500,00 and 14.03.2026 (de-DE), 12 500,00 and 14/03/2026 (fr-FR, the space often a no-break space).
// The conventions come from `--locale`, or from the export where it states them (a Salesforce Data Export writes
// API values: ISO dates, a decimal point), or from the file's own values where they decide (a date whose first part
// is above 12 is day first; 12,500.00 has a decimal point). A value they do not decide (3/4/2026, 1,234) is never
// guessed: the file is refused with the values that show it, and --locale settles it.

export type DateOrder = 'mdy' | 'dmy' | 'ymd';
export type DecimalMark = '.' | ',';

export interface Conventions {
  dateOrder?: DateOrder;
  decimal?: DecimalMark;
  /** Where they come from, for the report: `--locale de-DE`, `the file (line 4: 14/03/2026)`. */
  source: string;
}

const LOCALES: Record<string, { dateOrder: DateOrder; decimal: DecimalMark }> = {
  'en-us': { dateOrder: 'mdy', decimal: '.' },
  'en-ca': { dateOrder: 'ymd', decimal: '.' },
  'en-gb': { dateOrder: 'dmy', decimal: '.' },
  'en-ie': { dateOrder: 'dmy', decimal: '.' },
  'en-au': { dateOrder: 'dmy', decimal: '.' },
  'en-nz': { dateOrder: 'dmy', decimal: '.' },
  'en-in': { dateOrder: 'dmy', decimal: '.' },
  'en-sg': { dateOrder: 'dmy', decimal: '.' },
  'de-de': { dateOrder: 'dmy', decimal: ',' },
  'de-at': { dateOrder: 'dmy', decimal: ',' },
  'de-ch': { dateOrder: 'dmy', decimal: '.' },
  'fr-fr': { dateOrder: 'dmy', decimal: ',' },
  'fr-be': { dateOrder: 'dmy', decimal: ',' },
  'fr-ca': { dateOrder: 'ymd', decimal: ',' },
  'fr-ch': { dateOrder: 'dmy', decimal: '.' },
  'es-es': { dateOrder: 'dmy', decimal: ',' },
  'es-mx': { dateOrder: 'dmy', decimal: '.' },
  'it-it': { dateOrder: 'dmy', decimal: ',' },
  'nl-nl': { dateOrder: 'dmy', decimal: ',' },
  'pt-br': { dateOrder: 'dmy', decimal: ',' },
  'pt-pt': { dateOrder: 'dmy', decimal: ',' },
  'sv-se': { dateOrder: 'ymd', decimal: ',' },
  'da-dk': { dateOrder: 'dmy', decimal: ',' },
  'nb-no': { dateOrder: 'dmy', decimal: ',' },
  'fi-fi': { dateOrder: 'dmy', decimal: ',' },
  'pl-pl': { dateOrder: 'dmy', decimal: ',' },
  'ja-jp': { dateOrder: 'ymd', decimal: '.' },
  'zh-cn': { dateOrder: 'ymd', decimal: '.' },
  'ko-kr': { dateOrder: 'ymd', decimal: '.' },
};

export const KNOWN_LOCALES = Object.keys(LOCALES).map((key) => `${key.slice(0, 2)}-${key.slice(3).toUpperCase()}`);

/** `en-GB`, `en_GB` (Salesforce's spelling), any case. */
export function conventionsOfLocale(name: string, source = `--locale ${name}`): Conventions {
  const found = LOCALES[name.trim().toLowerCase().replace('_', '-')];
  if (!found) throw new Refusal('invalid_body', `${source}: not a locale Quotient reads (${KNOWN_LOCALES.join(', ')})`);
  return { ...found, source };
}

/** A value that cannot be read, or that another locale would read differently: the reason, for people. */
export class ValueProblem extends Error {
  /** The value reads differently by locale (its date order or decimal mark): the file's conventions decide. */
  readonly ambiguous: 'date' | 'number' | undefined;

  constructor(message: string, ambiguous?: 'date' | 'number') {
    super(message);
    this.name = 'ValueProblem';
    this.ambiguous = ambiguous;
  }
}

/** What a value says about the file's conventions, when it decides them. */
export interface Evidence {
  dateOrder?: DateOrder;
  decimal?: DecimalMark;
}

const GROUPING = /[\s\u00a0\u202f']/g;

/**
 * A number as written, as a plain decimal ("-1234.56"); the mark is the file's, or undefined when not known yet
 * (then a value that only a locale decides is a ValueProblem, ambiguous). `evidence` receives what the value decides.
 */
export function plainNumber(
  text: string,
  decimal: DecimalMark | undefined,
  evidence?: Evidence,
  what = 'a number',
): string {
  let body = text.trim();
  let negative = false;
  if (/^\(.*\)$/.test(body)) [negative, body] = [true, body.slice(1, -1).trim()];
  if (body.startsWith('-') || body.startsWith('\u2212')) [negative, body] = [!negative, body.slice(1).trim()];
  else if (body.endsWith('-')) [negative, body] = [true, body.slice(0, -1).trim()];
  if (/[eE]/.test(body)) throw new ValueProblem(`"${text}" is in scientific notation (its digits are lost)`);
  body = body.replace(GROUPING, '');
  if (!/^[\d.,]+$/.test(body) || !/\d/.test(body)) throw new ValueProblem(`"${text}" is not ${what}`);
  const dots = body.split('.').length - 1;
  const commas = body.split(',').length - 1;
  let mark = decimal;
  if (dots > 0 && commas > 0) {
    const last = body.lastIndexOf('.') > body.lastIndexOf(',') ? '.' : ',';
    if (mark === undefined) {
      mark = last;
      if (evidence) evidence.decimal = last;
    } else if (mark !== last) throw new ValueProblem(`"${text}" is not a number with the decimal mark '${mark}'`);
  } else if (dots + commas > 0 && mark === undefined) {
    const sign = dots > 0 ? '.' : ',';
    const after = body.length - body.lastIndexOf(sign) - 1;
    if (dots + commas > 1) {
      mark = sign === '.' ? ',' : '.';
      if (evidence) evidence.decimal = mark;
    } else if (after !== 3 || /^0[.,]/.test(body)) {
      mark = sign;
      if (evidence) evidence.decimal = sign;
    } else {
      throw new ValueProblem(
        `"${text}" is ${body.replace(/[.,]/, '')} in one locale and ${body.replace(/[.,]/, '.')} in another: give --locale`,
        'number',
      );
    }
  }
  const group = mark === '.' ? ',' : '.';
  const [whole = '', fraction, extra] = body.split(mark ?? '.');
  if (extra !== undefined || fraction === '') throw new ValueProblem(`"${text}" is not ${what}`);
  if (whole.includes(group) && !/^\d{1,3}(\.\d{3})*$|^\d{1,3}(,\d{3})*$/.test(whole)) {
    throw new ValueProblem(`"${text}" is not a number (digits grouped by '${group}' come in threes)`);
  }
  const digits = whole.replaceAll(group, '') || '0';
  return `${negative ? '-' : ''}${digits}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** A plain decimal in minor units of a currency with `exponent` decimals; more decimals than that are refused. */
export function minorUnits(plain: string, exponent: number, text: string): number {
  const negative = plain.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? plain.slice(1) : plain).split('.');
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > exponent) {
    throw new ValueProblem(`"${text}" has too many decimals: the currency takes at most ${exponent}`);
  }
  const units = BigInt(whole) * 10n ** BigInt(exponent) + BigInt(trimmed.padEnd(exponent, '0') || '0');
  if (units > BigInt(Number.MAX_SAFE_INTEGER)) throw new ValueProblem(`"${text}" is too large`);
  return negative ? -Number(units) : Number(units);
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/;
const NUMERIC =
  /^(\d{1,4})([/.-])(\d{1,2})\2(\d{1,4})\.?(?:,?\s+(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?\s*([AaPp]\.?[Mm]\.?)?)?$/;

export interface ReadDate {
  /** YYYY-MM-DD */
  day: string;
  /** An ISO 8601 instant (UTC unless the value has an offset). */
  instant: string;
}

/**
 * A date (with a time or not) as written: ISO 8601 (`2026-03-14`, `2026-03-14 16:02`, `2026-03-14T16:02:00Z`)
 * or numeric in the file's order (`3/14/2026`, `14/03/2026`, `14.03.2026 16:02`, `3/14/2026 4:02 PM`). The whole
 * value must be a date: `2026-03-14garbage` is not. A day-month order the value does not decide, while the file's
 * is not known, is a ValueProblem, ambiguous.
 */
export function readDate(text: string, order: DateOrder | undefined, evidence?: Evidence): ReadDate {
  const value = text.trim();
  const iso = ISO.exec(value);
  if (iso) {
    const [, y, m, d, hh, mm, ss, zone] = iso;
    const day = calendarDay(Number(y), Number(m), Number(d), text);
    if (hh === undefined) return { day, instant: `${day}T00:00:00.000Z` };
    const offset =
      zone === undefined || zone === 'Z' ? 'Z' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
    const parsed = Date.parse(`${day}T${hh.padStart(2, '0')}:${mm}:${ss ?? '00'}${offset}`);
    if (Number.isNaN(parsed)) throw new ValueProblem(`"${text}" is not a time`);
    return { day, instant: new Date(parsed).toISOString() };
  }
  const numeric = NUMERIC.exec(value);
  if (!numeric) throw new ValueProblem(`"${text}" is not a date`);
  const [, a = '', , b = '', c = '', hh, mm, ss, meridiem] = numeric;
  let year: number;
  let month: number;
  let date: number;
  if (a.length === 4) {
    [year, month, date] = [Number(a), Number(b), Number(c)];
  } else {
    if (c.length !== 4) throw new ValueProblem(`"${text}" is not a date (the year needs four digits)`);
    const first = Number(a);
    const second = Number(b);
    let decided = order === 'ymd' ? undefined : order;
    if (first > 12 && second <= 12) {
      if (decided === 'mdy') throw new ValueProblem(`"${text}" is not a date (month/day/year)`);
      decided = 'dmy';
      if (evidence) evidence.dateOrder = 'dmy';
    } else if (second > 12 && first <= 12) {
      if (decided === 'dmy') throw new ValueProblem(`"${text}" is not a date (day/month/year)`);
      decided = 'mdy';
      if (evidence) evidence.dateOrder = 'mdy';
    } else if (decided === undefined && first !== second) {
      throw new ValueProblem(`"${text}" is a day-month or a month-day date: give --locale`, 'date');
    }
    year = Number(c);
    [month, date] = decided === 'dmy' ? [second, first] : [first, second];
  }
  const day = calendarDay(year, month, date, text);
  if (hh === undefined) return { day, instant: `${day}T00:00:00.000Z` };
  let hours = Number(hh);
  const half = meridiem?.[0]?.toLowerCase();
  if (half !== undefined && (hours < 1 || hours > 12)) throw new ValueProblem(`"${text}" is not a time`);
  if (half === 'p' && hours < 12) hours += 12;
  if (half === 'a' && hours === 12) hours = 0;
  if (hours > 23 || Number(mm) > 59 || Number(ss ?? 0) > 59) throw new ValueProblem(`"${text}" is not a time`);
  const clock = `${String(hours).padStart(2, '0')}:${mm}:${ss ?? '00'}`;
  return { day, instant: new Date(`${day}T${clock}Z`).toISOString() };
}

function calendarDay(year: number, month: number, day: number, text: string): string {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (year < 1000 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    throw new ValueProblem(`"${text}" is not a calendar date`);
  }
  return date.toISOString().slice(0, 10);
}

/** True/false as exports write them: true/false, yes/no, 1/0, and the same in German, French and Spanish. */
export function readBoolean(text: string): boolean {
  const folded = text.trim().toLowerCase();
  if (['true', 'yes', 'y', '1', 'wahr', 'ja', 'vrai', 'oui', 'sí', 'si', 'checked', 'x'].includes(folded)) return true;
  if (['false', 'no', 'n', '0', 'falsch', 'nein', 'faux', 'non', 'unchecked', ''].includes(folded)) return false;
  throw new ValueProblem(`"${text}" is not true or false`);
}
