import { newId } from '../lib/ids.ts';
import { orgOfCredential } from './credentialOrgs.ts';
import { sql, type Transaction } from './transaction.ts';

/** A live portal session with its rep, as every portal request reads it. */
export interface RepSessionWithRep {
  id: string;
  org_id: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  rep: { id: string; external_id: string; display_name: string | null; org_name: string };
}

interface SessionRow {
  id: string;
  org_id: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  user_id: string;
  external_id: string;
  display_name: string | null;
  org_name: string;
}

export async function create(
  tx: Transaction,
  input: { tokenDigest: string; orgId: string; userId: string; providerId: string | null; at: Date; expiresAt: Date },
): Promise<{ id: string }> {
  const id = newId('rses');
  await tx.query(sql`
    WITH lookup AS (
      INSERT INTO credential_orgs (kind, lookup, org_id, created_at)
      VALUES ('rep_session', ${input.tokenDigest}, ${input.orgId}, ${input.at})
    )
    INSERT INTO rep_sessions (id, token_digest, org_id, user_id, provider_id, created_at, last_seen_at, expires_at)
    VALUES (${id}, ${input.tokenDigest}, ${input.orgId}, ${input.userId}, ${input.providerId}, ${input.at}, ${input.at},
            ${input.expiresAt})`);
  return { id };
}

/** The session of this token digest, not ended; null otherwise. */
export async function findLive(tx: Transaction, tokenDigest: string): Promise<RepSessionWithRep | null> {
  const orgId = await orgOfCredential(tx, 'rep_session', tokenDigest);
  if (orgId === null) return null;
  const rows = await tx.query<SessionRow>(sql`
    SELECT s.id, s.org_id, s.created_at, s.last_seen_at, s.expires_at, u.id AS user_id, u.external_id, u.display_name,
           o.name AS org_name
    FROM rep_sessions s JOIN users u ON u.org_id = ${orgId} AND u.id = s.user_id JOIN orgs o ON o.id = ${orgId}
    WHERE s.org_id = ${orgId}
      AND s.token_digest = ${tokenDigest} AND s.ended_at IS NULL AND u.deactivated_at IS NULL`);
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    org_id: row.org_id,
    created_at: row.created_at,
    last_seen_at: row.last_seen_at,
    expires_at: row.expires_at,
    rep: { id: row.user_id, external_id: row.external_id, display_name: row.display_name, org_name: row.org_name },
  };
}

/** The session as findLive read it: its id, and its org (every statement names the org: docs/scaling.md). */
type SessionKey = Pick<RepSessionWithRep, 'id' | 'org_id'>;

export async function touch(tx: Transaction, session: SessionKey, at: Date): Promise<void> {
  await tx.query(
    sql`UPDATE rep_sessions SET last_seen_at = ${at} WHERE org_id = ${session.org_id} AND id = ${session.id}`,
  );
}

export async function end(tx: Transaction, session: SessionKey, at: Date): Promise<void> {
  await tx.query(
    sql`UPDATE rep_sessions SET ended_at = ${at}
        WHERE org_id = ${session.org_id} AND id = ${session.id} AND ended_at IS NULL`,
  );
}

/** Ends every live session of the rep (a deactivation); returns how many it ended. */
export async function endAllOfRep(tx: Transaction, orgId: string, userId: string, at: Date): Promise<number> {
  const rows = await tx.query<{ id: string }>(
    sql`UPDATE rep_sessions SET ended_at = ${at}
        WHERE org_id = ${orgId} AND user_id = ${userId} AND ended_at IS NULL RETURNING id`,
  );
  return rows.length;
}
