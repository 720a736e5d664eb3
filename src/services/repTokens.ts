import {
  generateRepToken,
  PORTAL_TOKEN_TTL_SECONDS,
  REP_TOKEN_TTL_DEFAULT_SECONDS,
  REP_TOKEN_TTL_MAX_SECONDS,
  REP_TOKEN_TTL_MIN_SECONDS,
} from '../access/repTokens.ts';
import { Refusal } from '../domain/refusal.ts';
import { newId } from '../lib/ids.ts';
import * as audit from '../repositories/audit.ts';
import type { RepTokenRecord } from '../repositories/repTokens.ts';
import * as repTokens from '../repositories/repTokens.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';

// Rep tokens (docs/rep-tokens.md): minted by an integrator's API key with rep_tokens:write, or by the portal for its
// signed-in rep, through this one service. The secret is returned once; only its digest is stored.

export interface MintedRepToken {
  record: RepTokenRecord;
  /** Shown once. */
  token: string;
}

/** Who mints: an API key (the /v1 operation) or the portal, for one of its sessions. */
export type RepTokenMinter = { kind: 'api_key'; keyId: string } | { kind: 'portal'; repSessionId: string };

export class RepTokens {
  readonly #statements: Transaction;
  readonly #now: () => Date;

  constructor(pool: Transactor, options: { now?: () => Date } = {}) {
    this.#statements = pool.statements;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * A token for the rep named by `userId` or `userExternalId` (exactly one), living `ttlSeconds` (60…3600, default
   * 900). An unknown rep is `not_found`, as another org's would be.
   */
  async mint(input: {
    orgId: string;
    minter: RepTokenMinter;
    userId?: string;
    userExternalId?: string;
    ttlSeconds?: number;
  }): Promise<MintedRepToken> {
    const { orgId } = input;
    if ((input.userId === undefined) === (input.userExternalId === undefined)) {
      throw new Refusal('invalid_body', 'user_id: give user_id or user_external_id, exactly one of them');
    }
    const ttl = input.ttlSeconds ?? REP_TOKEN_TTL_DEFAULT_SECONDS;
    if (!Number.isInteger(ttl) || ttl < REP_TOKEN_TTL_MIN_SECONDS || ttl > REP_TOKEN_TTL_MAX_SECONDS) {
      throw new Refusal(
        'invalid_body',
        `ttl_seconds: must be a whole number of seconds from ${REP_TOKEN_TTL_MIN_SECONDS} to ${REP_TOKEN_TTL_MAX_SECONDS}`,
      );
    }
    const userId =
      input.userId !== undefined
        ? (await users.findRepById(this.#statements, orgId, input.userId))?.user_id
        : (await users.findRepByExternalId(this.#statements, orgId, input.userExternalId as string))?.id;
    if (userId === undefined) {
      throw new Refusal('not_found', `no user ${input.userId ?? input.userExternalId}`);
    }
    if (await users.isDeactivated(this.#statements, orgId, userId)) {
      throw new Refusal('forbidden', `user ${input.userId ?? input.userExternalId} is deactivated (a leaver)`);
    }
    const at = this.#now();
    const generated = generateRepToken();
    const record = await repTokens.create(this.#statements, {
      orgId,
      userId,
      digest: generated.digest,
      apiKeyId: input.minter.kind === 'api_key' ? input.minter.keyId : null,
      repSessionId: input.minter.kind === 'portal' ? input.minter.repSessionId : null,
      at,
      expiresAt: new Date(at.getTime() + ttl * 1000),
    });
    await audit.insertMany(this.#statements, [
      {
        id: newId('aud'),
        org_id: orgId,
        occurred_at: at,
        ...(input.minter.kind === 'api_key'
          ? { actor_type: 'api_key' as const, key_id: input.minter.keyId }
          : { actor_type: 'rep' as const, actor: userId }),
        action: 'rep_token.created',
        details: {
          rep_token_id: record.id,
          user_id: userId,
          expires_at: record.expires_at.toISOString(),
          via: input.minter.kind,
        },
      },
    ]);
    return { record, token: generated.raw };
  }

  /**
   * The portal's token for its signed-in rep: at most 15 minutes, never past the session's end. Null when the
   * session ends in less than the shortest lifetime a token may have.
   */
  async mintForSession(session: {
    id: string;
    org_id: string;
    rep: { id: string };
    ends_at: Date;
  }): Promise<MintedRepToken | null> {
    const remaining = Math.floor((session.ends_at.getTime() - this.#now().getTime()) / 1000);
    const ttl = Math.min(PORTAL_TOKEN_TTL_SECONDS, remaining);
    if (ttl < REP_TOKEN_TTL_MIN_SECONDS) return null;
    return this.mint({
      orgId: session.org_id,
      minter: { kind: 'portal', repSessionId: session.id },
      userId: session.rep.id,
      ttlSeconds: ttl,
    });
  }

  /** Idempotent; a token of another org is `not_found`. */
  async revoke(orgId: string, id: string, keyId: string | null): Promise<RepTokenRecord> {
    const before = await repTokens.findForOrg(this.#statements, orgId, id);
    if (!before) throw new Refusal('not_found', `no rep token ${id}`);
    const at = this.#now();
    const record = (await repTokens.revoke(this.#statements, orgId, id, at)) as RepTokenRecord;
    if (before.revoked_at === null) {
      await audit.insertMany(this.#statements, [
        {
          id: newId('aud'),
          org_id: orgId,
          occurred_at: at,
          actor_type: 'api_key',
          key_id: keyId,
          action: 'rep_token.revoked',
          details: { rep_token_id: id, user_id: record.user_id },
        },
      ]);
    }
    return record;
  }

  /** Revokes the tokens the portal minted for a session (its sign-out). */
  async revokeForSession(session: { id: string; org_id: string }): Promise<void> {
    await repTokens.revokeForSession(this.#statements, session, this.#now());
  }
}
