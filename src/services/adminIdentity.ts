import { randomBytes } from 'node:crypto';
import { decoyPasswordHash, generatePassword, hashPassword, verifyPassword } from '../access/passwords.ts';
import { tokenDigest } from '../access/tokenDigest.ts';
import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { Refusal } from '../domain/refusal.ts';
import type { SessionWithAdmin } from '../repositories/adminSessions.ts';
import * as adminSessions from '../repositories/adminSessions.ts';
import * as adminSignInFailures from '../repositories/adminSignInFailures.ts';
import type { AdminRecord, AdminRole } from '../repositories/admins.ts';
import * as admins from '../repositories/admins.ts';
import * as audit from '../repositories/audit.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import { type SessionSettings, sessionEnd, sessionIsOver } from './sessionLifetime.ts';

export const ADMIN_ROLES: readonly AdminRole[] = ['admin', 'viewer'];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Admin accounts: created and disabled by `quotient admins`, listed by the console too. */
export class AdminAccounts {
  readonly #db: Transactor;
  readonly #statements: Transaction;

  constructor(db: Transactor) {
    this.#db = db;
    this.#statements = db.statements;
  }

  /** A new account with a generated password, returned once (only its scrypt hash is kept). */
  async create(
    input: { orgId: string; email: string; displayName?: string; role?: string },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ admin: AdminRecord; password: string }> {
    const email = normaliseEmail(input.email);
    if (!EMAIL.test(email)) throw new Refusal('invalid_body', `${JSON.stringify(input.email)} is not an email`);
    const role = (input.role ?? 'admin') as AdminRole;
    if (!ADMIN_ROLES.includes(role)) {
      throw new Refusal('invalid_body', `the role must be admin or viewer, not ${JSON.stringify(input.role)}`);
    }
    const displayName = input.displayName?.trim() || email.split('@')[0] || email;
    await this.requireOrg(input.orgId);
    const password = generatePassword();
    const admin = await admins.create(this.#statements, {
      orgId: input.orgId,
      email,
      displayName,
      role,
      passwordHash: await hashPassword(password),
    });
    if (!admin) throw new Refusal('invalid_state', `an admin with the email ${email} exists already`);
    await audit.insertMany(this.#statements, [
      adminAuditEntry(input.orgId, 'admin.created', { admin_id: admin.id, email, role }, actor),
    ]);
    return { admin, password };
  }

  async list(orgId: string): Promise<AdminRecord[]> {
    await this.requireOrg(orgId);
    return admins.listForOrg(this.#statements, orgId);
  }

  /** By id or email. Ends every session of the account at once; disabling twice changes nothing. */
  async disable(
    orgId: string,
    idOrEmail: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ admin: AdminRecord; changed: boolean }> {
    await this.requireOrg(orgId);
    const found = idOrEmail.includes('@')
      ? await admins.findByEmailForOrg(this.#statements, orgId, normaliseEmail(idOrEmail))
      : await admins.findForOrg(this.#statements, orgId, idOrEmail);
    if (!found) throw new Refusal('not_found', `org ${orgId} has no admin ${idOrEmail}`);
    const { changed } = await this.#db.run((tx) => admins.disable(tx, orgId, found.id, new Date()));
    if (changed) {
      await audit.insertMany(this.#statements, [
        adminAuditEntry(orgId, 'admin.disabled', { admin_id: found.id, email: found.email }, actor),
      ]);
    }
    return { admin: (await admins.findForOrg(this.#statements, orgId, found.id)) as AdminRecord, changed };
  }

  private async requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }
}

/** Failed sign-ins allowed per window, per account (the email as typed) and per client address. */
export const SIGN_IN_THROTTLE = { windowMs: 15 * 60_000, perAccount: 5, perAddress: 20 } as const;

export type SignInResult =
  | { ok: true; token: string; session: SessionWithAdmin }
  | { ok: false; reason: 'invalid_credentials' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/** A console session as the HTTP layer sees it, with when it ends. */
export interface LiveSession extends SessionWithAdmin {
  idle_expires_at: Date;
}

/**
 * Sign-in, session checks and sign-out. Tokens are 256 random bits; only their SHA-256 is stored. Time comes from
 * `now`, so tests move it instead of waiting.
 */
export class AdminSessions {
  readonly #statements: Transaction;
  private readonly settings: SessionSettings;
  private readonly now: () => Date;

  constructor(db: Transactor, options: { settings: SessionSettings; now?: () => Date }) {
    this.#statements = db.statements;
    this.settings = options.settings;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Unknown email, disabled account and wrong password all answer `invalid_credentials` after the same scrypt
   * work, and count against the same throttle (keyed by the email as typed, not by the account).
   */
  async signIn(input: {
    email: string;
    password: string;
    clientIp: string;
    actor: (admin: AdminRecord) => AdminActor;
  }): Promise<SignInResult> {
    const at = this.now();
    const email = normaliseEmail(input.email);
    const accountSubject = `email:${email}`;
    const addressSubject = `ip:${input.clientIp}`;
    const since = new Date(at.getTime() - SIGN_IN_THROTTLE.windowMs);
    const counts = await adminSignInFailures.countBetween(
      this.#statements,
      [accountSubject, addressSubject],
      since,
      at,
    );
    const blocking = [
      { count: counts.get(accountSubject), limit: SIGN_IN_THROTTLE.perAccount },
      { count: counts.get(addressSubject), limit: SIGN_IN_THROTTLE.perAddress },
    ].filter((subject) => subject.count && subject.count.count >= subject.limit);
    if (blocking.length > 0) {
      const freeAt = Math.max(
        ...blocking.map((subject) => (subject.count?.oldest.getTime() ?? 0) + SIGN_IN_THROTTLE.windowMs),
      );
      return {
        ok: false,
        reason: 'throttled',
        retryAfterSeconds: Math.max(1, Math.ceil((freeAt - at.getTime()) / 1000)),
      };
    }

    const account = await admins.findSignInAccount(this.#statements, email);
    const matches = await verifyPassword(input.password, account?.password_hash ?? (await decoyPasswordHash()));
    if (!account || !matches) {
      await adminSignInFailures.record(this.#statements, [accountSubject, addressSubject], at);
      return { ok: false, reason: 'invalid_credentials' };
    }
    await adminSignInFailures.clear(this.#statements, accountSubject);
    return { ok: true, ...(await this.open(account, input.actor(account), at, {})) };
  }

  /**
   * A session for the org's admin with this email, whose identity provider has vouched for it (src/services/portalSignIn.ts);
   * null when the org has no enabled admin with that email.
   */
  async signInVerified(input: {
    orgId: string;
    email: string;
    providerId: string;
    actor: (admin: AdminRecord) => AdminActor;
  }): Promise<{ token: string; session: SessionWithAdmin } | null> {
    const account = await admins.findSignInAccount(this.#statements, normaliseEmail(input.email));
    if (!account || account.org_id !== input.orgId) return null;
    return this.open(account, input.actor(account), this.now(), { identity_provider_id: input.providerId });
  }

  private async open(
    account: AdminRecord,
    actor: AdminActor,
    at: Date,
    how: Record<string, string>,
  ): Promise<{ token: string; session: SessionWithAdmin }> {
    const token = randomBytes(32).toString('base64url');
    const created = await adminSessions.create(this.#statements, {
      tokenDigest: tokenDigest(token),
      adminId: account.id,
      orgId: account.org_id,
      csrfToken: randomBytes(32).toString('base64url'),
      at,
      expiresAt: new Date(at.getTime() + this.settings.absoluteMs),
    });
    await audit.insertMany(this.#statements, [
      adminAuditEntry(account.org_id, 'admin.signed_in', { session_id: created.id, ...how }, actor),
    ]);
    const session = (await adminSessions.findLive(this.#statements, tokenDigest(token))) as SessionWithAdmin;
    return { token, session };
  }

  /** The live session of the token, its idle clock restarted; null when unknown, ended, expired or disabled. */
  async authenticate(token: string): Promise<LiveSession | null> {
    return this.check(token, { touch: true });
  }

  /** As `authenticate`, without restarting the idle clock (a status check is not use). */
  async peek(token: string): Promise<LiveSession | null> {
    return this.check(token, { touch: false });
  }

  private async check(token: string, options: { touch: boolean }): Promise<LiveSession | null> {
    const at = this.now();
    const session = await adminSessions.findLive(this.#statements, tokenDigest(token));
    if (!session) return null;
    if (sessionIsOver(session, this.settings, at)) {
      await adminSessions.end(this.#statements, session, at);
      return null;
    }
    if (!options.touch) return this.withIdleEnd(session);
    await adminSessions.touch(this.#statements, session, at);
    return this.withIdleEnd({ ...session, last_seen_at: at });
  }

  withIdleEnd(session: SessionWithAdmin): LiveSession {
    return { ...session, idle_expires_at: sessionEnd(session, this.settings) };
  }

  /** Ends the session server-side: the cookie stops working in every tab and on every copy of it. */
  async signOut(session: SessionWithAdmin, actor: AdminActor): Promise<void> {
    await adminSessions.end(this.#statements, session, this.now());
    await audit.insertMany(this.#statements, [
      adminAuditEntry(session.org_id, 'admin.signed_out', { session_id: session.id }, actor),
    ]);
  }

  /** Old failures no longer count: drop them (called from the server's sweeper). */
  async forgetOldFailures(): Promise<void> {
    await adminSignInFailures.deleteBefore(
      this.#statements,
      new Date(this.now().getTime() - SIGN_IN_THROTTLE.windowMs),
    );
  }
}
