import type { Prisma } from '../../generated/prisma/client.ts';
import type { Database } from '../db/prisma.ts';
import { named, prismaOr, type Transaction } from './transaction.ts';

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

const RECORD_WITH_WRITE = `
  INSERT INTO audit_entries (id, org_id, occurred_at, actor_type, key_id, action, method, route, status, request_id,
                             client_ip, user_agent, duration_ms)
  VALUES ($1, $2, $3::timestamptz, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
  ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, duration_ms = EXCLUDED.duration_ms`;

/**
 * Writes one audit entry inside the transaction of the write it records, so the entry commits with the write
 * or not at all: a crash, or a shutdown that cuts the request, cannot leave a write without its entry. When the
 * connection closed first and the request's status-less entry was already flushed, this one completes it.
 */
export async function recordWithWrite(tx: Transaction, orgId: string, entry: AuditEntryInput): Promise<void> {
  await tx.query(
    named('audit_entries_record_with_write', {
      text: RECORD_WITH_WRITE,
      values: [
        entry.id,
        orgId,
        entry.occurred_at,
        entry.actor_type,
        entry.key_id ?? null,
        entry.action,
        entry.method ?? null,
        entry.route ?? null,
        entry.status ?? null,
        entry.request_id ?? null,
        entry.client_ip ?? null,
        entry.user_agent ?? null,
        entry.duration_ms ?? null,
      ],
    }),
  );
}
