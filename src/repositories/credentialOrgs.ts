import { named, type Transaction } from './transaction.ts';

/** The kinds of secret whose org credential_orgs records, looked up before the org is known (docs/scaling.md). */
export type CredentialKind =
  | 'api_key'
  | 'rep_token'
  | 'admin_session'
  | 'rep_session'
  | 'rep_sign_in_link'
  | 'sso_state'
  | 'scim_token';

/**
 * The org of a credential before its org is known, from the reference table credential_orgs by its whole key; null
 * when unknown. A statement of its own: the statements that follow name the org as a parameter, which Citus routes to
 * the org's node (`org_id = (SELECT org_id FROM credential_orgs …)` in one statement it cannot prune on:
 * docs/scaling.md#citus-rules-checked-without-citus). Named: every authenticated request runs it.
 */
export async function orgOfCredential(tx: Transaction, kind: CredentialKind, lookup: string): Promise<string | null> {
  const rows = await tx.query<{ org_id: string }>(
    named('credential_org', {
      text: 'SELECT org_id FROM credential_orgs WHERE kind = $1 AND lookup = $2',
      values: [kind, lookup],
    }),
  );
  return rows[0]?.org_id ?? null;
}
