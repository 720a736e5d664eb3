import { Refusal } from '../refusal.ts';

// An export's bytes as text. The encoding is read from the file where the file states it (a byte order mark: UTF-8,
// UTF-16 LE or BE), else the file must be UTF-8, checked byte by byte: a file that is not is refused with the line
// of its first invalid byte, never read with replacement characters (two names that differ by one accented letter
// would become one rep). Windows-1252 (Excel's "CSV (Comma delimited)" on Windows) is read only when named.

/** The encodings an export is read in; `utf-8` also covers a file with a UTF-8 byte order mark. */
export const ENCODINGS = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252'] as const;
export type Encoding = (typeof ENCODINGS)[number];

export function encodingOf(name: string): Encoding {
  const folded = name.trim().toLowerCase().replace(/^cp/, 'windows-').replace('utf8', 'utf-8');
  const aliases: Record<string, Encoding> = { 'windows-1252': 'windows-1252', 'latin-1': 'windows-1252' };
  const found = (ENCODINGS as readonly string[]).includes(folded) ? (folded as Encoding) : aliases[folded];
  if (found === undefined) {
    throw new Refusal('invalid_body', `--encoding ${name}: not one of ${ENCODINGS.join(', ')}`);
  }
  return found;
}

/**
 * The text of the bytes, as chunks: a byte order mark decides the encoding (and is dropped); without one the file
 * is read as `declared` (default UTF-8, checked). Refusals name the line.
 */
export async function* decodedText(bytes: AsyncIterable<Uint8Array>, declared?: Encoding): AsyncGenerator<string> {
  let decoder: InstanceType<typeof TextDecoder> | undefined;
  let encoding: Encoding | undefined;
  let lines = 1;
  let pending: Uint8Array = new Uint8Array(0);
  for await (const chunk of bytes) {
    let data: Uint8Array = concat(pending, chunk);
    pending = new Uint8Array(0);
    if (decoder === undefined) {
      if (data.length < 3 && !(data.length === 2 && isUtf16Bom(data))) {
        pending = data;
        continue;
      }
      const bom = bomOf(data);
      encoding = bom?.encoding ?? declared ?? 'utf-8';
      if (bom && declared && declared !== bom.encoding && !(declared === 'utf-8' && bom.encoding === 'utf-8')) {
        throw new Refusal('invalid_body', `the file starts with a ${bom.encoding} byte order mark, not ${declared}`);
      }
      if (!bom && encoding === 'utf-8' && looksLikeUtf16(data)) {
        throw new Refusal(
          'invalid_body',
          'this file is not UTF-8: it looks like UTF-16 without a byte order mark; save it as UTF-8 (or UTF-16 with BOM)',
        );
      }
      data = data.subarray(bom?.length ?? 0);
      decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
    }
    if (encoding === 'utf-8') {
      const end = completeUtf8Prefix(data);
      pending = data.slice(end);
      data = data.subarray(0, end);
      const invalid = firstInvalidUtf8(data);
      if (invalid !== -1) {
        throw new Refusal(
          'invalid_body',
          `this file is not UTF-8: line ${lines + countNewlines(data.subarray(0, invalid))} has the byte 0x${(data[invalid] as number).toString(16).toUpperCase()}; ` +
            'save it as UTF-8, or if it is Windows-1252 (Excel on Windows) say --encoding windows-1252',
        );
      }
      lines += countNewlines(data);
      yield decoder.decode(data);
    } else {
      yield decoder.decode(data, { stream: true });
    }
  }
  if (decoder === undefined) {
    if (pending.length === 0) return;
    const bom = bomOf(pending);
    encoding = bom?.encoding ?? declared ?? 'utf-8';
    decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
    pending = pending.subarray(bom?.length ?? 0);
  }
  if (encoding === 'utf-8' && pending.length > 0) {
    throw new Refusal('invalid_body', `this file is not UTF-8: line ${lines} ends in the middle of a character`);
  }
  try {
    const rest = decoder.decode(pending);
    if (rest !== '') yield rest;
  } catch {
    throw new Refusal('invalid_body', `this file is not ${encoding}: it ends in the middle of a character`);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

function isUtf16Bom(data: Uint8Array): boolean {
  return (data[0] === 0xff && data[1] === 0xfe) || (data[0] === 0xfe && data[1] === 0xff);
}

function bomOf(data: Uint8Array): { encoding: Encoding; length: number } | undefined {
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (data[0] === 0xff && data[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (data[0] === 0xfe && data[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

/** Text of ASCII letters in UTF-16 has a zero byte every other byte. */
function looksLikeUtf16(data: Uint8Array): boolean {
  const sample = data.subarray(0, 200);
  let zeros = 0;
  for (const byte of sample) if (byte === 0) zeros++;
  return sample.length >= 4 && zeros >= sample.length / 4;
}

function countNewlines(data: Uint8Array): number {
  let count = 0;
  for (const byte of data) if (byte === 0x0a) count++;
  return count;
}

/** Where the last complete UTF-8 sequence of the bytes ends (a chunk may end inside a character). */
function completeUtf8Prefix(data: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, data.length); back++) {
    const byte = data[data.length - back] as number;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? data.length - back : data.length;
  }
  return data.length;
}

/** The offset of the first byte that is not part of well-formed UTF-8, or -1. */
function firstInvalidUtf8(data: Uint8Array): number {
  let at = 0;
  while (at < data.length) {
    const byte = data[at] as number;
    if (byte < 0x80) {
      at++;
      continue;
    }
    let length: number;
    let min: number;
    if (byte >= 0xc2 && byte <= 0xdf) [length, min] = [2, 0x80];
    else if (byte >= 0xe0 && byte <= 0xef) [length, min] = [3, 0x800];
    else if (byte >= 0xf0 && byte <= 0xf4) [length, min] = [4, 0x10000];
    else return at;
    if (at + length > data.length) return at;
    let code = byte & (0xff >> (length + 1));
    for (let next = 1; next < length; next++) {
      const continuation = data[at + next] as number;
      if ((continuation & 0xc0) !== 0x80) return at;
      code = (code << 6) | (continuation & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return at;
    at += length;
  }
  return -1;
}

/** The delimiters an export may be separated by. */
export const DELIMITERS = [',', ';', '\t'] as const;

export function delimiterName(delimiter: string): string {
  return delimiter === '\t' ? 'tabs' : `'${delimiter}'`;
}

/**
 * The delimiter of a CSV text, from its first lines: the candidate found most often outside quotes (a semicolon file
 * has a few commas in its decimal amounts, but a semicolon between every two fields). Ties: the comma.
 */
export function sniffDelimiter(sample: string): string {
  const lines = sample.split('\n').slice(0, 30);
  let best: string = ',';
  let bestCount = 0;
  for (const delimiter of DELIMITERS) {
    let count = 0;
    for (const line of lines) {
      let quoted = false;
      for (const char of line) {
        if (char === '"') quoted = !quoted;
        else if (!quoted && char === delimiter) count++;
      }
    }
    if (count > bestCount) [best, bestCount] = [delimiter, count];
  }
  return best;
}
