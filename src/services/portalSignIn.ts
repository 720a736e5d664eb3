import * as oidc from 'openid-client';
import { tokenDigest } from '../access/tokenDigest.ts';
import type { AdminActor } from '../audit/adminEntries.ts';
import { newId } from '../lib/ids.ts';
import type { SecretBox } from '../lib/secretBox.ts';
import type { SessionWithAdmin } from '../repositories/adminSessions.ts';
import type { AdminRecord } from '../repositories/admins.ts';
import * as audit from '../repositories/audit.ts';
import type { IdentityProviderCredentials } from '../repositories/identityProviders.ts';
import * as identityProviders from '../repositories/identityProviders.ts';
import * as repInvitations from '../repositories/repInvitations.ts';
import * as repSignInLinks from '../repositories/repSignInLinks.ts';
import type { SignInDestination } from '../repositories/ssoSignInAttempts.ts';
import * as ssoSignInAttempts from '../repositories/ssoSignInAttempts.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import { type AdminSessions, normaliseEmail } from './adminIdentity.ts';
import { clientSecretBinding, issuerAllowsPlainHttp } from './portalAccess.ts';
import type { RepNames } from './repNames.ts';
import type { LiveRepSession, RepSessions } from './repSessions.ts';

export type { SignInDestination };

/** A sign-in at the identity provider must come back within this time. */
export const SIGN_IN_ATTEMPT_MS = 10 * 60_000;

/** Why a sign-in was refused; each has a page of its own that names no internals (src/http/portal/pages.ts). */
export type SignInRefusalReason =
  | 'unknown_provider'
  | 'provider_unreachable'
  | 'attempt_unknown'
  | 'cancelled'
  | 'unverified'
  | 'email_missing'
  | 'email_domain'
  | 'no_rep'
  | 'no_admin'
  | 'link_unusable'
  | 'rep_deactivated';

/** A refused sign-in: nothing was signed in. `cause` keeps what went wrong, for the server's log only. */
export class SignInRefused extends Error {
  readonly reason: SignInRefusalReason;

  constructor(reason: SignInRefusalReason, cause?: unknown) {
    super(`sign-in refused: ${reason}`, cause === undefined ? undefined : { cause });
    this.name = 'SignInRefused';
    this.reason = reason;
  }
}

export type SignedIn =
  | { destination: 'portal'; token: string; session: LiveRepSession }
  | { destination: 'console'; token: string; session: SessionWithAdmin };

/**
 * Sign-in to the rep portal (and, where the provider allows it, to the console) through an org's OpenID Connect
 * provider: the authorization code flow with PKCE, `state` and `nonce`, the ID token verified by openid-client
 * (signature against the provider's JWKS, `iss`, `aud`, `exp`, nonce), never by hand. Also the one-time sign-in
 * links of orgs without a provider. A refusal changes nothing but the attempt it used up.
 */
export class PortalSignIn {
  readonly #statements: Transaction;
  private readonly repSessions: RepSessions;
  private readonly adminSessions: AdminSessions;
  private readonly repNames: RepNames;
  private readonly secrets: SecretBox;
  private readonly now: () => Date;

  constructor(
    db: Transactor,
    options: {
      repSessions: RepSessions;
      adminSessions: AdminSessions;
      repNames: RepNames;
      secrets: SecretBox;
      now?: () => Date;
    },
  ) {
    this.#statements = db.statements;
    this.repSessions = options.repSessions;
    this.adminSessions = options.adminSessions;
    this.repNames = options.repNames;
    this.secrets = options.secrets;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Where to send the browser: the provider's authorization endpoint, with a fresh state, nonce and PKCE challenge
   * kept for the callback. The state is also for the browser to keep (a cookie), so a callback is answered only in
   * the browser that started it.
   */
  async begin(input: {
    orgId: string;
    provider: string;
    destination: SignInDestination;
    redirectUri: string;
  }): Promise<{ authorizationUrl: URL; state: string }> {
    const provider = await identityProviders.findCredentials(this.#statements, input.orgId, input.provider);
    if (!provider) throw new SignInRefused('unknown_provider');
    if (input.destination === 'console' && !provider.admins_allowed) throw new SignInRefused('no_admin');
    const config = await this.discover(provider);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const at = this.now();
    await ssoSignInAttempts.insert(this.#statements, {
      stateDigest: tokenDigest(state),
      org_id: provider.org_id,
      provider_id: provider.id,
      nonce,
      code_verifier: codeVerifier,
      destination: input.destination,
      at,
      expiresAt: new Date(at.getTime() + SIGN_IN_ATTEMPT_MS),
    });
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: input.redirectUri,
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { authorizationUrl, state };
  }

  /**
   * The provider's redirect back: the attempt of its state is used up (once, in the browser that holds the state),
   * the code exchanged and the ID token verified, then the person is linked to a rep (by invitation of the email,
   * else by the owner-id claim), whose display name the token's name becomes unless an admin set it, or, for the
   * console, to the org's admin with that email.
   */
  async complete(input: {
    callbackUrl: URL;
    browserState: string | undefined;
    redirectUri: string;
    adminActor: (admin: AdminRecord) => AdminActor;
  }): Promise<SignedIn> {
    const state = input.callbackUrl.searchParams.get('state');
    if (!state || state !== input.browserState) throw new SignInRefused('attempt_unknown');
    const attempt = await ssoSignInAttempts.consume(this.#statements, tokenDigest(state), this.now());
    if (!attempt) throw new SignInRefused('attempt_unknown');
    const provider = await identityProviders.findCredentials(this.#statements, attempt.org_id, attempt.provider_id);
    if (!provider) throw new SignInRefused('unknown_provider');
    // The provider answered with an error instead of a code: the person cancelled, or the provider would not sign
    // them in. Either way there is nothing to verify.
    if (input.callbackUrl.searchParams.has('error')) throw new SignInRefused('cancelled');
    const config = await this.discover(provider);

    let claims: oidc.IDToken;
    try {
      const tokens = await oidc.authorizationCodeGrant(
        config,
        input.callbackUrl,
        {
          pkceCodeVerifier: attempt.code_verifier,
          expectedState: state,
          expectedNonce: attempt.nonce,
          idTokenExpected: true,
        },
        { redirect_uri: input.redirectUri },
      );
      claims = tokens.claims() as oidc.IDToken;
    } catch (error) {
      throw new SignInRefused('unverified', error);
    }

    const email = verifiedEmail(claims, provider);
    if (attempt.destination === 'console') {
      if (!provider.admins_allowed) throw new SignInRefused('no_admin');
      const signedIn = await this.adminSessions.signInVerified({
        orgId: provider.org_id,
        email,
        providerId: provider.id,
        actor: input.adminActor,
      });
      if (!signedIn) throw new SignInRefused('no_admin');
      return { destination: 'console', ...signedIn };
    }

    const repId = await this.linkedRep(provider, email, claims);
    if (!repId) throw new SignInRefused('no_rep');
    if (await users.isDeactivated(this.#statements, provider.org_id, repId)) throw new SignInRefused('rep_deactivated');
    // The provider's name, before the session opens, so the session (and the portal's greeting) carries it.
    await this.repNames.takeFromIdentityProvider({
      orgId: provider.org_id,
      userId: repId,
      providerId: provider.id,
      claims,
      at: this.now(),
    });
    const opened = await this.repSessions.open({ orgId: provider.org_id, userId: repId, providerId: provider.id });
    await this.#auditRepSignIn(opened.session, { via: 'sso', provider_id: provider.id });
    return { destination: 'portal', ...opened };
  }

  /** A one-time sign-in link: it signs the rep in once, before it expires. */
  async useLink(token: string): Promise<{ token: string; session: LiveRepSession }> {
    const link = await repSignInLinks.use(this.#statements, tokenDigest(token), this.now());
    if (!link) throw new SignInRefused('link_unusable');
    if (await users.isDeactivated(this.#statements, link.org_id, link.user_id)) {
      throw new SignInRefused('rep_deactivated');
    }
    const opened = await this.repSessions.open({ orgId: link.org_id, userId: link.user_id, providerId: null });
    await this.#auditRepSignIn(opened.session, { via: 'link' });
    return opened;
  }

  /** A rep's portal sign-in is in the org's audit log, with the rep as actor. */
  async #auditRepSignIn(session: LiveRepSession, details: Record<string, string>): Promise<void> {
    await audit.insertMany(this.#statements, [
      {
        id: newId('aud'),
        org_id: session.org_id,
        occurred_at: session.created_at,
        actor_type: 'rep',
        actor: session.rep.id,
        action: 'portal.signed_in',
        details: { ...details, rep_session_id: session.id },
      },
    ]);
  }

  /** The provider's configuration from its discovery document, with every ID token's signature checked on its JWKS. */
  private async discover(provider: IdentityProviderCredentials): Promise<oidc.Configuration> {
    const issuer = new URL(provider.issuer);
    try {
      const config = await oidc.discovery(
        issuer,
        provider.client_id,
        undefined,
        oidc.ClientSecretPost(this.secrets.open(provider.client_secret, clientSecretBinding(provider))),
        issuerAllowsPlainHttp(issuer) ? { execute: [oidc.allowInsecureRequests] } : undefined,
      );
      // openid-client skips the signature of an ID token that came straight from the token endpoint over TLS unless
      // asked; the signature is checked here whatever the transport.
      oidc.enableNonRepudiationChecks(config);
      return config;
    } catch (error) {
      throw new SignInRefused('provider_unreachable', error);
    }
  }

  /** Expired sign-in attempts and links answer nothing: drop them (called from the server's sweeper). */
  async forgetExpired(): Promise<void> {
    const at = this.now();
    await ssoSignInAttempts.deleteExpired(this.#statements, at);
    await repSignInLinks.deleteExpired(this.#statements, at);
  }

  private async linkedRep(
    provider: IdentityProviderCredentials,
    email: string,
    claims: oidc.IDToken,
  ): Promise<string | null> {
    const invited = await repInvitations.findRep(this.#statements, provider.org_id, email);
    if (invited) return invited;
    if (!provider.owner_id_claim) return null;
    const ownerId = claims[provider.owner_id_claim];
    if (typeof ownerId !== 'string' || ownerId === '') return null;
    return (await users.findRepByExternalId(this.#statements, provider.org_id, ownerId))?.id ?? null;
  }
}

/** The email the provider vouches for, lower-cased, in one of the provider's domains. */
function verifiedEmail(claims: oidc.IDToken, provider: IdentityProviderCredentials): string {
  const raw = claims[provider.email_claim];
  if (typeof raw !== 'string' || claims.email_verified === false) throw new SignInRefused('email_missing');
  const email = normaliseEmail(raw);
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!email.includes('@') || !provider.email_domains.includes(domain)) throw new SignInRefused('email_domain');
  return email;
}
