import { Refusal } from '../domain/refusal.ts';

// The paging parameters of every list: `limit`, 1 to 200 (default 50), and the opaque `cursor`. A cursor the
// list's codec refuses is a `400 invalid_body` Refusal, for every list alike.

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

export interface PageRequest {
  limit: number;
  cursor?: string;
}

/** The page size and cursor from a list's validated query. */
export function pageRequest(query: { limit?: unknown; cursor?: string }): PageRequest {
  return { limit: pageLimit(query.limit), ...(query.cursor === undefined ? {} : { cursor: query.cursor }) };
}

/**
 * The page size from the validated query. The validator coerces query strings to numbers, and `1e309` becomes
 * Infinity on the way, which its bounds do not catch: the value is checked again here, before any statement.
 */
function pageLimit(raw: unknown): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new Refusal('invalid_body', `limit: must be an integer from 1 to ${MAX_LIMIT}`);
  }
  return limit;
}
