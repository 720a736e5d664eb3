import type { Prisma } from '../../generated/prisma/client.ts';
import type { Database } from '../db/prisma.ts';
import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import { prismaOr, type Transaction } from './transaction.ts';

export interface AuditEntryInput {
  id: string;
  org_id: string;
  occurred_at: Date;
  actor_type: 'api_key' | 'admin';
  actor?: string | null;
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
  actor: string | null;
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

/** The filters of the admin audit log; `from` is inclusive, `to` exclusive. */
export interface AuditFilters {
  actor?: string;
  keyId?: string;
  action?: string;
  from?: Date;
  to?: Date;
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

  /** Newest first, after `position`, with the filters (time range: from inclusive, to exclusive). */
  async listPage(
    orgId: string,
    filters: AuditFilters,
    position: KeysetPosition,
    limit: number,
  ): Promise<AuditEntryRecord[]> {
    const occurred = {
      ...(filters.from ? { gte: filters.from } : {}),
      ...(filters.to ? { lt: filters.to } : {}),
    };
    return this.db.auditEntry.findMany({
      where: {
        org_id: orgId,
        ...(filters.actor === undefined ? {} : { actor: filters.actor }),
        ...(filters.keyId === undefined ? {} : { key_id: filters.keyId }),
        ...(filters.action === undefined ? {} : { action: filters.action }),
        ...(Object.keys(occurred).length > 0 ? { occurred_at: occurred } : {}),
        ...(position
          ? {
              OR: [{ occurred_at: { lt: position.at } }, { occurred_at: position.at, id: { lt: position.id } }],
            }
          : {}),
      },
      orderBy: [{ occurred_at: 'desc' }, { id: 'desc' }],
      take: limit,
    });
  }
}
