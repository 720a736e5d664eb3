import { randomBytes } from 'node:crypto';
import { tokenDigest } from '../access/tokenDigest.ts';
import { type AdminActor, adminAuditEntry, CLI_ACTOR, type ScimActor } from '../audit/adminEntries.ts';
import { isCalendarDate } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import * as audit from '../repositories/audit.ts';
import { orgOfCredential } from '../repositories/credentialOrgs.ts';
import * as identityProviders from '../repositories/identityProviders.ts';
import * as repInvitations from '../repositories/repInvitations.ts';
import type { ScimRepRecord } from '../repositories/scimUsers.ts';
import * as scimUsers from '../repositories/scimUsers.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import { normaliseEmail } from './adminIdentity.ts';
import type { RepDepartures } from './repDepartures.ts';
import type { RepNames } from './repNames.ts';

/** SCIM tokens start so, for secret scanners and for people who find one. */
const TOKEN_PREFIX = 'qscim_';

/** The provider a SCIM request acts through, as its bearer token names it. */
export interface ScimCaller {
  orgId: string;
  providerId: string;
  providerName: string;
}

/** A user as a SCIM client sends it, already checked against the SCIM core User schema (RFC 7643 section 4.1). */
export interface ScimUserInput {
  userName: string;
  externalId: string | null;
  active: boolean;
  displayName: string | null;
  givenName: string | null;
  familyName: string | null;
  emails: string[];
  /** Quotient's extension: the rep's CRM owner id, and the last day of a leaver. */
  repExternalId: string | null;
  leavingDate: string | null;
}

/** A new SCIM token, shown once. */
export interface ScimTokenIssued {
  provider_id: string;
  provider_name: string;
  token: string;
  created_at: Date;
}

/**
 * Provisioning of reps by an identity provider's SCIM 2.0 client (docs/sso.md#provisioning-with-scim): Okta or Entra
 * creates, changes and deactivates the company's people, and Quotient keeps its reps in step: a person set inactive
 * (or deleted) is a leaver from that day (RepDepartures: sessions and tokens end at once, the plans' leaver rules
 * apply), set active again a returner. A rep is never deleted: their pay history stays.
 */
export class ScimProvisioning {
  readonly #db: Transactor;
  readonly #departures: RepDepartures;
  readonly #names: RepNames;
  readonly #now: () => Date;

  constructor(db: Transactor, options: { departures: RepDepartures; names: RepNames; now?: () => Date }) {
    this.#db = db;
    this.#departures = options.departures;
    this.#names = options.names;
    this.#now = options.now ?? (() => new Date());
  }

  /** Makes the provider's SCIM token, ending the one before at once. Audited, never with the token. */
  async issueToken(orgId: string, provider: string, actor: AdminActor = CLI_ACTOR): Promise<ScimTokenIssued> {
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const at = this.#now();
    return this.#db.run(async (tx) => {
      const changed = await identityProviders.replaceScimToken(tx, orgId, provider, tokenDigest(token), at);
      if (!changed) throw new Refusal('not_found', `no identity provider ${provider}`);
      await audit.insertMany(tx, [
        adminAuditEntry(
          orgId,
          'identity_provider.scim_token_issued',
          { identity_provider_id: changed.id, name: changed.name, replaced: changed.had_token },
          actor,
        ),
      ]);
      return { provider_id: changed.id, provider_name: changed.name, token, created_at: at };
    });
  }

  /** Ends the provider's SCIM token: its client's next request is refused. */
  async revokeToken(orgId: string, provider: string, actor: AdminActor = CLI_ACTOR): Promise<void> {
    await this.#db.run(async (tx) => {
      const changed = await identityProviders.replaceScimToken(tx, orgId, provider, null, this.#now());
      if (!changed) throw new Refusal('not_found', `no identity provider ${provider}`);
      if (!changed.had_token) return;
      await audit.insertMany(tx, [
        adminAuditEntry(
          orgId,
          'identity_provider.scim_token_revoked',
          { identity_provider_id: changed.id, name: changed.name },
          actor,
        ),
      ]);
    });
  }

  /** The provider a bearer token stands for, or null (unknown, revoked, or its provider removed). */
  async authenticate(token: string): Promise<ScimCaller | null> {
    if (!token.startsWith(TOKEN_PREFIX)) return null;
    const digest = tokenDigest(token);
    const orgId = await orgOfCredential(this.#db.statements, 'scim_token', digest);
    if (orgId === null) return null;
    const holder = await identityProviders.findByScimToken(this.#db.statements, orgId, digest);
    return holder ? { orgId, providerId: holder.id, providerName: holder.name } : null;
  }

  async list(caller: ScimCaller): Promise<ScimRepRecord[]> {
    return scimUsers.listReps(this.#db.statements, caller.orgId, caller.providerId);
  }

  async find(caller: ScimCaller, userId: string): Promise<ScimRepRecord> {
    const rep = await scimUsers.findRep(this.#db.statements, caller.orgId, caller.providerId, userId);
    if (!rep) throw new Refusal('not_found', `no user ${userId}`);
    return rep;
  }

  /**
   * POST /Users: the person becomes a rep's SCIM user. The rep is the one with the extension's CRM owner id
   * (created when the org has none yet), else the one invited with the userName or one of the emails; a person who
   * is neither is refused, since a rep is first of all a CRM owner.
   */
  async create(caller: ScimCaller, input: ScimUserInput): Promise<ScimRepRecord> {
    const userName = checked(input);
    const userId = await this.#db.run(async (tx) => {
      if (await scimUsers.repOfUserName(tx, caller.orgId, caller.providerId, userName)) {
        throw new Refusal('invalid_state', `a user with userName ${input.userName} exists`);
      }
      const repId = await this.#repFor(tx, caller, input, userName);
      await this.#link(tx, caller, repId, input, userName);
      return repId;
    });
    return this.#applyNameAndStanding(caller, userId, input);
  }

  /** PUT /Users/{id} (and PATCH, applied by the SCIM library to the user as it stands): the user as sent. */
  async replace(caller: ScimCaller, userId: string, input: ScimUserInput): Promise<ScimRepRecord> {
    const userName = checked(input);
    await this.#db.run(async (tx) => {
      const rep = await users.findRepById(tx, caller.orgId, userId);
      if (!rep) throw new Refusal('not_found', `no user ${userId}`);
      const holder = await scimUsers.repOfUserName(tx, caller.orgId, caller.providerId, userName);
      if (holder !== null && holder !== userId) {
        throw new Refusal('invalid_state', `another user has userName ${input.userName}`);
      }
      await this.#link(tx, caller, userId, input, userName);
    });
    return this.#applyNameAndStanding(caller, userId, input);
  }

  /** DELETE /Users/{id}: the rep leaves today (their history stays) and is no longer this provider's user. */
  async remove(caller: ScimCaller, userId: string): Promise<void> {
    const rep = await this.find(caller, userId);
    await this.#db.run((tx) => scimUsers.unlink(tx, caller.orgId, caller.providerId, userId));
    if (rep.active) {
      await this.#departures.deactivate(caller.orgId, userId, utcDay(this.#now()), scimActor(caller));
    }
  }

  async #repFor(tx: Transaction, caller: ScimCaller, input: ScimUserInput, userName: string): Promise<string> {
    if (input.repExternalId !== null) {
      return (await users.createOrFindRep(tx, caller.orgId, input.repExternalId)).id;
    }
    for (const email of [userName, ...input.emails.map(normaliseEmail)]) {
      const invited = await repInvitations.findRep(tx, caller.orgId, email);
      if (invited) return invited;
    }
    throw new Refusal(
      'invalid_body',
      `no rep of the org was invited with ${input.userName}: send the rep's CRM owner id as repExternalId in the ` +
        'urn:ietf:params:scim:schemas:extension:quotient:2.0:User extension to create the rep',
    );
  }

  async #link(
    tx: Transaction,
    caller: ScimCaller,
    userId: string,
    input: ScimUserInput,
    userName: string,
  ): Promise<void> {
    const at = this.#now();
    await scimUsers.link(tx, {
      orgId: caller.orgId,
      userId,
      providerId: caller.providerId,
      userName,
      idpExternalId: input.externalId,
      at,
    });
    // The person signs in to the portal through the provider with their email: invited as this rep.
    for (const email of new Set([userName, ...input.emails.map(normaliseEmail)].filter((e) => e.includes('@')))) {
      await repInvitations.upsert(tx, caller.orgId, userId, email);
    }
  }

  /** The name and the standing the client sent, each through its own use case, then the user as it now is. */
  async #applyNameAndStanding(caller: ScimCaller, userId: string, input: ScimUserInput): Promise<ScimRepRecord> {
    const name = input.displayName ?? ([input.givenName, input.familyName].filter(Boolean).join(' ') || null);
    if (name !== null) {
      await this.#names.takeFromIdentityProvider({
        orgId: caller.orgId,
        userId,
        providerId: caller.providerId,
        claims: { name },
        at: this.#now(),
      });
    }
    const rep = await this.find(caller, userId);
    if (!input.active) {
      const leavingDate = input.leavingDate ?? (rep.active ? utcDay(this.#now()) : rep.leaving_date);
      if (rep.active || (leavingDate !== null && leavingDate !== rep.leaving_date)) {
        await this.#departures.deactivate(caller.orgId, userId, leavingDate ?? utcDay(this.#now()), scimActor(caller));
      }
    } else if (!rep.active) {
      await this.#departures.reactivate(caller.orgId, userId, scimActor(caller));
    }
    return this.find(caller, userId);
  }
}

/**
 * The input checked before anything is written; its userName as compared, without regard to case (RFC 7643 section
 * 4.1.1: userName is not caseExact).
 */
function checked(input: ScimUserInput): string {
  if (input.leavingDate !== null && !isCalendarDate(input.leavingDate)) {
    throw new Refusal('invalid_body', `leavingDate: ${JSON.stringify(input.leavingDate)} is not a date (YYYY-MM-DD)`);
  }
  const userName = input.userName.trim().toLowerCase();
  if (userName === '') throw new Refusal('invalid_body', 'userName: must not be empty');
  return userName;
}

function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

function scimActor(caller: ScimCaller): ScimActor {
  return { kind: 'scim', providerId: caller.providerId, providerName: caller.providerName };
}
