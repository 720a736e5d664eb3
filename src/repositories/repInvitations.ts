import { newId } from '../lib/ids.ts';
import { sql, type Transaction } from './transaction.ts';

/** Links the email to the rep; an email invited before moves to this rep. */
export async function upsert(tx: Transaction, orgId: string, userId: string, email: string): Promise<void> {
  await tx.query(sql`
    INSERT INTO rep_invitations (id, org_id, user_id, email, created_at)
    VALUES (${newId('rinv')}, ${orgId}, ${userId}, ${email}, now())
    ON CONFLICT (org_id, email) DO UPDATE SET user_id = EXCLUDED.user_id, created_at = EXCLUDED.created_at`);
}

/** The rep the email was invited as, or null. */
export async function findRep(tx: Transaction, orgId: string, email: string): Promise<string | null> {
  const rows = await tx.query<{ user_id: string }>(
    sql`SELECT user_id FROM rep_invitations WHERE org_id = ${orgId} AND email = ${email}`,
  );
  return rows[0]?.user_id ?? null;
}
