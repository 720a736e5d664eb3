import { randomBytes } from 'node:crypto';
import { tokenDigest } from '../access/tokenDigest.ts';
import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { Refusal } from '../domain/refusal.ts';
import { hasPrefix } from '../lib/ids.ts';
import { MissingSecretKey, type SecretBox } from '../lib/secretBox.ts';
import * as audit from '../repositories/audit.ts';
import type { IdentityProviderRecord, NewIdentityProvider } from '../repositories/identityProviders.ts';
import * as identityProviders from '../repositories/identityProviders.ts';
import * as orgs from '../repositories/orgs.ts';
import * as repInvitations from '../repositories/repInvitations.ts';
import * as repSignInLinks from '../repositories/repSignInLinks.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import { normaliseEmail } from './adminIdentity.ts';

const PROVIDER_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A sign-in link works this long unless the admin asks otherwise, and never longer than the maximum. */
export const SIGN_IN_LINK_MINUTES = { default: 60, min: 5, max: 7 * 24 * 60 } as const;

/**
 * Plain http only on a loopback address (a provider run for local testing); every other issuer is https, as OpenID
 * Connect Discovery requires.
 */
/** What a provider's sealed client secret is bound to: it opens only as that org's provider of that name. */
export function clientSecretBinding(provider: { org_id: string; name: string }): string {
  return `identity_provider:${provider.org_id}:${provider.name}`;
}

export function issuerAllowsPlainHttp(issuer: URL): boolean {
  return issuer.protocol === 'http:' && LOOPBACK_HOSTS.has(issuer.hostname);
}

/** A provider to add: the claims default to `email` and none, admins to not allowed. */
export type NewProviderInput = Omit<NewIdentityProvider, 'emailClaim' | 'ownerIdClaim' | 'adminsAllowed'> &
  Partial<{ emailClaim: string; ownerIdClaim: string; adminsAllowed: boolean }>;

/** What an admin may change of a provider; name and issuer stay. */
export interface ProviderChangeInput {
  clientId?: string;
  clientSecret?: string;
  emailDomains?: string[];
  emailClaim?: string;
  ownerIdClaim?: string | null;
  adminsAllowed?: boolean;
}

/**
 * Who may get in to the rep portal, as admins configure it: the org's identity providers, emails invited as reps, and
 * one-time sign-in links. Shared by the admin API and the CLI.
 */
export class PortalAccessAdmin {
  readonly #statements: Transaction;
  private readonly secrets: SecretBox;
  private readonly now: () => Date;

  constructor(db: Transactor, options: { secrets: SecretBox; now?: () => Date }) {
    this.#statements = db.statements;
    this.secrets = options.secrets;
    this.now = options.now ?? (() => new Date());
  }

  async addProvider(input: NewProviderInput, actor: AdminActor = CLI_ACTOR): Promise<IdentityProviderRecord> {
    await this.requireOrg(input.orgId);
    if (!PROVIDER_NAME.test(input.name)) {
      throw new Refusal('invalid_body', 'name: lower-case letters, digits and dashes, up to 40 characters');
    }
    const issuer = parseIssuer(input.issuer);
    const emailDomains = emailDomainsOf(input.emailDomains);
    const created = await identityProviders.insert(this.#statements, {
      orgId: input.orgId,
      name: input.name,
      issuer,
      clientId: input.clientId.trim(),
      clientSecret: this.sealClientSecret(input),
      emailDomains,
      emailClaim: input.emailClaim?.trim() || 'email',
      ownerIdClaim: input.ownerIdClaim?.trim() || null,
      adminsAllowed: input.adminsAllowed ?? false,
    });
    if (!created) throw new Refusal('invalid_state', `the org has an identity provider named ${input.name} already`);
    await audit.insertMany(this.#statements, [
      adminAuditEntry(
        input.orgId,
        'identity_provider.added',
        { identity_provider_id: created.id, name: created.name, issuer: created.issuer },
        actor,
      ),
    ]);
    return created;
  }

  /**
   * Changes a provider (by id or name) in place: the client secret rotated, the client id, domains, claims or whether
   * admins may sign in. Name and issuer stay. Audited with the names of the fields changed, never their values.
   */
  async updateProvider(
    orgId: string,
    idOrName: string,
    change: ProviderChangeInput,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<IdentityProviderRecord> {
    await this.requireOrg(orgId);
    const fields = Object.keys(change).filter((field) => change[field as keyof ProviderChangeInput] !== undefined);
    if (fields.length === 0) throw new Refusal('invalid_body', 'nothing to change: give at least one field');
    const current = await identityProviders.findCredentials(this.#statements, orgId, idOrName);
    if (!current) throw new Refusal('not_found', `org ${orgId} has no identity provider ${idOrName}`);
    const emailDomains = change.emailDomains === undefined ? undefined : emailDomainsOf(change.emailDomains);
    const clientId = change.clientId?.trim();
    if (clientId === '') throw new Refusal('invalid_body', 'client_id: must not be blank');
    const updated = await identityProviders.update(this.#statements, orgId, current.id, {
      ...(clientId === undefined ? {} : { clientId }),
      ...(change.clientSecret === undefined
        ? {}
        : { clientSecret: this.sealClientSecret({ orgId, name: current.name, clientSecret: change.clientSecret }) }),
      ...(emailDomains === undefined ? {} : { emailDomains }),
      ...(change.emailClaim === undefined ? {} : { emailClaim: change.emailClaim.trim() || 'email' }),
      ...(change.ownerIdClaim === undefined ? {} : { ownerIdClaim: change.ownerIdClaim?.trim() || null }),
      ...(change.adminsAllowed === undefined ? {} : { adminsAllowed: change.adminsAllowed }),
    });
    if (!updated) throw new Refusal('not_found', `org ${orgId} has no identity provider ${idOrName}`);
    await audit.insertMany(this.#statements, [
      adminAuditEntry(
        orgId,
        'identity_provider.changed',
        { identity_provider_id: updated.id, name: updated.name, changed: fields.map(snakeCase).sort() },
        actor,
      ),
    ]);
    return updated;
  }

  /** The providers that let admins with this email in to the console, across orgs (see the repository). */
  async adminSignInOptions(email: string): Promise<identityProviders.AdminSignInProvider[]> {
    const normalised = normaliseEmail(email);
    if (!EMAIL.test(normalised)) throw new Refusal('invalid_body', `email: ${JSON.stringify(email)} is not an email`);
    const domain = normalised.slice(normalised.lastIndexOf('@') + 1);
    return identityProviders.listAdminSignInForDomain(this.#statements, domain);
  }

  async listProviders(orgId: string): Promise<IdentityProviderRecord[]> {
    await this.requireOrg(orgId);
    return identityProviders.listForOrg(this.#statements, orgId);
  }

  /** By id or name. */
  async removeProvider(
    orgId: string,
    idOrName: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<IdentityProviderRecord> {
    await this.requireOrg(orgId);
    // Its SCIM token ends with it, lookup row and all (docs/sso.md#provisioning-with-scim).
    await identityProviders.replaceScimToken(this.#statements, orgId, idOrName, null, this.now());
    const removed = await identityProviders.remove(this.#statements, orgId, idOrName);
    if (!removed) throw new Refusal('not_found', `org ${orgId} has no identity provider ${idOrName}`);
    await audit.insertMany(this.#statements, [
      adminAuditEntry(
        orgId,
        'identity_provider.removed',
        { identity_provider_id: removed.id, name: removed.name },
        actor,
      ),
    ]);
    return removed;
  }

  /** The rep (by id or external id) is who signs in with this email through any of the org's providers. */
  async inviteEmail(
    orgId: string,
    rep: string,
    email: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ repId: string; email: string }> {
    const repId = await this.requireRep(orgId, rep);
    const normalised = normaliseEmail(email);
    if (!EMAIL.test(normalised)) throw new Refusal('invalid_body', `${JSON.stringify(email)} is not an email`);
    await repInvitations.upsert(this.#statements, orgId, repId, normalised);
    await audit.insertMany(this.#statements, [
      adminAuditEntry(orgId, 'rep.invited', { rep_id: repId, email: normalised }, actor),
    ]);
    return { repId, email: normalised };
  }

  /**
   * A one-time link for the rep (by id or external id): the token is returned once, only its digest is kept. The
   * link is the portal's `/portal/link?token=…` on the server's origin.
   */
  async createSignInLink(
    input: { orgId: string; rep: string; expiresInMinutes?: number },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ repId: string; token: string; expiresAt: Date }> {
    const minutes = input.expiresInMinutes ?? SIGN_IN_LINK_MINUTES.default;
    if (!Number.isInteger(minutes) || minutes < SIGN_IN_LINK_MINUTES.min || minutes > SIGN_IN_LINK_MINUTES.max) {
      throw new Refusal(
        'invalid_body',
        `expires_in_minutes: a whole number from ${SIGN_IN_LINK_MINUTES.min} to ${SIGN_IN_LINK_MINUTES.max}`,
      );
    }
    const repId = await this.requireRep(input.orgId, input.rep);
    const token = randomBytes(32).toString('base64url');
    const at = this.now();
    const expiresAt = new Date(at.getTime() + minutes * 60_000);
    await repSignInLinks.insert(this.#statements, {
      tokenDigest: tokenDigest(token),
      orgId: input.orgId,
      userId: repId,
      at,
      expiresAt,
    });
    await audit.insertMany(this.#statements, [
      adminAuditEntry(
        input.orgId,
        'rep.sign_in_link_created',
        { rep_id: repId, expires_at: expiresAt.toISOString() },
        actor,
      ),
    ]);
    return { repId, token, expiresAt };
  }

  private sealClientSecret(input: { orgId: string; name: string; clientSecret: string }): string {
    try {
      return this.secrets.seal(input.clientSecret, clientSecretBinding({ org_id: input.orgId, name: input.name }));
    } catch (error) {
      if (error instanceof MissingSecretKey) throw new Refusal('invalid_state', error.message);
      throw error;
    }
  }

  private async requireRep(orgId: string, rep: string): Promise<string> {
    await this.requireOrg(orgId);
    const found = hasPrefix(rep, 'user')
      ? (await users.findRepById(this.#statements, orgId, rep))?.user_id
      : (await users.findRepByExternalId(this.#statements, orgId, rep))?.id;
    if (!found) throw new Refusal('not_found', `org ${orgId} has no rep ${rep}`);
    return found;
  }

  private async requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }
}

/** The domains lower-cased, without a leading `@`, each one checked, duplicates dropped. */
function emailDomainsOf(raw: string[]): string[] {
  const emailDomains = raw.map((domain) => domain.trim().toLowerCase().replace(/^@/, ''));
  const wrongDomain = emailDomains.find((domain) => !DOMAIN.test(domain));
  if (emailDomains.length === 0 || wrongDomain !== undefined) {
    throw new Refusal('invalid_body', `email_domains: ${JSON.stringify(wrongDomain ?? '')} is not a domain`);
  }
  return [...new Set(emailDomains)];
}

function snakeCase(field: string): string {
  return field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function parseIssuer(raw: string): string {
  let issuer: URL;
  try {
    issuer = new URL(raw.trim());
  } catch {
    throw new Refusal('invalid_body', `issuer: ${JSON.stringify(raw)} is not a URL`);
  }
  if (issuer.protocol !== 'https:' && !issuerAllowsPlainHttp(issuer)) {
    throw new Refusal('invalid_body', 'issuer: must be an https URL (plain http only on a loopback address)');
  }
  // The issuer is compared with the ID token's `iss` as the provider writes it, so it is kept as given.
  return raw.trim();
}
