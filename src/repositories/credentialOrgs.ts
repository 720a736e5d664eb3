import { sql, type Transaction } from './transaction.ts';

/** The kinds of secret (or email) whose org credential_orgs records (docs/scaling.md). */
export type CredentialKind = 'rep_session' | 'rep_sign_in_link' | 'sso_state';

/**
 * The org of a credential before its org is known, from the reference table credential_orgs by its whole key; null
 * when unknown. A statement of its own: the statements that follow name the org as a parameter, which Citus routes to
 * the org's node (`org_id = (SELECT org_id FROM credential_orgs …)` in one statement it cannot prune on:
 * docs/scaling.md#citus-rules-checked-without-citus).
 */
export async function orgOfCredential(tx: Transaction, kind: CredentialKind, lookup: string): Promise<string | null> {
  const rows = await tx.query<{ org_id: string }>(
    sql`SELECT org_id FROM credential_orgs WHERE kind = ${kind} AND lookup = ${lookup}`,
  );
  return rows[0]?.org_id ?? null;
}
