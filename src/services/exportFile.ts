import { DEFAULT_CURRENCY, isKnownCurrency } from '../domain/currencies.ts';
import { type Conventions, conventionsOfLocale } from '../domain/imports/locale.ts';
import type { Mapping } from '../domain/imports/mapping.ts';
import {
  csvSource,
  type EventCheck,
  type ImportRow,
  type ReadSettings,
  type RecordSource,
  readExport,
} from '../domain/imports/rows.ts';
import { decodedText, delimiterName, encodingOf, sniffDelimiter } from '../domain/imports/text.ts';
import { Refusal } from '../domain/refusal.ts';
import { looksLikeXlsx, xlsxRecords } from '../lib/xlsx.ts';

// An export file's bytes read as an import reads them, wherever they come from: `quotient import deals FILE` streams
// a file from disk, POST /admin/v1/deal-imports (the console's upload) has the bytes in its request. One reader for
// both, so that the two read the same file the same way and refuse it with the same words: an XLSX workbook's first
// sheet, or a CSV decoded (a byte order mark, or the encoding given; UTF-8 checked), its delimiter detected; its
// numbers and dates read by the locale given or the one the file settles.

/** How the file was read, for the report: its format, encoding, conventions and the lines that are not rows. */
export interface FileDescription {
  format: string;
  encoding: string;
  numbers_and_dates: string;
  heading_lines: number[];
  footer_lines: number[];
}

/** An export's bytes: its first ones, the whole (a workbook is read whole), or a fresh read of them in chunks. */
export interface ExportBytes {
  start: Uint8Array;
  whole: () => Promise<Uint8Array>;
  chunks: () => AsyncIterable<Uint8Array>;
}

/** The reading choices (`--locale`, `--currency`, `--encoding` or the upload's fields of the same names). */
export interface ReadOptions {
  locale?: string;
  currency?: string;
  encoding?: string;
  /** The org's default currency, for the rows that state none. */
  fallbackCurrency?: string;
}

/** An export being read: its mapping, its rows as they come (checked as they are read), how the file was read. */
export interface ExportRead {
  mapping: Mapping;
  rows: AsyncIterable<ImportRow>;
  file: FileDescription;
}

/** How a choice is named in a refusal: `--locale` by the CLI, `locale` by the upload. */
export type OptionName = (option: 'locale' | 'currency' | 'encoding') => string;

const CLI_NAMES: OptionName = (option) => `--${option}`;

/**
 * Surveys an export whole (its header and mapping, given or recognised; its encoding, delimiter, conventions; what
 * refuses it as a whole, a Refusal naming the lines), then reads its rows again, each checked by `check`.
 */
export async function readExportBytes(
  bytes: ExportBytes,
  check: EventCheck,
  chosen?: Mapping,
  options: ReadOptions = {},
  named: OptionName = CLI_NAMES,
): Promise<ExportRead> {
  const currency = options.currency?.toUpperCase();
  if (currency !== undefined && !isKnownCurrency(currency)) {
    throw new Refusal('invalid_body', `${named('currency')} ${options.currency}: not an ISO 4217 currency code`);
  }
  const localeSource = `${named('locale')} ${options.locale}`;
  // Refused before any byte is read, as a bad --currency is.
  if (options.locale !== undefined) conventionsOfLocale(options.locale, localeSource);
  const settings: ReadSettings = {
    fallbackCurrency: options.fallbackCurrency ?? DEFAULT_CURRENCY,
    ...(chosen ? { mapping: chosen } : {}),
    ...(options.locale === undefined ? {} : { locale: options.locale, localeSource }),
    ...(currency === undefined ? {} : { currency }),
  };
  let source: RecordSource;
  let described: Pick<FileDescription, 'format' | 'encoding'>;
  if (looksLikeXlsx(bytes.start)) {
    const records = await xlsxRecords(await bytes.whole());
    source = async function* () {
      yield* records;
    };
    described = { format: 'XLSX (its first sheet)', encoding: 'XLSX' };
  } else {
    let encoding: ReturnType<typeof encodingOf> | undefined;
    try {
      encoding = options.encoding === undefined ? undefined : encodingOf(options.encoding);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      throw new Refusal('invalid_body', error.reason.replace(/^--encoding/, named('encoding')));
    }
    const text = () => decodedText(bytes.chunks(), encoding);
    let sample = '';
    for await (const chunk of text()) {
      sample += chunk;
      if (sample.length >= 64 * 1024) break;
    }
    const delimiter = sniffDelimiter(sample);
    settings.format = `CSV separated by ${delimiterName(delimiter)}`;
    source = csvSource(text, delimiter);
    described = {
      format: settings.format,
      encoding: encodingDescription(bytes.start, encoding, named('encoding')),
    };
  }
  const { survey, rows } = await readExport(source, settings, check);
  return {
    mapping: survey.mapping,
    rows,
    file: {
      ...described,
      numbers_and_dates: describeConventions(survey.conventions),
      heading_lines: survey.headingLines,
      footer_lines: survey.footerLines,
    },
  };
}

/** Bytes held whole (an upload's), read as an export's. */
export function bytesInMemory(whole: Uint8Array): ExportBytes {
  return {
    start: whole.subarray(0, 4),
    whole: async () => whole,
    chunks: async function* () {
      for (let at = 0; at < whole.length; at += 64 * 1024) yield whole.subarray(at, at + 64 * 1024);
    },
  };
}

function encodingDescription(start: Uint8Array, declared: string | undefined, option: string): string {
  if (start[0] === 0xef && start[1] === 0xbb && start[2] === 0xbf) return 'UTF-8 (with a byte order mark)';
  if (start[0] === 0xff && start[1] === 0xfe) return 'UTF-16 LE (byte order mark)';
  if (start[0] === 0xfe && start[1] === 0xff) return 'UTF-16 BE (byte order mark)';
  return declared === undefined ? 'UTF-8' : `${declared} (${option})`;
}

function describeConventions(conventions: Conventions): string {
  const order = { mdy: 'month/day/year', dmy: 'day/month/year', ymd: 'year-month-day' } as const;
  const parts = [
    conventions.dateOrder === undefined ? 'dates: ISO (YYYY-MM-DD) only' : `dates: ${order[conventions.dateOrder]}`,
    conventions.decimal === undefined
      ? 'numbers: whole or unambiguous'
      : `numbers: decimal ${conventions.decimal === '.' ? 'point' : 'comma'}`,
  ];
  return `${parts.join('; ')} (from ${conventions.source})`;
}
