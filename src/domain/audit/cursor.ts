import { createHash } from 'node:crypto';
import { InvalidCursor } from '../deals/cursor.ts';
import { canonicalJson, isJsonObject } from '../json.ts';

// The opaque cursor of the admin audit log (newest first): base64url of the position of the last entry returned,
// (occurred_at, id), and a fingerprint of the org and the filters it was issued for, as the deals and earnings
// cursors do, so a cursor sent with other filters is refused instead of skipping entries.

export interface AuditFilters {
  actor?: string;
  keyId?: string;
  action?: string;
  from?: Date;
  to?: Date;
}

export type AuditPosition = { occurredAt: Date; id: string } | null;

const VERSION = 1;
const AUDIT_ID = /^aud_[0-7][0-9a-hjkmnp-tv-z]{25}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MALFORMED = 'is malformed; pass the next_cursor of a previous page unchanged';

export function auditFilterFingerprint(orgId: string, filters: AuditFilters): string {
  const identity = {
    org: orgId,
    actor: filters.actor ?? null,
    key_id: filters.keyId ?? null,
    action: filters.action ?? null,
    from: filters.from?.toISOString() ?? null,
    to: filters.to?.toISOString() ?? null,
  };
  return createHash('sha256').update(canonicalJson(identity)).digest('hex').slice(0, 16);
}

export function encodeAuditCursor(position: { occurredAt: Date; id: string }, fingerprint: string): string {
  return Buffer.from(
    JSON.stringify({ v: VERSION, o: position.occurredAt.toISOString(), i: position.id, f: fingerprint }),
  ).toString('base64url');
}

export function decodeAuditCursor(cursor: string, fingerprint: string): AuditPosition {
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
  const { o, i } = document;
  if (typeof o !== 'string' || !ISO_MS.test(o) || typeof i !== 'string' || !AUDIT_ID.test(i)) {
    throw new InvalidCursor(MALFORMED);
  }
  const occurredAt = new Date(o);
  if (Number.isNaN(occurredAt.getTime())) throw new InvalidCursor(MALFORMED);
  return { occurredAt, id: i };
}
