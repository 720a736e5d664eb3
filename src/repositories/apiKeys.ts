import type { Database } from '../db/prisma.ts';
import { newId } from '../lib/ids.ts';

export interface ApiKeyRecord {
  id: string;
  org_id: string;
  name: string;
  display_prefix: string;
  scopes: string[];
  rate_limit_per_minute: number;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/** An active key found by its digest, with its org and the request count of the current window. */
export interface AuthenticatedKey {
  key: ApiKeyRecord;
  org_name: string;
  window_count: number;
}

const RECORD_FIELDS = {
  id: true,
  org_id: true,
  name: true,
  display_prefix: true,
  scopes: true,
  rate_limit_per_minute: true,
  created_at: true,
  revoked_at: true,
  last_used_at: true,
} as const;

export class ApiKeyRepository {
  private readonly db: Database;
  private readonly countersDb: Database;

  /** `countersDb` may commit asynchronously: a lost increment after a database crash is harmless. */
  constructor(db: Database, countersDb: Database = db) {
    this.db = db;
    this.countersDb = countersDb;
  }

  /**
   * One round trip per request: finds the active key and counts the request in its window. The upsert
   * serialises concurrent increments on the counter row, so the counts are exact across instances; a revoked
   * key is not found on the very next request because nothing is cached.
   */
  async authenticateAndCount(digest: string, windowStart: Date): Promise<AuthenticatedKey | null> {
    const rows = await this.countersDb.$queryRaw<Array<ApiKeyRecord & { org_name: string; window_count: number }>>`
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
      SELECT found.*, counted.count AS window_count FROM found, counted`;
    const row = rows[0];
    if (!row) return null;
    const { org_name, window_count, ...key } = row;
    return { key, org_name, window_count: Number(window_count) };
  }

  async create(input: {
    orgId: string;
    name: string;
    scopes: string[];
    rateLimitPerMinute: number;
    digest: string;
    displayPrefix: string;
  }): Promise<ApiKeyRecord> {
    return this.db.apiKey.create({
      data: {
        id: newId('key'),
        org_id: input.orgId,
        name: input.name,
        scopes: input.scopes,
        rate_limit_per_minute: input.rateLimitPerMinute,
        digest: input.digest,
        display_prefix: input.displayPrefix,
      },
      select: RECORD_FIELDS,
    });
  }

  async listForOrg(orgId: string): Promise<ApiKeyRecord[]> {
    return this.db.apiKey.findMany({ where: { org_id: orgId }, orderBy: { id: 'asc' }, select: RECORD_FIELDS });
  }

  async findForOrg(orgId: string, keyId: string): Promise<ApiKeyRecord | null> {
    return this.db.apiKey.findFirst({ where: { org_id: orgId, id: keyId }, select: RECORD_FIELDS });
  }

  /**
   * Revokes an active key. `record` is null when the org has no such key; `changed` is false when it was
   * already revoked (the first revocation time stays).
   */
  async revoke(orgId: string, keyId: string, at: Date): Promise<{ record: ApiKeyRecord | null; changed: boolean }> {
    const { count } = await this.db.apiKey.updateMany({
      where: { org_id: orgId, id: keyId, revoked_at: null },
      data: { revoked_at: at },
    });
    return { record: await this.findForOrg(orgId, keyId), changed: count > 0 };
  }

  /** Moves last_used_at forward only, whatever order batches from several instances arrive in. */
  async recordLastUsed(lastUsed: Map<string, Date>): Promise<void> {
    if (lastUsed.size === 0) return;
    const ids = [...lastUsed.keys()];
    const times = ids.map((id) => (lastUsed.get(id) as Date).toISOString());
    await this.db.$executeRaw`
      UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, u.used_at)
      FROM unnest(${ids}::text[], ${times}::timestamptz[]) AS u(id, used_at)
      WHERE k.id = u.id`;
  }

  async deleteCountersBefore(cutoff: Date): Promise<number> {
    return this.countersDb.$executeRaw`DELETE FROM rate_limit_counters WHERE window_start < ${cutoff}`;
  }
}
