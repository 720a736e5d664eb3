import { sql, type Transaction } from './transaction.ts';

/**
 * A rep as a provider's SCIM client sees them (docs/sso.md#provisioning-with-scim): every rep of the org, with the
 * link to this provider when its client provisioned them, and the first email the rep was invited with.
 */
export interface ScimRepRecord {
  id: string;
  external_id: string;
  display_name: string | null;
  active: boolean;
  leaving_date: string | null;
  created_at: Date;
  user_name: string | null;
  idp_external_id: string | null;
  linked_at: Date | null;
  updated_at: Date | null;
  email: string | null;
}

const REPS_OF_ORG = `
    SELECT u.id, u.external_id, u.display_name, u.deactivated_at IS NULL AS active,
           to_char(u.leaving_date, 'YYYY-MM-DD') AS leaving_date, u.created_at,
           s.user_name, s.idp_external_id, s.created_at AS linked_at, s.updated_at,
           (SELECT min(i.email) FROM rep_invitations i WHERE i.org_id = $1 AND i.user_id = u.id) AS email
      FROM users u
      LEFT JOIN scim_users s ON s.org_id = u.org_id AND s.user_id = u.id AND s.provider_id = $2
     WHERE u.org_id = $1 AND u.role = 'rep' AND (s.user_id IS NOT NULL OR u.deactivated_at IS NULL)`;

/** Every rep of the org, in the order they were created (a SCIM list pages through them in that order). */
export async function listReps(tx: Transaction, orgId: string, providerId: string): Promise<ScimRepRecord[]> {
  return tx.query<ScimRepRecord>({ text: `${REPS_OF_ORG} ORDER BY u.created_at, u.id`, values: [orgId, providerId] });
}

/** One rep of the org by user id, or null. */
export async function findRep(
  tx: Transaction,
  orgId: string,
  providerId: string,
  userId: string,
): Promise<ScimRepRecord | null> {
  const rows = await tx.query<ScimRepRecord>({
    text: `${REPS_OF_ORG} AND u.id = $3`,
    values: [orgId, providerId, userId],
  });
  return rows[0] ?? null;
}

/** The rep this provider provisioned under the userName (compared lower-cased), or null. */
export async function repOfUserName(
  tx: Transaction,
  orgId: string,
  providerId: string,
  userName: string,
): Promise<string | null> {
  const rows = await tx.query<{ user_id: string }>(
    sql`SELECT user_id FROM scim_users WHERE org_id = ${orgId} AND provider_id = ${providerId} AND user_name = ${userName}`,
  );
  return rows[0]?.user_id ?? null;
}

/** Links the rep to the provider under the userName (a rep has one link; a new provider's link replaces another's). */
export async function link(
  tx: Transaction,
  input: {
    orgId: string;
    userId: string;
    providerId: string;
    userName: string;
    idpExternalId: string | null;
    at: Date;
  },
): Promise<void> {
  await tx.query(sql`
    INSERT INTO scim_users (org_id, user_id, provider_id, user_name, idp_external_id, created_at, updated_at)
    VALUES (${input.orgId}, ${input.userId}, ${input.providerId}, ${input.userName}, ${input.idpExternalId}::text,
            ${input.at}, ${input.at})
    ON CONFLICT (org_id, user_id) DO UPDATE SET
      provider_id = EXCLUDED.provider_id, user_name = EXCLUDED.user_name,
      idp_external_id = EXCLUDED.idp_external_id, updated_at = EXCLUDED.updated_at`);
}

/** Removes the rep's link to the provider; false when there was none. */
export async function unlink(tx: Transaction, orgId: string, providerId: string, userId: string): Promise<boolean> {
  const rows = await tx.query<{ user_id: string }>(sql`
    DELETE FROM scim_users WHERE org_id = ${orgId} AND provider_id = ${providerId} AND user_id = ${userId}
    RETURNING user_id`);
  return rows.length > 0;
}
