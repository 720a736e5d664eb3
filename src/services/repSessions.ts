import { randomBytes } from 'node:crypto';
import { tokenDigest } from '../access/tokenDigest.ts';
import type { RepSessionWithRep } from '../repositories/repSessions.ts';
import * as repSessions from '../repositories/repSessions.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import { type SessionSettings, sessionEnd, sessionIsOver } from './sessionLifetime.ts';

/** A portal session as the HTTP layer sees it, with when it ends if unused. */
export interface LiveRepSession extends RepSessionWithRep {
  idle_expires_at: Date;
}

/**
 * Rep portal sessions, which live as console sessions do (src/services/sessionLifetime.ts): tokens are 256 random
 * bits, only their SHA-256 is stored. Time comes from `now`, so tests move it instead of waiting.
 */
export class RepSessions {
  readonly #statements: Transaction;
  private readonly settings: SessionSettings;
  private readonly now: () => Date;

  constructor(db: Transactor, options: { settings: SessionSettings; now?: () => Date }) {
    this.#statements = db.statements;
    this.settings = options.settings;
    this.now = options.now ?? (() => new Date());
  }

  /** A new session for the rep; `providerId` is null for a sign-in link. */
  async open(input: {
    orgId: string;
    userId: string;
    providerId: string | null;
  }): Promise<{ token: string; session: LiveRepSession }> {
    const at = this.now();
    const token = randomBytes(32).toString('base64url');
    await repSessions.create(this.#statements, {
      tokenDigest: tokenDigest(token),
      orgId: input.orgId,
      userId: input.userId,
      providerId: input.providerId,
      at,
      expiresAt: new Date(at.getTime() + this.settings.absoluteMs),
    });
    const session = (await repSessions.findLive(this.#statements, tokenDigest(token))) as RepSessionWithRep;
    return { token, session: this.withIdleEnd(session) };
  }

  /** The live session of the token, its idle clock restarted; null when unknown, ended or expired. */
  async authenticate(token: string): Promise<LiveRepSession | null> {
    const at = this.now();
    const session = await repSessions.findLive(this.#statements, tokenDigest(token));
    if (!session) return null;
    if (sessionIsOver(session, this.settings, at)) {
      await repSessions.end(this.#statements, session, at);
      return null;
    }
    await repSessions.touch(this.#statements, session, at);
    return this.withIdleEnd({ ...session, last_seen_at: at });
  }

  /** Ends the session server-side: the cookie stops working everywhere. */
  async signOut(session: RepSessionWithRep): Promise<void> {
    await repSessions.end(this.#statements, session, this.now());
  }

  private withIdleEnd(session: RepSessionWithRep): LiveRepSession {
    return { ...session, idle_expires_at: sessionEnd(session, this.settings) };
  }
}
