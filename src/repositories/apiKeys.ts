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

  constructor(db: Database) {
    this.db = db;
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
}
