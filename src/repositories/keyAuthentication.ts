import type { ApiKeyRecord } from './apiKeys.ts';
import { named, type SqlPool, sql } from './transaction.ts';

/** An active key found by its digest, with its org and the request count of the current window. */
export interface AuthenticatedKey {
  key: ApiKeyRecord;
  org_name: string;
  window_count: number;
}

/**
 * The per-request hot path of the access layer, on a plain `pg` pool of its own: one named prepared statement
 * per request (through Prisma it was compiled and re-planned on every request), on connections that commit
 * without waiting for the WAL flush. Only rate-limit counters are written here, and a database crash forgetting
 * a few increments of the current minute is harmless, while a flush held under the hot counter row's lock capped
 * a key's throughput.
 */
export class KeyAuthentication {
  private readonly pool: SqlPool;

  constructor(pool: SqlPool) {
    this.pool = pool;
  }

  /**
   * Finds the active key and counts the request in its window, in one round trip. The upsert serialises
   * concurrent increments on the counter row, so counts are exact across instances; nothing is cached, so a
   * revoked key fails on the very next request.
   */
  async authenticateAndCount(digest: string, windowStart: Date): Promise<AuthenticatedKey | null> {
    const { rows } = await this.pool.query<ApiKeyRecord & { org_name: string; window_count: number }>(
      named(
        'authenticate_and_count',
        sql`
        WITH found AS (
          SELECT k.id, k.org_id, k.name, k.display_prefix, k.scopes, k.rate_limit_per_minute, k.created_at,
                 k.revoked_at, k.last_used_at, o.name AS org_name
          FROM api_keys k JOIN orgs o ON o.id = k.org_id
          WHERE k.digest = ${digest} AND k.revoked_at IS NULL
        ), counted AS (
          INSERT INTO rate_limit_counters (key_id, window_start, count)
          SELECT id, ${windowStart}, 1 FROM found
          ON CONFLICT (key_id, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
          RETURNING count
        )
        SELECT found.*, counted.count AS window_count FROM found, counted`,
      ),
    );
    const row = rows[0];
    if (!row) return null;
    const { org_name, window_count, ...key } = row;
    return { key, org_name, window_count: Number(window_count) };
  }

  async deleteCountersBefore(cutoff: Date): Promise<number> {
    const result = await this.pool.query(sql`DELETE FROM rate_limit_counters WHERE window_start < ${cutoff}`);
    return result.rowCount ?? 0;
  }
}
