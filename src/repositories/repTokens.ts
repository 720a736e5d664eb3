import { newId } from '../lib/ids.ts';
import { orgOfCredential } from './credentialOrgs.ts';
import type { ManagerEntryRecord } from './repManagers.ts';
import { named, sql, type Transaction } from './transaction.ts';

// Rep tokens (docs/rep-tokens.md) and the per-rep request counts of their rate limit. Plain SQL: a token is read on
// every request it makes, on the access layer's pool (see apiKeys.findActiveKey).

export interface RepTokenRecord {
  id: string;
  org_id: string;
  user_id: string;
  api_key_id: string | null;
  rep_session_id: string | null;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = 'id, org_id, user_id, api_key_id, rep_session_id, created_at, expires_at, revoked_at';

export async function create(
  tx: Transaction,
  input: {
    orgId: string;
    userId: string;
    digest: string;
    apiKeyId: string | null;
    repSessionId: string | null;
    at: Date;
    expiresAt: Date;
  },
): Promise<RepTokenRecord> {
  const rows = await tx.query<RepTokenRecord>({
    text: `WITH lookup AS (
             INSERT INTO credential_orgs (kind, lookup, org_id, created_at) VALUES ('rep_token', $4, $2, $7)
           )
           INSERT INTO rep_tokens (id, org_id, user_id, digest, api_key_id, rep_session_id, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    values: [
      newId('rtk'),
      input.orgId,
      input.userId,
      input.digest,
      input.apiKeyId,
      input.repSessionId,
      input.at,
      input.expiresAt,
    ],
  });
  return rows[0] as RepTokenRecord;
}

export async function findForOrg(tx: Transaction, orgId: string, id: string): Promise<RepTokenRecord | null> {
  const rows = await tx.query<RepTokenRecord>({
    text: `SELECT ${COLUMNS} FROM rep_tokens WHERE org_id = $1 AND id = $2`,
    values: [orgId, id],
  });
  return rows[0] ?? null;
}

/** Revokes the token if it is not yet; the first revocation time stays. Null when the org has no such token. */
export async function revoke(tx: Transaction, orgId: string, id: string, at: Date): Promise<RepTokenRecord | null> {
  await tx.query(
    sql`UPDATE rep_tokens SET revoked_at = ${at} WHERE org_id = ${orgId} AND id = ${id} AND revoked_at IS NULL`,
  );
  return findForOrg(tx, orgId, id);
}

/** Revokes every token minted for a portal session (its sign-out). */
export async function revokeForSession(
  tx: Transaction,
  session: { id: string; org_id: string },
  at: Date,
): Promise<void> {
  await tx.query(
    sql`UPDATE rep_tokens SET revoked_at = ${at}
        WHERE org_id = ${session.org_id} AND rep_session_id = ${session.id} AND revoked_at IS NULL`,
  );
}

/** Revokes every live token of the rep (a deactivation); returns how many it revoked. */
export async function revokeAllOfRep(tx: Transaction, orgId: string, userId: string, at: Date): Promise<number> {
  const rows = await tx.query<{ id: string }>(
    sql`UPDATE rep_tokens SET revoked_at = ${at}
        WHERE org_id = ${orgId} AND user_id = ${userId} AND revoked_at IS NULL RETURNING id`,
  );
  return rows.length;
}

/** A token found by its digest, with what a request needs of its rep and org, and the rep's window count. */
export interface FoundRepToken {
  id: string;
  org_id: string;
  user_id: string;
  expires_at: Date;
  revoked_at: Date | null;
  external_id: string;
  display_name: string | null;
  org_name: string;
  cors_allowed_origins: string[] | null;
  rep_rate_limit_per_minute: number;
  /** The rep's requests in the window, this one included; null when the token is revoked or expired (not counted). */
  window_count: number | null;
}

const FIND_AND_COUNT = `
  WITH found AS (
    SELECT t.id, t.org_id, t.user_id, t.expires_at, t.revoked_at, u.external_id, u.display_name, o.name AS org_name,
           o.cors_allowed_origins, o.rep_rate_limit_per_minute
    FROM rep_tokens t JOIN users u ON u.org_id = $1 AND u.id = t.user_id JOIN orgs o ON o.id = $1
    WHERE t.org_id = $1 AND t.digest = $2
  ), counted AS (
    INSERT INTO rep_rate_limit_counters (org_id, user_id, window_start, count)
    SELECT org_id, user_id, $3, 1 FROM found WHERE revoked_at IS NULL AND expires_at > $4
    ON CONFLICT (org_id, user_id, window_start) DO UPDATE SET count = rep_rate_limit_counters.count + 1
    RETURNING count
  )
  SELECT found.*, (SELECT count FROM counted) AS window_count FROM found`;

const HIERARCHY_OF_TOKEN_ORG = `
  SELECT m.rep_user_id, m.manager_user_id, m.effective_from::text AS "from"
  FROM rep_managers m
  WHERE m.org_id = $1`;

/**
 * The token of a digest (revoked and expired ones too, so the refusal can say which), counted in its rep's window
 * when it is live at `now`, and the hierarchy entries of its org, as rep and manager user ids. The digest's org is
 * read from credential_orgs first; then the two statements, sent together, name it as a parameter, so that Citus
 * routes them to the org's node (as a subquery, `org_id = (SELECT org_id FROM credential_orgs …)`, it cannot prune
 * on it: docs/scaling.md#citus-rules-checked-without-citus).
 */
export async function authenticateAndCount(
  tx: Transaction,
  digest: string,
  windowStart: Date,
  now: Date,
): Promise<{
  token: FoundRepToken;
  hierarchy: Array<Pick<ManagerEntryRecord, 'rep_user_id' | 'manager_user_id' | 'from'>>;
} | null> {
  const orgId = await orgOfCredential(tx, 'rep_token', digest);
  if (orgId === null) return null;
  const [tokens, hierarchy] = await Promise.all([
    tx.query<FoundRepToken>(
      named('rep_token_authenticate', { text: FIND_AND_COUNT, values: [orgId, digest, windowStart, now] }),
    ),
    tx.query<Pick<ManagerEntryRecord, 'rep_user_id' | 'manager_user_id' | 'from'>>(
      named('rep_token_hierarchy', { text: HIERARCHY_OF_TOKEN_ORG, values: [orgId] }),
    ),
  ]);
  const token = tokens[0];
  if (!token) return null;
  return {
    token: { ...token, window_count: token.window_count === null ? null : Number(token.window_count) },
    hierarchy,
  };
}

export async function deleteCountersBefore(tx: Transaction, cutoff: Date): Promise<number> {
  const deleted = await tx.query(
    sql`DELETE FROM rep_rate_limit_counters WHERE window_start < ${cutoff} RETURNING user_id`,
  );
  return deleted.length;
}
