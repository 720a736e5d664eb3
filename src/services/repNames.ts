import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { displayNameProblem, nameFromClaims, normaliseDisplayName } from '../domain/displayNames.ts';
import { Refusal } from '../domain/refusal.ts';
import { newId } from '../lib/ids.ts';
import * as audit from '../repositories/audit.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import type { RepDisplayName } from '../repositories/users.ts';
import * as users from '../repositories/users.ts';

// Reps' display names (docs/reps-and-payroll.md#display-names), as one use case for the admin API, the console and
// the CLI, and for the portal's sign-in through an identity provider. An admin's name wins: a sign-in keeps the
// provider's name only while the rep has none or the one they have came from a provider too.

/** A rep's display name after a change, and whether the change changed it. */
export interface DisplayNameChange extends RepDisplayName {
  changed: boolean;
}

export class RepNames {
  readonly #db: Transactor;

  constructor(db: Transactor) {
    this.#db = db;
  }

  /**
   * The org's rep `userId` is called `name` from now on; null clears it (the external id stands in, and the next
   * sign-in through a provider may bring a name). Audited when it changes. An unknown rep is `not_found`.
   */
  async setByAdmin(
    input: { orgId: string; userId: string; name: string | null },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<DisplayNameChange> {
    const name = input.name === null ? null : normaliseDisplayName(input.name);
    const problem = name === null ? null : displayNameProblem(name);
    if (problem !== null) throw new Refusal('invalid_body', `display_name: ${problem}`);
    const { userId } = input;
    return this.#db.run(async (tx) => {
      const named = await nameByAdmin(tx, input.orgId, userId, name, actor);
      if (!named) throw new Refusal('not_found', `no rep ${userId}`);
      return named;
    });
  }

  /**
   * At a portal sign-in through a provider, the ID token's name (`name`, else `given_name` and `family_name`)
   * becomes the rep's display name, unless an admin set the one they have. Audited (actor: the rep) when it changes.
   */
  async takeFromIdentityProvider(input: {
    orgId: string;
    userId: string;
    providerId: string;
    claims: Readonly<Record<string, unknown>>;
    at: Date;
  }): Promise<DisplayNameChange | null> {
    const name = nameFromClaims(input.claims);
    if (name === null) return null;
    return this.#db.run(async (tx) => {
      const before = await users.lockDisplayName(tx, input.orgId, input.userId);
      if (!before) return null;
      const providers = before.display_name === null || before.display_name_source === 'idp';
      if (!providers || before.display_name === name) return { ...before, changed: false };
      await users.setDisplayName(tx, input.orgId, input.userId, name, 'idp');
      await audit.insertMany(tx, [
        {
          id: newId('aud'),
          org_id: input.orgId,
          occurred_at: input.at,
          actor_type: 'rep',
          actor: input.userId,
          action: 'rep.display_name_set',
          details: {
            rep_id: input.userId,
            rep_external_id: before.external_id,
            display_name: name,
            previous_display_name: before.display_name,
            previous_source: before.display_name_source,
            via: 'sso',
            provider_id: input.providerId,
          },
        },
      ]);
      return { ...before, display_name: name, display_name_source: 'idp' as const, changed: true };
    });
  }
}

/**
 * In the caller's transaction, an admin names the rep `name` (kept as given: the caller normalised and checked it; null
 * clears it), audited with `details` added when it changes. Null when the org has no such user. The quota file names
 * reps through it too.
 */
export async function nameByAdmin(
  tx: Transaction,
  orgId: string,
  userId: string,
  name: string | null,
  actor: AdminActor,
  details: Record<string, unknown> = {},
): Promise<DisplayNameChange | null> {
  const before = await users.lockDisplayName(tx, orgId, userId);
  if (!before) return null;
  const source = name === null ? null : 'admin';
  if (before.display_name === name && before.display_name_source === source) return { ...before, changed: false };
  await users.setDisplayName(tx, orgId, userId, name, 'admin');
  await audit.insertMany(tx, [
    adminAuditEntry(
      orgId,
      'rep.display_name_set',
      {
        rep_id: userId,
        rep_external_id: before.external_id,
        display_name: name,
        previous_display_name: before.display_name,
        previous_source: before.display_name_source,
        ...details,
      },
      actor,
    ),
  ]);
  return { ...before, display_name: name, display_name_source: source, changed: true };
}
