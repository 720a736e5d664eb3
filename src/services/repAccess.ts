import { normalizeOrigin, REP_RATE_LIMIT_MAX, REP_RATE_LIMIT_MIN } from '../access/repTokens.ts';
import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { Refusal } from '../domain/refusal.ts';
import * as audit from '../repositories/audit.ts';
import type { RepAccessRecord } from '../repositories/orgs.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';

const MAX_ORIGINS = 20;

/**
 * The org's settings of rep tokens (docs/rep-tokens.md): the browser origins allowed to call /v1 with them (CORS)
 * and each rep's rate limit. Shared by the admin API, the console and the CLI; every change is audited.
 */
export class RepAccessAdmin {
  readonly #statements: Transaction;

  constructor(db: Transactor) {
    this.#statements = db.statements;
  }

  async get(orgId: string): Promise<RepAccessRecord> {
    const found = await orgs.repAccess(this.#statements, orgId);
    if (!found) throw new Refusal('not_found', `no org ${orgId}`);
    return found;
  }

  /** Origins as people type them are normalised (`https://host[:port]`); anything else is refused, naming it. */
  async set(
    orgId: string,
    changes: { corsAllowedOrigins?: readonly string[]; repRateLimitPerMinute?: number },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<RepAccessRecord> {
    const before = await this.get(orgId);
    let origins: string[] | undefined;
    if (changes.corsAllowedOrigins !== undefined) {
      if (changes.corsAllowedOrigins.length > MAX_ORIGINS) {
        throw new Refusal('invalid_body', `cors_allowed_origins: at most ${MAX_ORIGINS} origins`);
      }
      origins = [];
      for (const [index, input] of changes.corsAllowedOrigins.entries()) {
        const origin = normalizeOrigin(input);
        if (origin === null) {
          throw new Refusal(
            'invalid_body',
            `cors_allowed_origins[${index}]: "${input}" is not an origin; write https://host or https://host:port, no path`,
          );
        }
        if (!origins.includes(origin)) origins.push(origin);
      }
    }
    const limit = changes.repRateLimitPerMinute;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < REP_RATE_LIMIT_MIN || limit > REP_RATE_LIMIT_MAX)) {
      throw new Refusal(
        'invalid_body',
        `rep_rate_limit_per_minute: a whole number of requests per minute from ${REP_RATE_LIMIT_MIN} to ${REP_RATE_LIMIT_MAX}`,
      );
    }
    await orgs.setRepAccess(this.#statements, orgId, {
      ...(origins === undefined ? {} : { corsAllowedOrigins: origins }),
      ...(limit === undefined ? {} : { repRateLimitPerMinute: limit }),
    });
    const after = await this.get(orgId);
    await audit.insertMany(this.#statements, [
      adminAuditEntry(
        orgId,
        'rep_access.updated',
        {
          before: { ...before },
          after: { ...after },
        },
        actor,
      ),
    ]);
    return after;
  }
}
