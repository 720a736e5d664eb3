import { type AuditActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { isCalendarDate } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import * as audit from '../repositories/audit.ts';
import * as repSessions from '../repositories/repSessions.ts';
import * as repTokens from '../repositories/repTokens.ts';
import type { Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import type { EarningsRecompute } from './adminRecompute.ts';

/** A rep's standing after a deactivation or a reactivation. */
export interface RepDeparture {
  rep_id: string;
  rep_external_id: string;
  active: boolean;
  leaving_date: string | null;
  deactivated_at: Date | null;
  changed: boolean;
  sessions_ended: number;
  tokens_revoked: number;
}

/**
 * Leavers and returners (docs/reps-and-payroll.md, "Leavers and returners"): deactivating a rep with their last day
 * ends their portal sessions and revokes their rep tokens in the same transaction, so nothing of theirs works from
 * the moment it commits, and from then on a sign-in or a token mint for them is refused; their history stays.
 * Reactivating lets them sign in again, with that history.
 */
export class RepDepartures {
  readonly #db: Transactor;
  readonly #now: () => Date;
  readonly #recompute: EarningsRecompute | undefined;

  /** With `recompute`, a change of a rep's leaving date recomputes their open lines under the plans' leaver rules. */
  constructor(db: Transactor, options: { now?: () => Date; recompute?: EarningsRecompute } = {}) {
    this.#db = db;
    this.#now = options.now ?? (() => new Date());
    this.#recompute = options.recompute;
  }

  async #recomputeRep(orgId: string, departure: RepDeparture): Promise<RepDeparture> {
    if (departure.changed && this.#recompute) {
      await this.#recompute.run({ orgId, userIds: [departure.rep_id] });
    }
    return departure;
  }

  async deactivate(
    orgId: string,
    repId: string,
    leavingDate: string,
    actor: AuditActor = CLI_ACTOR,
  ): Promise<RepDeparture> {
    if (!isCalendarDate(leavingDate)) {
      throw new Refusal('invalid_body', `leaving_date: ${JSON.stringify(leavingDate)} is not a date (YYYY-MM-DD)`);
    }
    const departure = await this.#db.run(async (tx) => {
      const rep = await users.lockRepDeparture(tx, orgId, repId);
      if (!rep) throw new Refusal('not_found', `no rep ${repId}`);
      const at = this.#now();
      const sessionsEnded = await repSessions.endAllOfRep(tx, orgId, rep.id, at);
      const tokensRevoked = await repTokens.revokeAllOfRep(tx, orgId, rep.id, at);
      const changed = rep.leaving_date !== leavingDate;
      if (changed) await users.markDeactivated(tx, orgId, rep.id, leavingDate, at);
      if (changed || sessionsEnded + tokensRevoked > 0) {
        await audit.insertMany(tx, [
          adminAuditEntry(
            orgId,
            'rep.deactivated',
            {
              user_id: rep.id,
              external_id: rep.external_id,
              leaving_date: leavingDate,
              ...(rep.leaving_date && changed ? { previous_leaving_date: rep.leaving_date } : {}),
              sessions_ended: sessionsEnded,
              tokens_revoked: tokensRevoked,
            },
            actor,
          ),
        ]);
      }
      return {
        rep_id: rep.id,
        rep_external_id: rep.external_id,
        active: false,
        leaving_date: leavingDate,
        deactivated_at: rep.deactivated_at ?? at,
        changed,
        sessions_ended: sessionsEnded,
        tokens_revoked: tokensRevoked,
      };
    });
    return this.#recomputeRep(orgId, departure);
  }

  async reactivate(orgId: string, repId: string, actor: AuditActor = CLI_ACTOR): Promise<RepDeparture> {
    const departure = await this.#db.run(async (tx) => {
      const rep = await users.lockRepDeparture(tx, orgId, repId);
      if (!rep) throw new Refusal('not_found', `no rep ${repId}`);
      const changed = rep.deactivated_at !== null;
      if (changed) {
        await users.markReactivated(tx, orgId, rep.id);
        await audit.insertMany(tx, [
          adminAuditEntry(
            orgId,
            'rep.reactivated',
            { user_id: rep.id, external_id: rep.external_id, leaving_date: rep.leaving_date },
            actor,
          ),
        ]);
      }
      return {
        rep_id: rep.id,
        rep_external_id: rep.external_id,
        active: true,
        leaving_date: null,
        deactivated_at: null,
        changed,
        sessions_ended: 0,
        tokens_revoked: 0,
      };
    });
    return this.#recomputeRep(orgId, departure);
  }
}
