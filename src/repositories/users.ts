import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import { newId } from '../lib/ids.ts';
import { named, prismaOf, sql, statementParameters, type Transaction } from './transaction.ts';

/** A user (rep) as the API lists it. */
export interface UserRecord {
  id: string;
  external_id: string;
  display_name: string | null;
  created_at: Date;
}

/** A rep as the console lists it. */
export interface RepRecord {
  id: string;
  external_id: string;
  display_name: string | null;
  /** Who set `display_name` last: `admin` or `idp`; null while there is none. */
  display_name_source: string | null;
  /** A leaver's last day and when they were deactivated; both null while the rep is active. */
  leaving_date: Date | null;
  deactivated_at: Date | null;
}

export interface UserListFilters {
  externalId?: string;
}

/**
 * The external id of the rep of each row a statement of another table returns (`row`: the row's alias, whose
 * `user_id` names the rep), looked up by the users key `(org_id, id)`. A subquery, not a join: joined, a generic plan
 * sizes the org's reps from the average of every org and may scan them all for each row returned when that average
 * is small (docs/scaling.md, "A row's rep, by its key"; test/integration/read-plans.test.ts). `org` is the
 * statement's placeholder for the org, or the row's `org_id`.
 */
export function repExternalIdOf(org: string, row = 'e'): string {
  return `(SELECT u.external_id FROM users u WHERE u.org_id = ${org} AND u.id = ${row}.user_id)`;
}

/**
 * The id of the org's rep with the external id `externalId` (a placeholder), looked up once by the users key
 * `(org_id, external_id)`: a filter `user_id = repIdByExternalId(...)` on a rep's external id, which the rows' rep
 * index then serves (docs/scaling.md, "A row's rep, by its key").
 */
export function repIdByExternalId(org: string, externalId: string): string {
  return `(SELECT id FROM users WHERE org_id = ${org} AND external_id = ${externalId})`;
}

/**
 * The reps whose rows a list reads as ranges of their own, each in its rep's (created_at, id) order, then merged: a
 * rep token's rep and their reports, when the list is not filtered to one rep. `[undefined]`: one range (the org's,
 * or the one rep's); empty: the viewer sees nobody. A filter of the whole org's rows by `user_id = ANY(...)` would
 * read the org's history to fill a page of a few reps' rows (docs/scaling.md, "A row's rep, by its key").
 */
export function repRanges(
  visibleUserIds: readonly string[] | null,
  filteredToOneRep: boolean,
): Array<string | undefined> {
  return visibleUserIds !== null && !filteredToOneRep ? [...new Set(visibleUserIds)] : [undefined];
}

const ENSURE_REP = `
  WITH created AS (
    INSERT INTO users (id, org_id, external_id) VALUES ($1, $2, $3)
    ON CONFLICT (org_id, external_id) DO NOTHING
    RETURNING id
  )
  SELECT id, true AS created FROM created
  UNION ALL
  SELECT id, false AS created FROM users WHERE org_id = $2 AND external_id = $3`;

const FIND_REP = 'SELECT id FROM users WHERE org_id = $1 AND external_id = $2';

/**
 * The id of the org's user (rep) with this external id, created on first sight. If a concurrent transaction
 * creates the same user, the insert waits for it and the second statement sees its row.
 */
export async function ensureRep(tx: Transaction, orgId: string, externalId: string): Promise<string> {
  return (await createOrFindRep(tx, orgId, externalId)).id;
}

/** ensureRep, saying whether this statement created the user (a rep's first sight: docs/plan-acceptance.md). */
export async function createOrFindRep(
  tx: Transaction,
  orgId: string,
  externalId: string,
): Promise<{ id: string; created: boolean }> {
  const rows = await tx.query<{ id: string; created: boolean }>(
    named('users_ensure_rep', { text: ENSURE_REP, values: [newId('user'), orgId, externalId] }),
  );
  const found = rows[0] ?? (await findRepByExternalId(tx, orgId, externalId));
  if (!found) throw new Error(`user ${externalId} of org ${orgId} was neither created nor found`);
  return { id: found.id, created: 'created' in found && found.created === true };
}

/**
 * The users (reps) that deal events will create on first sight, created ahead of them in one statement and in
 * external-id order, so that two transactions creating the same new reps wait for each other in one order, never
 * in a circle. Only what the events' own first statements would create: nothing when the key (`keyId`) is revoked,
 * and no rep of an event whose dedup key is taken (a replay or a conflict writes nothing). The ids of the users
 * created.
 */
export async function ensureRepsOfEvents(
  tx: Transaction,
  orgId: string,
  keyId: string | null,
  events: ReadonlyArray<{ dedupKey: string; reps: readonly string[] }>,
): Promise<string[]> {
  const pairs = events.flatMap(({ dedupKey, reps }) => reps.map((rep) => ({ rep, dedupKey })));
  if (pairs.length === 0) return [];
  const reps = [...new Set(pairs.map((pair) => pair.rep))].sort();
  const created = await tx.query<{ id: string }>({
    text: `INSERT INTO users (id, org_id, external_id)
             SELECT n.id, $1, n.external_id FROM unnest($2::text[], $3::text[]) AS n(id, external_id)
             WHERE ($4::text IS NULL
                    OR EXISTS (SELECT 1 FROM api_keys k
                               WHERE k.org_id = $1 AND k.id = $4::text AND k.revoked_at IS NULL))
               AND EXISTS (SELECT 1 FROM unnest($5::text[], $6::text[]) AS e(rep, dedup_key)
                           WHERE e.rep = n.external_id
                             AND NOT EXISTS (SELECT 1 FROM source_events s
                                             WHERE s.org_id = $1 AND s.dedup_key = e.dedup_key))
             ORDER BY n.external_id
             ON CONFLICT (org_id, external_id) DO NOTHING
             RETURNING id`,
    values: [
      orgId,
      reps.map(() => newId('user')),
      reps,
      keyId,
      pairs.map((pair) => pair.rep),
      pairs.map((pair) => pair.dedupKey),
    ],
  });
  return created.map((row) => row.id);
}

/** Up to `limit` users after `position` in (created_at, id) order, with the filters applied. */
export async function listAfter(
  tx: Transaction,
  orgId: string,
  filters: UserListFilters,
  position: KeysetPosition,
  limit: number,
  visibleUserIds: readonly string[] | null = null,
): Promise<UserRecord[]> {
  const { values, param } = statementParameters(orgId);
  const where = ['org_id = $1'];
  if (visibleUserIds !== null) where.push(`id = ANY(${param(visibleUserIds)}::text[])`);
  if (filters.externalId !== undefined) where.push(`external_id = ${param(filters.externalId)}`);
  if (position) where.push(`(created_at, id) > (${param(position.at)}::timestamptz, ${param(position.id)})`);
  return tx.query<UserRecord>({
    text: `SELECT id, external_id, display_name, created_at FROM users
           WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT ${param(limit)}`,
    values,
  });
}

/** The org's user; null when there is none, or when it is not one of `visibleUserIds` (null: any). */
export async function find(
  tx: Transaction,
  orgId: string,
  userId: string,
  visibleUserIds: readonly string[] | null = null,
): Promise<UserRecord | null> {
  const { values, param } = statementParameters(orgId, userId);
  const visible = visibleUserIds === null ? '' : ` AND id = ANY(${param(visibleUserIds)}::text[])`;
  const rows = await tx.query<UserRecord>({
    text: `SELECT id, external_id, display_name, created_at FROM users WHERE org_id = $1 AND id = $2${visible}`,
    values,
  });
  return rows[0] ?? null;
}

/** The org's user (rep) with this external id, if it exists. */
export async function findRepByExternalId(
  tx: Transaction,
  orgId: string,
  externalId: string,
): Promise<{ id: string } | undefined> {
  const rows = await tx.query<{ id: string }>(named('users_find_rep', { text: FIND_REP, values: [orgId, externalId] }));
  return rows[0];
}

/** The org's user (rep) with this id, or null. */
export async function findRepById(
  tx: Transaction,
  orgId: string,
  userId: string,
): Promise<{ user_id: string; external_id: string; display_name: string | null } | null> {
  const rows = await tx.query<{ user_id: string; external_id: string; display_name: string | null }>(
    sql`SELECT id AS user_id, external_id, display_name FROM users WHERE org_id = ${orgId} AND id = ${userId}`,
  );
  return rows[0] ?? null;
}

/** Every rep of the org, as the engine names them, oldest first. */
export async function repsOfOrg(
  tx: Transaction,
  orgId: string,
): Promise<Array<{ user_id: string; external_id: string }>> {
  return tx.query<{ user_id: string; external_id: string }>(
    sql`SELECT id AS user_id, external_id FROM users WHERE org_id = ${orgId} ORDER BY created_at, id`,
  );
}

const REP_FIELDS = {
  id: true,
  external_id: true,
  display_name: true,
  display_name_source: true,
  leaving_date: true,
  deactivated_at: true,
} as const;

/** The org's reps (users with role rep), for the console, by external id. */
export async function listReps(tx: Transaction, orgId: string): Promise<RepRecord[]> {
  return prismaOf(tx).user.findMany({
    where: { org_id: orgId, role: 'rep' },
    orderBy: { external_id: 'asc' },
    select: REP_FIELDS,
  });
}

/** The org's user with this id if it is a rep, for the console. */
export async function findRep(tx: Transaction, orgId: string, repId: string): Promise<RepRecord | null> {
  return prismaOf(tx).user.findFirst({
    where: { org_id: orgId, id: repId, role: 'rep' },
    select: REP_FIELDS,
  });
}

/** The org's user with this external id if it is a rep, for the console and the admin commands. */
export async function findRepByExternalIdForAdmin(
  tx: Transaction,
  orgId: string,
  externalId: string,
): Promise<RepRecord | null> {
  return prismaOf(tx).user.findFirst({
    where: { org_id: orgId, external_id: externalId, role: 'rep' },
    select: REP_FIELDS,
  });
}

/** The ids of the org's users with these external ids, by external id (those that exist). */
export async function idsByExternalIds(
  tx: Transaction,
  orgId: string,
  externalIds: readonly string[],
): Promise<Map<string, string>> {
  if (externalIds.length === 0) return new Map();
  const rows = await tx.query<{ id: string; external_id: string }>(
    sql`SELECT id, external_id FROM users WHERE org_id = ${orgId} AND external_id = ANY(${externalIds}::text[])`,
  );
  return new Map(rows.map((row) => [row.external_id, row.id]));
}

/** A rep's display name and who set it last (null while there is none). */
export interface RepDisplayName {
  user_id: string;
  external_id: string;
  display_name: string | null;
  display_name_source: 'admin' | 'idp' | null;
}

/** The org's rep's display name, locked until the transaction ends (so a change records the name it replaced). */
export async function lockDisplayName(tx: Transaction, orgId: string, userId: string): Promise<RepDisplayName | null> {
  const rows = await tx.query<RepDisplayName>(
    sql`SELECT id AS user_id, external_id, display_name, display_name_source FROM users
        WHERE org_id = ${orgId} AND id = ${userId} FOR UPDATE`,
  );
  return rows[0] ?? null;
}

/** The rep's display name is `name`, set by `source`; null clears it (and its source). */
export async function setDisplayName(
  tx: Transaction,
  orgId: string,
  userId: string,
  name: string | null,
  source: 'admin' | 'idp',
): Promise<void> {
  await tx.query(
    sql`UPDATE users SET display_name = ${name}::text,
                         display_name_source = CASE WHEN ${name}::text IS NULL THEN NULL ELSE ${source}::text END
        WHERE org_id = ${orgId} AND id = ${userId}`,
  );
}

/** A rep's standing as a leaver: null fields while active. */
export interface RepDepartureRecord {
  id: string;
  external_id: string;
  leaving_date: string | null;
  deactivated_at: Date | null;
}

/** The rep's row locked for a deactivation or a reactivation; null when the org has no such rep. */
export async function lockRepDeparture(
  tx: Transaction,
  orgId: string,
  userId: string,
): Promise<RepDepartureRecord | null> {
  const rows = await tx.query<RepDepartureRecord>(
    sql`SELECT id, external_id, to_char(leaving_date, 'YYYY-MM-DD') AS leaving_date, deactivated_at FROM users
        WHERE org_id = ${orgId} AND id = ${userId} AND role = 'rep' FOR UPDATE`,
  );
  return rows[0] ?? null;
}

/** Deactivates the rep with their last day (a deactivated rep keeps the first deactivation time). */
export async function markDeactivated(
  tx: Transaction,
  orgId: string,
  userId: string,
  leavingDate: string,
  at: Date,
): Promise<void> {
  await tx.query(
    sql`UPDATE users SET leaving_date = ${leavingDate}::date, deactivated_at = COALESCE(deactivated_at, ${at})
        WHERE org_id = ${orgId} AND id = ${userId}`,
  );
}

export async function markReactivated(tx: Transaction, orgId: string, userId: string): Promise<void> {
  await tx.query(
    sql`UPDATE users SET leaving_date = NULL, deactivated_at = NULL WHERE org_id = ${orgId} AND id = ${userId}`,
  );
}

/** Whether the rep is deactivated (a sign-in or a token mint for them is refused). */
export async function isDeactivated(tx: Transaction, orgId: string, userId: string): Promise<boolean> {
  const rows = await tx.query<{ deactivated: boolean }>(
    sql`SELECT deactivated_at IS NOT NULL AS deactivated FROM users WHERE org_id = ${orgId} AND id = ${userId}`,
  );
  return rows[0]?.deactivated ?? false;
}
