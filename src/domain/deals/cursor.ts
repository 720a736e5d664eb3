import { createHash } from 'node:crypto';
import { canonicalJson, isJsonObject } from '../json.ts';

// The opaque cursor of GET /v1/deals: base64url of a small JSON document with the position of the last deal
// returned, (updated_at, id), and a fingerprint of the org and the filters it was issued for, so that a cursor
// sent with other filters (or by another org) is refused instead of silently skipping deals.

export const DEAL_LIST_STATUSES = ['open', 'won', 'lost', 'deleted'] as const;

export interface DealListFilters {
  status?: (typeof DEAL_LIST_STATUSES)[number];
  stage?: string;
  ownerExternalId?: string;
  externalId?: string;
  updatedSince?: Date;
  includeDeleted: boolean;
}

/** The last deal a page returned; null means "before the first deal". */
export type DealPosition = { updatedAt: Date; id: string } | null;

export class InvalidCursor extends Error {
  readonly problem: string;

  constructor(problem: string) {
    super(`cursor: ${problem}`);
    this.name = 'InvalidCursor';
    this.problem = problem;
  }
}

const VERSION = 1;
const DEAL_ID = /^deal_[0-7][0-9a-hjkmnp-tv-z]{25}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** 16 hex characters of SHA-256 over the org and the filters (not the limit, which may change per page). */
export function filterFingerprint(orgId: string, filters: DealListFilters): string {
  const identity = {
    org: orgId,
    status: filters.status ?? null,
    stage: filters.stage ?? null,
    owner: filters.ownerExternalId ?? null,
    external_id: filters.externalId ?? null,
    updated_since: filters.updatedSince?.toISOString() ?? null,
    include_deleted: filters.includeDeleted,
  };
  return createHash('sha256').update(canonicalJson(identity)).digest('hex').slice(0, 16);
}

export function encodeCursor(position: DealPosition, fingerprint: string): string {
  const document = {
    v: VERSION,
    u: position?.updatedAt.toISOString() ?? null,
    i: position?.id ?? null,
    f: fingerprint,
  };
  return Buffer.from(JSON.stringify(document)).toString('base64url');
}

export function decodeCursor(cursor: string, fingerprint: string): DealPosition {
  let document: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    document = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursor('is malformed; pass the next_cursor of a previous page unchanged');
  }
  if (!isJsonObject(document) || document.v !== VERSION || typeof document.f !== 'string') {
    throw new InvalidCursor('is malformed; pass the next_cursor of a previous page unchanged');
  }
  if (document.f !== fingerprint) {
    throw new InvalidCursor('was issued for other filters; send it with the same filters as the page it came from');
  }
  const { u, i } = document;
  if (u === null && i === null) return null;
  if (typeof u !== 'string' || !ISO_MS.test(u) || typeof i !== 'string' || !DEAL_ID.test(i)) {
    throw new InvalidCursor('is malformed; pass the next_cursor of a previous page unchanged');
  }
  const updatedAt = new Date(u);
  if (Number.isNaN(updatedAt.getTime())) {
    throw new InvalidCursor('is malformed; pass the next_cursor of a previous page unchanged');
  }
  return { updatedAt, id: i };
}
