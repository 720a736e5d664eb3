import { ApiError } from './errors.ts';

// The `limit` of every list (product.md section 4): 1 to 200, default 50.

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/**
 * The page size from the validated query. The validator coerces query strings to numbers, and `1e309` becomes
 * Infinity on the way, which its bounds do not catch: the value is checked again here, before any statement.
 */
export function pageLimit(raw: unknown): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new ApiError('invalid_body', `limit: must be an integer from 1 to ${MAX_LIMIT}`);
  }
  return limit;
}
