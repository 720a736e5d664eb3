import type { Prisma } from '../../generated/prisma/client.ts';
import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import { named, prismaOf, type Transaction } from './transaction.ts';

export interface AuditEntryInput {
  id: string;
  org_id: string;
  occurred_at: Date;
  actor_type: 'api_key' | 'admin' | 'rep';
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

/** Newest first. */
export async function listForOrg(
  tx: Transaction,
  orgId: string,
  options: { limit: number; since?: Date },
): Promise<AuditEntryRecord[]> {
  return prismaOf(tx).auditEntry.findMany({
    where: { org_id: orgId, ...(options.since ? { occurred_at: { gte: options.since } } : {}) },
    orderBy: [{ occurred_at: 'desc' }, { id: 'desc' }],
    take: options.limit,
  });
}

/** Newest first, after `position`, with the filters (time range: from inclusive, to exclusive). */
export async function listPage(
  tx: Transaction,
  orgId: string,
  filters: AuditFilters,
  position: KeysetPosition,
  limit: number,
): Promise<AuditEntryRecord[]> {
  const occurred = {
    ...(filters.from ? { gte: filters.from } : {}),
    ...(filters.to ? { lt: filters.to } : {}),
  };
  return prismaOf(tx).auditEntry.findMany({
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

// The audit log's batch writes (src/audit/requestLog.ts) on a plain `pg` pool: one prepared statement per batch.
// Through Prisma, each batch went through its query compiler, which cost more of the server's CPU than the
// requests the batch recorded (measured with `BENCH_PROFILE=1 npm run bench`). The batch goes as one JSON document
// (JSON.stringify, native) rather than an array per column, which `pg` serialised element by element in
// JavaScript (two regular-expression escapes per text, a local-time rendering per timestamp) for every entry.

const INSERT_ENTRIES = `
  INSERT INTO audit_entries
    (id, org_id, occurred_at, actor_type, actor, key_id, action, method, route, status, request_id, client_ip,
     user_agent, duration_ms, details)
  SELECT e.id, e.org_id, e.occurred_at, e.actor_type, e.actor, e.key_id, e.action, e.method, e.route, e.status,
         e.request_id, e.client_ip, e.user_agent, round(e.duration_ms)::int, e.details
  FROM jsonb_to_recordset($1::jsonb) AS e(
    id text, org_id text, occurred_at timestamptz, actor_type text, actor text, key_id text, action text, method text,
    route text, status int, request_id text, client_ip text, user_agent text, duration_ms numeric, details jsonb)
  ON CONFLICT (org_id, id) DO NOTHING`;

/** Writes a batch of entries; an entry already written (a retried batch) is left as it is. */
export async function insertMany(tx: Transaction, entries: readonly AuditEntryInput[]): Promise<void> {
  if (entries.length === 0) return;
  // An absent field reads as null.
  await tx.query(named('audit_insert_entries_json', { text: INSERT_ENTRIES, values: [JSON.stringify(entries)] }));
}

const AUDIT_COLUMNS =
  'id, org_id, occurred_at, actor_type, key_id, action, method, route, status, request_id, client_ip, user_agent, duration_ms';
const AUDIT_TYPES = [
  'text',
  'text',
  'timestamptz',
  'text',
  'text',
  'text',
  'text',
  'text',
  'int',
  'text',
  'text',
  'text',
  'int',
] as const;

/**
 * The audit entry of a write as a CTE (`audited`) of the statement that makes the write, so the entry commits with
 * the write or not at all (a crash, or a shutdown that cuts the request, cannot leave a write without its entry),
 * and costs no round trip of its own. Its parameters are the `auditEntryValues`, numbered from `$first`; with a null
 * entry it writes nothing. When the connection closed first and the request's status-less entry was already
 * flushed, this one completes it.
 */
export function auditEntryCte(first: number): string {
  const values = AUDIT_TYPES.map((type, index) => `$${first + index}::${type}`).join(', ');
  return `audited AS (
    INSERT INTO audit_entries (${AUDIT_COLUMNS})
    SELECT ${values} WHERE $${first}::text IS NOT NULL
    ON CONFLICT (org_id, id) DO UPDATE SET status = EXCLUDED.status, duration_ms = EXCLUDED.duration_ms
    RETURNING id
  )`;
}

/** The parameters of `auditEntryCte`, in its order: as many as it has, all null without an entry. */
export function auditEntryValues(orgId: string, entry: AuditEntryInput | null): unknown[] {
  if (!entry) return AUDIT_TYPES.map(() => null);
  return [
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
    entry.duration_ms === undefined || entry.duration_ms === null ? null : Math.round(entry.duration_ms),
  ];
}
