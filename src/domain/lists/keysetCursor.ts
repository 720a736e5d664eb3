import { createHash } from 'node:crypto';
import { InvalidCursor } from '../deals/cursor.ts';
import { canonicalJson, isJsonObject } from '../json.ts';

// An opaque keyset cursor over a (timestamp, id) order: base64url of a small JSON document with the position of
// the last item returned and a fingerprint of the org and the filters it was issued for, so that a cursor sent
// with other filters (or by another org) is refused instead of silently skipping items. The same document as the
// earnings list's cursor ({v, c, i, f}); malformed cursors throw InvalidCursor, whose message starts `cursor:`.

/** The last item a page returned; null means "before the first item". */
export type KeysetPosition = { at: Date; id: string } | null;

const VERSION = 1;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MALFORMED = 'is malformed; pass the next_cursor of a previous page unchanged';

/** 16 hex characters of SHA-256 over the org and the filters (not the limit, which may change per page). */
export function keysetFingerprint(orgId: string, filters: Record<string, unknown>): string {
  return createHash('sha256')
    .update(canonicalJson({ org: orgId, ...filters }))
    .digest('hex')
    .slice(0, 16);
}

export function encodeKeysetCursor(position: KeysetPosition, fingerprint: string): string {
  const document = { v: VERSION, c: position?.at.toISOString() ?? null, i: position?.id ?? null, f: fingerprint };
  return Buffer.from(JSON.stringify(document)).toString('base64url');
}

/** `idPrefix` is the TypeID prefix of the listed items (`user`): a cursor naming another kind of id is malformed. */
export function decodeKeysetCursor(cursor: string, fingerprint: string, idPrefix: string): KeysetPosition {
  let document: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    document = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursor(MALFORMED);
  }
  if (!isJsonObject(document) || document.v !== VERSION || typeof document.f !== 'string') {
    throw new InvalidCursor(MALFORMED);
  }
  if (document.f !== fingerprint) {
    throw new InvalidCursor('was issued for other filters; send it with the same filters as the page it came from');
  }
  const { c, i } = document;
  if (c === null && i === null) return null;
  const idPattern = new RegExp(`^${idPrefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$`);
  if (typeof c !== 'string' || !ISO_MS.test(c) || typeof i !== 'string' || !idPattern.test(i)) {
    throw new InvalidCursor(MALFORMED);
  }
  const at = new Date(c);
  if (Number.isNaN(at.getTime())) throw new InvalidCursor(MALFORMED);
  return { at, id: i };
}
