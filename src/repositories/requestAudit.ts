import type { AuditEntryInput } from './audit.ts';
import { named, type SqlPool } from './transaction.ts';

// The audit log's batch writes (src/audit/requestLog.ts) on a plain `pg` pool: one prepared statement per batch.
// Through Prisma, each batch went through its query compiler, which cost more of the server's CPU than the
// requests the batch recorded (measured with `BENCH_PROFILE=1 npm run bench`). The batch goes as one JSON document
// (JSON.stringify, native) rather than an array per column, which `pg` serialised element by element in
// JavaScript (two regular-expression escapes per text, a local-time rendering per timestamp) for every entry.

const INSERT_ENTRIES = `
  INSERT INTO audit_entries
    (id, org_id, occurred_at, actor_type, key_id, action, method, route, status, request_id, client_ip, user_agent,
     duration_ms, details)
  SELECT e.id, e.org_id, e.occurred_at, e.actor_type, e.key_id, e.action, e.method, e.route, e.status, e.request_id,
         e.client_ip, e.user_agent, round(e.duration_ms)::int, e.details
  FROM jsonb_to_recordset($1::jsonb) AS e(
    id text, org_id text, occurred_at timestamptz, actor_type text, key_id text, action text, method text, route text,
    status int, request_id text, client_ip text, user_agent text, duration_ms numeric, details jsonb)
  ON CONFLICT (id) DO NOTHING`;

const RECORD_LAST_USED = `
  UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, u.used_at)
  FROM unnest($1::text[], $2::timestamptz[]) AS u(id, used_at)
  WHERE k.id = u.id`;

export class RequestAuditRepository {
  private readonly pool: SqlPool;

  constructor(pool: SqlPool) {
    this.pool = pool;
  }

  /** Writes a batch of entries; an entry already written (a retried batch) is left as it is. */
  async insertMany(entries: readonly AuditEntryInput[]): Promise<void> {
    if (entries.length === 0) return;
    // An absent field reads as null; an entry's other fields (`actor`) are not columns of this statement.
    await this.pool.query(
      named('audit_insert_entries_json', { text: INSERT_ENTRIES, values: [JSON.stringify(entries)] }),
    );
  }

  /** Moves last_used_at forward only, whatever order batches from several instances arrive in. */
  async recordLastUsed(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    if (lastUsed.size === 0) return;
    await this.pool.query(
      named('audit_record_last_used', {
        text: RECORD_LAST_USED,
        values: [[...lastUsed.keys()], [...lastUsed.values()]],
      }),
    );
  }
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
    ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, duration_ms = EXCLUDED.duration_ms
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
