import { newId } from '../lib/ids.ts';
import { orgOfCredential } from './credentialOrgs.ts';
import { sql, type Transaction } from './transaction.ts';

/** Where a verified sign-in lands: the rep portal or, for an admin, the console. */
export type SignInDestination = 'portal' | 'console';

export interface SsoSignInAttempt {
  org_id: string;
  provider_id: string;
  nonce: string;
  code_verifier: string;
  destination: SignInDestination;
}

export async function insert(
  tx: Transaction,
  input: SsoSignInAttempt & { stateDigest: string; at: Date; expiresAt: Date },
): Promise<void> {
  await tx.query(sql`
    WITH lookup AS (
      INSERT INTO credential_orgs (kind, lookup, org_id, created_at)
      VALUES ('sso_state', ${input.stateDigest}, ${input.org_id}, ${input.at})
    )
    INSERT INTO sso_sign_in_attempts
      (id, state_digest, org_id, provider_id, nonce, code_verifier, destination, created_at, expires_at)
    VALUES (${newId('ssoa')}, ${input.stateDigest}, ${input.org_id}, ${input.provider_id}, ${input.nonce},
            ${input.code_verifier}, ${input.destination}, ${input.at}, ${input.expiresAt})`);
}

/**
 * The attempt of this state, marked consumed: null when there is none, it has expired or it was consumed before, so
 * a callback is answered once.
 */
export async function consume(tx: Transaction, stateDigest: string, at: Date): Promise<SsoSignInAttempt | null> {
  const orgId = await orgOfCredential(tx, 'sso_state', stateDigest);
  if (orgId === null) return null;
  const rows = await tx.query<SsoSignInAttempt>(sql`
    UPDATE sso_sign_in_attempts SET consumed_at = ${at}
    WHERE org_id = ${orgId}
      AND state_digest = ${stateDigest} AND consumed_at IS NULL AND expires_at > ${at}
    RETURNING org_id, provider_id, nonce, code_verifier, destination`);
  return rows[0] ?? null;
}

/**
 * Attempts that expired before `before` can answer nothing any more: they go, with their lookup rows, in two
 * statements as repSignInLinks.deleteExpired does (the reference table is written by digests as a parameter).
 */
export async function deleteExpired(tx: Transaction, before: Date): Promise<void> {
  const gone = await tx.query<{ state_digest: string }>(
    sql`DELETE FROM sso_sign_in_attempts WHERE expires_at < ${before} RETURNING state_digest`,
  );
  if (gone.length === 0) return;
  const digests = gone.map((row) => row.state_digest);
  await tx.query(sql`DELETE FROM credential_orgs WHERE kind = 'sso_state' AND lookup = ANY(${digests}::text[])`);
}
