import { createHash } from 'node:crypto';
import { InvalidCursor } from '../deals/cursor.ts';
import { canonicalJson, isJsonObject } from '../json.ts';

// The opaque cursor of GET /v1/earnings: base64url of a small JSON document with the position of the last row
// returned, (created_at, id), and a fingerprint of the org and the filters it was issued for, so that a cursor
// sent with other filters (or by another org) is refused instead of silently skipping rows. Malformed cursors
// throw the deals list's InvalidCursor, whose message starts `cursor:`.

export interface EarningCursorFilters {
  userId?: string;
  userExternalId?: string;
  periodId?: string;
  dealId?: string;
  planId?: string;
  statuses?: readonly string[];
  createdSince?: Date;
}

/** The last row a page returned; null means "before the first row". */
export type EarningCursorPosition = { createdAt: Date; id: string } | null;

const VERSION = 1;
const EARNING_ID = /^earn_[0-7][0-9a-hjkmnp-tv-z]{25}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MALFORMED = 'is malformed; pass the next_cursor of a previous page unchanged';

/** 16 hex characters of SHA-256 over the org and the filters (not the limit, which may change per page). */
export function earningFilterFingerprint(orgId: string, filters: EarningCursorFilters): string {
  const identity = {
    org: orgId,
    user_id: filters.userId ?? null,
    period_id: filters.periodId ?? null,
    deal_id: filters.dealId ?? null,
    plan_id: filters.planId ?? null,
    // The same statuses in another order or repeated select the same rows.
    status: filters.statuses ? [...new Set(filters.statuses)].sort() : null,
    created_since: filters.createdSince?.toISOString() ?? null,
    // Only when given, so that cursors issued before this filter existed stay valid.
    ...(filters.userExternalId === undefined ? {} : { user_external_id: filters.userExternalId }),
  };
  return createHash('sha256').update(canonicalJson(identity)).digest('hex').slice(0, 16);
}

export function encodeEarningCursor(position: EarningCursorPosition, fingerprint: string): string {
  const document = {
    v: VERSION,
    c: position?.createdAt.toISOString() ?? null,
    i: position?.id ?? null,
    f: fingerprint,
  };
  return Buffer.from(JSON.stringify(document)).toString('base64url');
}

export function decodeEarningCursor(cursor: string, fingerprint: string): EarningCursorPosition {
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
  if (typeof c !== 'string' || !ISO_MS.test(c) || typeof i !== 'string' || !EARNING_ID.test(i)) {
    throw new InvalidCursor(MALFORMED);
  }
  const createdAt = new Date(c);
  if (Number.isNaN(createdAt.getTime())) throw new InvalidCursor(MALFORMED);
  return { createdAt, id: i };
}
