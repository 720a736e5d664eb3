import { newId } from '../lib/ids.ts';
import { orgOfCredential } from './credentialOrgs.ts';
import { sql, type Transaction } from './transaction.ts';

export async function insert(
  tx: Transaction,
  input: { tokenDigest: string; orgId: string; userId: string; at: Date; expiresAt: Date },
): Promise<void> {
  await tx.query(sql`
    WITH lookup AS (
      INSERT INTO credential_orgs (kind, lookup, org_id, created_at)
      VALUES ('rep_sign_in_link', ${input.tokenDigest}, ${input.orgId}, ${input.at})
    )
    INSERT INTO rep_sign_in_links (id, token_digest, org_id, user_id, created_at, expires_at)
    VALUES (${newId('rlnk')}, ${input.tokenDigest}, ${input.orgId}, ${input.userId}, ${input.at}, ${input.expiresAt})`);
}

/** The rep the link signs in, the link marked used: null when unknown, expired or used before. */
export async function use(
  tx: Transaction,
  tokenDigest: string,
  at: Date,
): Promise<{ org_id: string; user_id: string } | null> {
  const orgId = await orgOfCredential(tx, 'rep_sign_in_link', tokenDigest);
  if (orgId === null) return null;
  const rows = await tx.query<{ org_id: string; user_id: string }>(sql`
    UPDATE rep_sign_in_links SET used_at = ${at}
    WHERE org_id = ${orgId}
      AND token_digest = ${tokenDigest} AND used_at IS NULL AND expires_at > ${at}
    RETURNING org_id, user_id`);
  return rows[0] ?? null;
}

/**
 * Links that expired before `before` can sign nobody in any more: they go, with their lookup rows. Two statements: the
 * links of every org first (a sweep), then the lookup rows by their digests as a parameter, so that the reference
 * table is never written from a distributed table's rows (docs/scaling.md). A lookup row left by a fault between
 * the two finds no link, so it signs nobody in; the next sweep does not see it again, and it is harmless.
 */
export async function deleteExpired(tx: Transaction, before: Date): Promise<void> {
  const gone = await tx.query<{ token_digest: string }>(
    sql`DELETE FROM rep_sign_in_links WHERE expires_at < ${before} RETURNING token_digest`,
  );
  if (gone.length === 0) return;
  const digests = gone.map((row) => row.token_digest);
  await tx.query(sql`DELETE FROM credential_orgs WHERE kind = 'rep_sign_in_link' AND lookup = ANY(${digests}::text[])`);
}
