import { newId } from '../lib/ids.ts';
import { sql, type Transaction } from './transaction.ts';

export async function insert(
  tx: Transaction,
  input: { tokenDigest: string; orgId: string; userId: string; at: Date; expiresAt: Date },
): Promise<void> {
  await tx.query(sql`
    INSERT INTO rep_sign_in_links (id, token_digest, org_id, user_id, created_at, expires_at)
    VALUES (${newId('rlnk')}, ${input.tokenDigest}, ${input.orgId}, ${input.userId}, ${input.at}, ${input.expiresAt})`);
}

/** The rep the link signs in, the link marked used: null when unknown, expired or used before. */
export async function use(
  tx: Transaction,
  tokenDigest: string,
  at: Date,
): Promise<{ org_id: string; user_id: string } | null> {
  const rows = await tx.query<{ org_id: string; user_id: string }>(sql`
    UPDATE rep_sign_in_links SET used_at = ${at}
    WHERE token_digest = ${tokenDigest} AND used_at IS NULL AND expires_at > ${at}
    RETURNING org_id, user_id`);
  return rows[0] ?? null;
}

/** Links that expired before `before` can sign nobody in any more. */
export async function deleteExpired(tx: Transaction, before: Date): Promise<void> {
  await tx.query(sql`DELETE FROM rep_sign_in_links WHERE expires_at < ${before}`);
}
