import type { Prisma } from '../../generated/prisma/client.ts';
import type { Database } from '../db/prisma.ts';
import { prismaOr, type Transaction } from './transaction.ts';

export interface AuditEntryInput {
  id: string;
  org_id: string;
  occurred_at: Date;
  actor_type: 'api_key' | 'admin';
  key_id?: string | null;
  action: string;
  method?: string | null;
  route?: string | null;
  status?: number | null;
  request_id?: string | null;
  client_ip?: string | null;
  user_agent?: string | null;
  duration_ms?: number | null;
  details?: Prisma.InputJsonValue;
}

export interface AuditEntryRecord {
  id: string;
  org_id: string;
  occurred_at: Date;
  actor_type: string;
  key_id: string | null;
  action: string;
  method: string | null;
  route: string | null;
  status: number | null;
  request_id: string | null;
  client_ip: string | null;
  user_agent: string | null;
  duration_ms: number | null;
  details: unknown;
}

export class AuditRepository {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async insertMany(entries: AuditEntryInput[], tx?: Transaction): Promise<void> {
    if (entries.length === 0) return;
    await prismaOr(this.db, tx).auditEntry.createMany({ data: entries, skipDuplicates: true });
  }

  /** Newest first. */
  async listForOrg(orgId: string, options: { limit: number; since?: Date }): Promise<AuditEntryRecord[]> {
    return this.db.auditEntry.findMany({
      where: { org_id: orgId, ...(options.since ? { occurred_at: { gte: options.since } } : {}) },
      orderBy: [{ occurred_at: 'desc' }, { id: 'desc' }],
      take: options.limit,
    });
  }
}
