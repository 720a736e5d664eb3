import { newId } from '../lib/ids.ts';
import type { Transaction } from './transaction.ts';

/** An identity provider as the admin API lists it: never with its client secret. */
export interface IdentityProviderRecord {
  id: string;
  org_id: string;
  name: string;
  issuer: string;
  client_id: string;
  email_domains: string[];
  email_claim: string;
  owner_id_claim: string | null;
  admins_allowed: boolean;
  created_at: Date;
}

/** What a sign-in needs: the record and the client secret. */
export interface IdentityProviderCredentials extends IdentityProviderRecord {
  client_secret: string;
}

export interface NewIdentityProvider {
  orgId: string;
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  emailDomains: string[];
  emailClaim: string;
  ownerIdClaim: string | null;
  adminsAllowed: boolean;
}

const LISTED =
  'id, org_id, name, issuer, client_id, email_domains, email_claim, owner_id_claim, admins_allowed, created_at';

/** Null when the org has a provider of that name already. */
export async function insert(tx: Transaction, input: NewIdentityProvider): Promise<IdentityProviderRecord | null> {
  const rows = await tx.query<IdentityProviderRecord>({
    text: `INSERT INTO identity_providers
             (id, org_id, name, issuer, client_id, client_secret, email_domains, email_claim, owner_id_claim, admins_allowed)
           VALUES ($1, $2, $3, $4, $5, $6, $7::text[], $8, $9, $10)
           ON CONFLICT (org_id, name) DO NOTHING
           RETURNING ${LISTED}`,
    values: [
      newId('idp'),
      input.orgId,
      input.name,
      input.issuer,
      input.clientId,
      input.clientSecret,
      input.emailDomains,
      input.emailClaim,
      input.ownerIdClaim,
      input.adminsAllowed,
    ],
  });
  return rows[0] ?? null;
}

export async function listForOrg(tx: Transaction, orgId: string): Promise<IdentityProviderRecord[]> {
  return tx.query<IdentityProviderRecord>({
    text: `SELECT ${LISTED} FROM identity_providers WHERE org_id = $1 ORDER BY name`,
    values: [orgId],
  });
}

/** The org's provider by id or by name, with its secret, for a sign-in. */
export async function findCredentials(
  tx: Transaction,
  orgId: string,
  idOrName: string,
): Promise<IdentityProviderCredentials | null> {
  const rows = await tx.query<IdentityProviderCredentials>({
    text: `SELECT ${LISTED}, client_secret FROM identity_providers WHERE org_id = $1 AND (id = $2 OR name = $2)`,
    values: [orgId, idOrName],
  });
  return rows[0] ?? null;
}

/** The removed provider, or null when the org has none of that id or name. */
export async function remove(tx: Transaction, orgId: string, idOrName: string): Promise<IdentityProviderRecord | null> {
  const rows = await tx.query<IdentityProviderRecord>({
    text: `DELETE FROM identity_providers WHERE org_id = $1 AND (id = $2 OR name = $2) RETURNING ${LISTED}`,
    values: [orgId, idOrName],
  });
  return rows[0] ?? null;
}

/** The fields of a provider an admin changes in place; the rest stay. */
export interface IdentityProviderChange {
  clientId?: string;
  clientSecret?: string;
  emailDomains?: string[];
  emailClaim?: string;
  ownerIdClaim?: string | null;
  adminsAllowed?: boolean;
}

/** The provider as changed, or null when the org has none of that id or name. */
export async function update(
  tx: Transaction,
  orgId: string,
  idOrName: string,
  change: IdentityProviderChange,
): Promise<IdentityProviderRecord | null> {
  const rows = await tx.query<IdentityProviderRecord>({
    text: `UPDATE identity_providers SET
             client_id = CASE WHEN $3 THEN $4 ELSE client_id END,
             client_secret = CASE WHEN $5 THEN $6 ELSE client_secret END,
             email_domains = CASE WHEN $7 THEN $8::text[] ELSE email_domains END,
             email_claim = CASE WHEN $9 THEN $10 ELSE email_claim END,
             owner_id_claim = CASE WHEN $11 THEN $12 ELSE owner_id_claim END,
             admins_allowed = CASE WHEN $13 THEN $14 ELSE admins_allowed END
           WHERE org_id = $1 AND (id = $2 OR name = $2)
           RETURNING ${LISTED}`,
    values: [
      orgId,
      idOrName,
      change.clientId !== undefined,
      change.clientId ?? null,
      change.clientSecret !== undefined,
      change.clientSecret ?? null,
      change.emailDomains !== undefined,
      change.emailDomains ?? null,
      change.emailClaim !== undefined,
      change.emailClaim ?? null,
      change.ownerIdClaim !== undefined,
      change.ownerIdClaim ?? null,
      change.adminsAllowed !== undefined,
      change.adminsAllowed ?? null,
    ],
  });
  return rows[0] ?? null;
}

/** A provider through which admins with an email of the domain may sign in to the console, with its org's name. */
export interface AdminSignInProvider {
  org_id: string;
  org_name: string;
  name: string;
}

/**
 * Every org's providers that let admins in and vouch for the domain: the one lookup across orgs, because a person
 * at the console's sign-in page has not said which org they belong to (docs/sso.md, docs/scaling.md).
 */
export async function listAdminSignInForDomain(tx: Transaction, domain: string): Promise<AdminSignInProvider[]> {
  return tx.query<AdminSignInProvider>({
    text: `SELECT p.org_id, o.name AS org_name, p.name
             FROM identity_providers p JOIN orgs o ON o.id = p.org_id
            WHERE p.admins_allowed AND $1 = ANY (p.email_domains)
            ORDER BY o.name, p.name
            LIMIT 20`,
    values: [domain],
  });
}

/** A provider as its SCIM client acts through it: which org and provider a SCIM token stands for. */
export interface ScimTokenHolder {
  id: string;
  org_id: string;
  name: string;
  scim_token_created_at: Date;
}

/**
 * Gives the provider a new SCIM token (only its digest is kept) and ends the one before at once, in credential_orgs
 * too; null when the org has no provider of that id or name. `digest` null only ends the token.
 */
export async function replaceScimToken(
  tx: Transaction,
  orgId: string,
  idOrName: string,
  digest: string | null,
  at: Date,
): Promise<{ id: string; name: string; had_token: boolean } | null> {
  const found = await tx.query<{ id: string; name: string; scim_token_digest: string | null }>({
    text: `SELECT id, name, scim_token_digest FROM identity_providers
            WHERE org_id = $1 AND (id = $2 OR name = $2) FOR UPDATE`,
    values: [orgId, idOrName],
  });
  const provider = found[0];
  if (!provider) return null;
  if (provider.scim_token_digest !== null) {
    await tx.query({
      text: `DELETE FROM credential_orgs WHERE kind = 'scim_token' AND lookup = $1`,
      values: [provider.scim_token_digest],
    });
  }
  await tx.query({
    text: `UPDATE identity_providers SET scim_token_digest = $3::text,
                  scim_token_created_at = CASE WHEN $3::text IS NULL THEN NULL ELSE $4::timestamptz END
            WHERE org_id = $1 AND id = $2`,
    values: [orgId, provider.id, digest, at],
  });
  if (digest !== null) {
    await tx.query({
      text: `INSERT INTO credential_orgs (kind, lookup, org_id, created_at) VALUES ('scim_token', $1, $2, $3)`,
      values: [digest, orgId, at],
    });
  }
  return { id: provider.id, name: provider.name, had_token: provider.scim_token_digest !== null };
}

/** The org's provider whose SCIM token has this digest, or null. */
export async function findByScimToken(tx: Transaction, orgId: string, digest: string): Promise<ScimTokenHolder | null> {
  const rows = await tx.query<ScimTokenHolder>({
    text: `SELECT id, org_id, name, scim_token_created_at FROM identity_providers
            WHERE org_id = $1 AND scim_token_digest = $2`,
    values: [orgId, digest],
  });
  return rows[0] ?? null;
}
