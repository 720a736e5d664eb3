import { createHash } from 'node:crypto';
import { canonicalJson, isJsonObject, type JsonValue } from '../json.ts';
import { Refusal } from '../refusal.ts';

// The one cursor codec of every keyset-paginated list (deals, earnings, users, payouts, the admin audit log).
// A cursor is base64url of a small JSON document: the version, the position of the last item returned (a
// timestamp and an id) and a fingerprint of the org and the filters it was issued for, so that a cursor sent
// with other filters (or by another org) is refused instead of silently skipping items.
//
// Each list keeps the member name its cursors have always used for the timestamp (`u` for the deals feed,
// `o` for the audit log, `c` elsewhere): a deals cursor is also a change-feed bookmark that clients keep
// polling with, so cursors already handed out stay valid.
//
// A document without a fingerprint is a bare position, accepted with any filters. The server never issues one;
// it is what the contract's examples show, so that an example cursor is one the server accepts.

/** A cursor a list refuses: `invalid_body`, its reason starting with `cursor:`. */
function invalidCursor(problem: string): Refusal {
  return new Refusal('invalid_body', `cursor: ${problem}`);
}

/** The last item a page returned; null means "before the first item". */
export type KeysetPosition = { at: Date; id: string } | null;

export interface KeysetCursorCodec {
  encode(position: KeysetPosition, fingerprint: string): string;
  /** Throws an `invalid_body` Refusal for a malformed cursor, or one issued for another fingerprint. */
  decode(cursor: string, fingerprint: string): KeysetPosition;
  /**
   * The page of `rows`, read with one more than `limit`: the first `limit` rows and the cursor after the last of
   * them, or null when no row is left.
   */
  page<Row>(
    rows: readonly Row[],
    limit: number,
    fingerprint: string,
    positionOf: (row: Row) => { at: Date; id: string },
  ): { items: Row[]; nextCursor: string | null };
}

const VERSION = 1;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MALFORMED = 'is malformed; pass the next_cursor of a previous page unchanged';
const OTHER_FILTERS = 'was issued for other filters; send it with the same filters as the page it came from';

/** 16 hex characters of SHA-256 over the org and the filters (not the limit, which may change per page). */
export function keysetFingerprint(orgId: string, filters: Record<string, JsonValue>): string {
  return createHash('sha256')
    .update(canonicalJson({ org: orgId, ...filters }))
    .digest('hex')
    .slice(0, 16);
}

/**
 * The codec of one list: `idPrefix` is the TypeID prefix of its items (`deal`), so a cursor naming another kind
 * of id is malformed; `timeMember` is the document member that holds the position's timestamp.
 */
export function keysetCursor(list: { idPrefix: string; timeMember: 'c' | 'u' | 'o' }): KeysetCursorCodec {
  const idPattern = new RegExp(`^${list.idPrefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$`);
  const codec: KeysetCursorCodec = {
    encode(position, fingerprint) {
      const document = {
        v: VERSION,
        [list.timeMember]: position?.at.toISOString() ?? null,
        i: position?.id ?? null,
        f: fingerprint,
      };
      return Buffer.from(JSON.stringify(document)).toString('base64url');
    },

    decode(cursor, fingerprint) {
      let document: unknown;
      try {
        if (!BASE64URL.test(cursor)) throw new Error('not base64url');
        document = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      } catch {
        throw invalidCursor(MALFORMED);
      }
      if (!isJsonObject(document) || document.v !== VERSION) throw invalidCursor(MALFORMED);
      const { f, i } = document;
      const at = document[list.timeMember];
      if (f !== undefined && typeof f !== 'string') throw invalidCursor(MALFORMED);
      if (f !== undefined && f !== fingerprint) throw invalidCursor(OTHER_FILTERS);
      if (at === null && i === null) return null;
      if (typeof at !== 'string' || !ISO_MS.test(at) || typeof i !== 'string' || !idPattern.test(i)) {
        throw invalidCursor(MALFORMED);
      }
      const time = new Date(at);
      if (Number.isNaN(time.getTime())) throw invalidCursor(MALFORMED);
      return { at: time, id: i };
    },

    page(rows, limit, fingerprint, positionOf) {
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        items,
        nextCursor: rows.length > limit && last ? codec.encode(positionOf(last), fingerprint) : null,
      };
    },
  };
  return codec;
}
