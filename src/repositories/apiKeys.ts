import { newId } from '../lib/ids.ts';
import { orgOfCredential } from './credentialOrgs.ts';
import { named, prismaOf, type Transaction } from './transaction.ts';

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

const INSERT_KEY = `
  WITH lookup AS (
    INSERT INTO credential_orgs (kind, lookup, org_id) VALUES ('api_key', $6, $2)
  )
  INSERT INTO api_keys (id, org_id, name, scopes, rate_limit_per_minute, digest, display_prefix)
  VALUES ($1, $2, $3, $4::text[], $5, $6, $7)
  RETURNING id, org_id, name, display_prefix, scopes, rate_limit_per_minute, created_at, revoked_at, last_used_at`;

/**
 * A new key, and in the same statement the row of `credential_orgs` that finds its org by its digest before any
 * org is known (docs/scaling.md).
 */
export async function create(
  tx: Transaction,
  input: {
    orgId: string;
    name: string;
    scopes: string[];
    rateLimitPerMinute: number;
    digest: string;
    displayPrefix: string;
  },
): Promise<ApiKeyRecord> {
  const rows = await tx.query<ApiKeyRecord>({
    text: INSERT_KEY,
    values: [
      newId('key'),
      input.orgId,
      input.name,
      input.scopes,
      input.rateLimitPerMinute,
      input.digest,
      input.displayPrefix,
    ],
  });
  return rows[0] as ApiKeyRecord;
}

export async function listForOrg(tx: Transaction, orgId: string): Promise<ApiKeyRecord[]> {
  return prismaOf(tx).apiKey.findMany({ where: { org_id: orgId }, orderBy: { id: 'asc' }, select: RECORD_FIELDS });
}

export async function findForOrg(tx: Transaction, orgId: string, keyId: string): Promise<ApiKeyRecord | null> {
  return prismaOf(tx).apiKey.findFirst({ where: { org_id: orgId, id: keyId }, select: RECORD_FIELDS });
}

/**
 * Revokes an active key. `record` is null when the org has no such key; `changed` is false when it was
 * already revoked (the first revocation time stays).
 */
export async function revoke(
  tx: Transaction,
  orgId: string,
  keyId: string,
  at: Date,
): Promise<{ record: ApiKeyRecord | null; changed: boolean }> {
  const { count } = await prismaOf(tx).apiKey.updateMany({
    where: { org_id: orgId, id: keyId, revoked_at: null },
    data: { revoked_at: at },
  });
  return { record: await findForOrg(tx, orgId, keyId), changed: count > 0 };
}

const RECORD_LAST_USED = `
  UPDATE api_keys k SET last_used_at = GREATEST(k.last_used_at, u.used_at)
  FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS u(org_id, id, used_at)
  WHERE k.org_id = u.org_id AND k.id = u.id`;

/** Moves last_used_at forward only, whatever order batches from several instances arrive in. */
export async function recordLastUsed(
  tx: Transaction,
  lastUsed: ReadonlyMap<string, { orgId: string; at: Date }>,
): Promise<void> {
  if (lastUsed.size === 0) return;
  const uses = [...lastUsed.entries()];
  await tx.query(
    named('audit_record_last_used', {
      text: RECORD_LAST_USED,
      values: [uses.map(([, use]) => use.orgId), uses.map(([keyId]) => keyId), uses.map(([, use]) => use.at)],
    }),
  );
}

// The per-request hot path of the access layer, on a plain `pg` pool of its own: one named prepared statement
// per request (through Prisma it was compiled and re-planned on every request), on connections that commit
// without waiting for the WAL flush. Only rate-limit counters are written there (rateLimitCounters), and a database crash forgetting
// a few increments of the current minute is harmless, while a flush held under the hot counter row's lock capped
// a key's throughput. Nothing is cached: a revoked key fails on the very next request, on every instance.

/** An active key found by its digest, with its org. */
export interface ActiveKey {
  key: ApiKeyRecord;
  org_name: string;
}

/**
 * The active key of the org `$1` and the digest `$2` with its org's name (also the first step of rateLimitCounters'
 * count): the second statement, after the digest's org (orgOfCredential), named by the org's parameter on every
 * table so that Citus routes it to the org's node. Joined to credential_orgs in one statement instead, the org was bound by the join
 * alone, and Citus read every shard of api_keys on every request (docs/scaling.md#citus-rules-checked-without-citus).
 */
export const FIND_ACTIVE_KEY = `
  SELECT k.id, k.org_id, k.name, k.display_prefix, k.scopes, k.rate_limit_per_minute, k.created_at, k.revoked_at,
         k.last_used_at, o.name AS org_name
  FROM api_keys k
  JOIN orgs o ON o.id = $1
  WHERE k.org_id = $1 AND k.digest = $2 AND k.revoked_at IS NULL`;

/** The active key of a digest, read with two indexed selects (its org, then the key); null when unknown or revoked. */
export async function findActiveKey(tx: Transaction, digest: string): Promise<ActiveKey | null> {
  const orgId = await orgOfCredential(tx, 'api_key', digest);
  if (orgId === null) return null;
  const rows = await tx.query<ApiKeyRecord & { org_name: string }>(
    named('authenticate', { text: FIND_ACTIVE_KEY, values: [orgId, digest] }),
  );
  const row = rows[0];
  if (!row) return null;
  const { org_name, ...key } = row;
  return { key, org_name };
}
