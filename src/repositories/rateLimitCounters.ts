import { type ActiveKey, type ApiKeyRecord, FIND_ACTIVE_KEY } from './apiKeys.ts';
import { orgOfCredential } from './credentialOrgs.ts';
import { named, sql, type Transaction } from './transaction.ts';

// The request counts of the rate limit, per key and one-minute window, on the access layer's hot path (see
// apiKeys.findActiveKey): plain SQL on a pool of its own whose commits do not wait for the disk.

/** An active key and the request count of the current window, this request included. */
export interface AuthenticatedKey extends ActiveKey {
  window_count: number;
}

const FIND_AND_COUNT = `
  WITH found AS (${FIND_ACTIVE_KEY}
  ), counted AS (
    INSERT INTO rate_limit_counters (org_id, key_id, window_start, count)
    SELECT org_id, id, $3, 1 FROM found
    ON CONFLICT (org_id, key_id, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
    RETURNING count
  )
  SELECT found.*, counted.count AS window_count FROM found, counted`;

/**
 * Finds the active key and counts the request in its window's row, in two round trips (the `postgres` rate-limit
 * store): the digest's org first, then the key and its count by that org (one node on Citus). The upsert serialises concurrent increments on the counter row, so counts are exact across instances.
 */
export async function authenticateAndCount(
  tx: Transaction,
  digest: string,
  windowStart: Date,
): Promise<AuthenticatedKey | null> {
  const orgId = await orgOfCredential(tx, 'api_key', digest);
  if (orgId === null) return null;
  const rows = await tx.query<ApiKeyRecord & { org_name: string; window_count: number }>(
    named('authenticate_and_count', { text: FIND_AND_COUNT, values: [orgId, digest, windowStart] }),
  );
  const row = rows[0];
  if (!row) return null;
  const { org_name, window_count, ...key } = row;
  return { key, org_name, window_count: Number(window_count) };
}

/** The stored counts of a window, by key id (what an in-memory store starts from). */
export async function windowCounts(tx: Transaction, windowStart: Date): Promise<Map<string, number>> {
  const rows = await tx.query<{ key_id: string; count: number }>(
    sql`SELECT key_id, count FROM rate_limit_counters WHERE window_start = ${windowStart}`,
  );
  return new Map(rows.map((row) => [row.key_id, Number(row.count)]));
}

/** Stores counts of a window kept elsewhere; a stored count never goes down. */
export async function saveWindowCounts(
  tx: Transaction,
  windowStart: Date,
  counts: ReadonlyMap<string, number>,
): Promise<void> {
  if (counts.size === 0) return;
  await tx.query(
    sql`INSERT INTO rate_limit_counters (org_id, key_id, window_start, count)
        SELECT k.org_id, c.key_id, ${windowStart}, c.count
        FROM unnest(${[...counts.keys()]}::text[], ${[...counts.values()]}::int[]) AS c(key_id, count)
        JOIN api_keys k ON k.id = c.key_id
        ON CONFLICT (org_id, key_id, window_start) DO UPDATE SET count = GREATEST(rate_limit_counters.count, EXCLUDED.count)`,
  );
}

export async function deleteCountersBefore(tx: Transaction, cutoff: Date): Promise<number> {
  const deleted = await tx.query(sql`DELETE FROM rate_limit_counters WHERE window_start < ${cutoff} RETURNING key_id`);
  return deleted.length;
}
