import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import { newId } from '../lib/ids.ts';
import { named, sql, statementParameters, type Transaction } from './transaction.ts';

// Plan acceptances (docs/plan-acceptance.md): a rep asked to accept one plan version, and their answer, with the
// document they were shown kept as it was. Plain SQL, so a change runs on whichever driver opened its transaction.

export type PlanAcceptanceState = 'requested' | 'accepted';

export interface PlanAcceptanceRecord {
  id: string;
  org_id: string;
  user_id: string;
  user_external_id: string;
  /** The rep's display name, else their external id: the name they type to accept. */
  user_name: string;
  plan_id: string;
  plan_name: string;
  plan_version_id: string;
  plan_version: number;
  state: PlanAcceptanceState;
  requested_at: Date;
  reminded_at: Date | null;
  accepted_at: Date | null;
  typed_name: string | null;
  ip_address: string | null;
  user_agent: string | null;
  rep_token_id: string | null;
  document_sha256: string;
}

const COLUMNS = `
  a.id, a.org_id, a.user_id, u.external_id AS user_external_id, COALESCE(u.display_name, u.external_id) AS user_name,
  a.plan_id, COALESCE(v.definition ->> 'name', p.name) AS plan_name, a.plan_version_id, a.plan_version, a.state,
  a.requested_at, a.reminded_at, a.accepted_at, a.typed_name, a.ip_address, a.user_agent, a.rep_token_id,
  a.document_sha256`;

const FROM = `plan_acceptances a
  JOIN users u ON u.org_id = a.org_id AND u.id = a.user_id
  JOIN plans p ON p.org_id = a.org_id AND p.id = a.plan_id
  JOIN plan_versions v ON v.org_id = a.org_id AND v.id = a.plan_version_id`;

export interface NewPlanAcceptance {
  userId: string;
  planId: string;
  planVersionId: string;
  planVersion: number;
  /** The document's JSON model as text. */
  document: string;
  documentSha256: string;
  at: Date;
}

/** Asks the rep to accept the version; the id of the request made, or null when one was made already. */
export async function insertRequest(
  tx: Transaction,
  orgId: string,
  request: NewPlanAcceptance,
): Promise<string | null> {
  const rows = await tx.query<{ id: string }>(sql`
    INSERT INTO plan_acceptances (id, org_id, user_id, plan_id, plan_version_id, plan_version, state, requested_at,
                                  document, document_sha256)
    VALUES (${newId('pac')}, ${orgId}, ${request.userId}, ${request.planId}, ${request.planVersionId},
            ${request.planVersion}, 'requested', ${request.at}, ${request.document},
            ${request.documentSha256})
    ON CONFLICT (org_id, user_id, plan_version_id) DO NOTHING
    RETURNING id`);
  return rows[0]?.id ?? null;
}

/**
 * Keeps the version's document for reps with no quota table and no start date of their own (plan_acceptance_documents):
 * what a rep who comes to be after the version was applied is asked to accept (requestForNewReps). A version's is
 * kept once; keeping it again changes nothing.
 */
export async function keepNewRepDocument(
  tx: Transaction,
  orgId: string,
  planVersionId: string,
  document: { text: string; sha256: string },
): Promise<void> {
  await tx.query(sql`
    INSERT INTO plan_acceptance_documents (org_id, plan_version_id, document, document_sha256)
    VALUES (${orgId}, ${planVersionId}, ${document.text}, ${document.sha256})
    ON CONFLICT (org_id, plan_version_id) DO NOTHING`);
}

/** A request due to a rep just created: the current version of an active plan that names them (or all reps). */
export interface NewRepRequest {
  userId: string;
  planId: string;
  planVersionId: string;
  planVersion: number;
}

const NEW_REP_REQUESTS_DUE = `
  WITH reps AS (
    SELECT id, external_id FROM users WHERE org_id = $1 AND id = ANY($2::text[]) AND role = 'rep'
  )
  SELECT r.id AS user_id, p.id AS plan_id, v.id AS plan_version_id, v.number AS plan_version
  FROM reps r
  JOIN plans p ON p.org_id = $1 AND p.status = 'active'
  JOIN plan_versions v ON v.org_id = $1 AND v.id = p.current_version_id
  JOIN plan_acceptance_documents d ON d.org_id = $1 AND d.plan_version_id = v.id
  WHERE (jsonb_typeof(v.definition -> 'assignees') IS DISTINCT FROM 'array'
         OR EXISTS (
           SELECT 1 FROM jsonb_array_elements(v.definition -> 'assignees') AS a(entry)
           WHERE (CASE WHEN jsonb_typeof(a.entry) = 'string' THEN a.entry #>> '{}'
                       ELSE a.entry ->> 'owner_external_id' END) = r.external_id))
    AND NOT EXISTS (SELECT 1 FROM plan_acceptances x
                    WHERE x.org_id = $1 AND x.user_id = r.id AND x.plan_version_id = v.id)
  ORDER BY r.external_id, p.id`;

/**
 * The requests due to reps just created (user ids): for each, the current version of every active plan assigned to
 * them (`assignees: all`, or a list naming them, dated or not) whose new-rep document is kept, not asked yet.
 */
export async function newRepRequestsDue(
  tx: Transaction,
  orgId: string,
  userIds: readonly string[],
): Promise<NewRepRequest[]> {
  if (userIds.length === 0) return [];
  const rows = await tx.query<{ user_id: string; plan_id: string; plan_version_id: string; plan_version: number }>(
    named('plan_acceptances_new_rep_requests_due', { text: NEW_REP_REQUESTS_DUE, values: [orgId, [...userIds]] }),
  );
  return rows.map((row) => ({
    userId: row.user_id,
    planId: row.plan_id,
    planVersionId: row.plan_version_id,
    planVersion: row.plan_version,
  }));
}

const INSERT_NEW_REP_REQUESTS = `
  WITH asked AS (
    INSERT INTO plan_acceptances (id, org_id, user_id, plan_id, plan_version_id, plan_version, state, requested_at,
                                  document, document_sha256)
    SELECT n.id, $1, n.user_id, n.plan_id, n.plan_version_id, n.plan_version, 'requested', $2::timestamptz,
           d.document, d.document_sha256
    FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::int[])
           AS n(id, user_id, plan_id, plan_version_id, plan_version)
    JOIN plan_acceptance_documents d ON d.org_id = $1 AND d.plan_version_id = n.plan_version_id
    ORDER BY n.user_id, n.plan_version_id
    ON CONFLICT (org_id, user_id, plan_version_id) DO NOTHING
    RETURNING id, org_id, user_id, plan_id, plan_version_id, plan_version, state, requested_at, reminded_at,
              accepted_at, typed_name, ip_address, user_agent, rep_token_id, document_sha256
  )
  SELECT ${COLUMNS} FROM asked a
  JOIN users u ON u.org_id = $1 AND u.id = a.user_id
  JOIN plans p ON p.org_id = $1 AND p.id = a.plan_id
  JOIN plan_versions v ON v.org_id = $1 AND v.id = a.plan_version_id
  ORDER BY u.external_id, a.plan_id`;

/**
 * Makes the requests (newRepRequestsDue) in one statement, each with its version's new-rep document; the requests
 * made, as `find` reads them (one made meanwhile by another transaction is left as it is, and not returned).
 */
export async function insertNewRepRequests(
  tx: Transaction,
  orgId: string,
  requests: readonly NewRepRequest[],
  at: Date,
): Promise<PlanAcceptanceRecord[]> {
  if (requests.length === 0) return [];
  return tx.query<PlanAcceptanceRecord>(
    named('plan_acceptances_insert_new_rep_requests', {
      text: INSERT_NEW_REP_REQUESTS,
      values: [
        orgId,
        at,
        requests.map(() => newId('pac')),
        requests.map((request) => request.userId),
        requests.map((request) => request.planId),
        requests.map((request) => request.planVersionId),
        requests.map((request) => request.planVersion),
      ],
    }),
  );
}

export async function find(tx: Transaction, orgId: string, id: string): Promise<PlanAcceptanceRecord | null> {
  const rows = await tx.query<PlanAcceptanceRecord>({
    text: `SELECT ${COLUMNS} FROM ${FROM} WHERE a.org_id = $1 AND a.id = $2`,
    values: [orgId, id],
  });
  return rows[0] ?? null;
}

/** The document kept with the acceptance: its JSON model as text, exactly as stored. */
export async function documentOf(tx: Transaction, orgId: string, id: string): Promise<string | null> {
  const rows = await tx.query<{ document: string }>(
    sql`SELECT document FROM plan_acceptances WHERE org_id = ${orgId} AND id = ${id}`,
  );
  return rows[0]?.document ?? null;
}

/** Locks the acceptance's row until the transaction ends, so two changes of it run one after the other. */
export async function lockForChange(tx: Transaction, orgId: string, id: string): Promise<PlanAcceptanceRecord | null> {
  const locked = await tx.query<{ id: string }>(
    sql`SELECT id FROM plan_acceptances WHERE org_id = ${orgId} AND id = ${id} FOR UPDATE`,
  );
  return locked.length === 0 ? null : find(tx, orgId, id);
}

/** The rep's latest request for the plan (the highest version asked), or for one version of it. */
export async function latestForRep(
  tx: Transaction,
  orgId: string,
  userId: string,
  planId: string,
  planVersionId?: string,
): Promise<PlanAcceptanceRecord | null> {
  const { values, param } = statementParameters(orgId, userId, planId);
  const version = planVersionId === undefined ? '' : ` AND a.plan_version_id = ${param(planVersionId)}`;
  const rows = await tx.query<PlanAcceptanceRecord>({
    text: `SELECT ${COLUMNS} FROM ${FROM}
           WHERE a.org_id = $1 AND a.user_id = $2 AND a.plan_id = $3${version}
           ORDER BY a.plan_version DESC LIMIT 1`,
    values,
  });
  return rows[0] ?? null;
}

export interface Acceptance {
  at: Date;
  typedName: string;
  ipAddress: string | null;
  userAgent: string | null;
  repTokenId: string | null;
}

export async function markAccepted(tx: Transaction, orgId: string, id: string, acceptance: Acceptance): Promise<void> {
  await tx.query(sql`
    UPDATE plan_acceptances SET state = 'accepted', accepted_at = ${acceptance.at}, typed_name = ${acceptance.typedName},
           ip_address = ${acceptance.ipAddress}, user_agent = ${acceptance.userAgent}, rep_token_id = ${acceptance.repTokenId}
    WHERE org_id = ${orgId} AND id = ${id}`);
}

export async function markReminded(tx: Transaction, orgId: string, id: string, at: Date): Promise<void> {
  await tx.query(sql`UPDATE plan_acceptances SET reminded_at = ${at} WHERE org_id = ${orgId} AND id = ${id}`);
}

export interface PlanAcceptanceFilters {
  /** Only these reps' (a rep principal's visible users). */
  userIds?: readonly string[];
  userId?: string;
  planId?: string;
  planVersionId?: string;
  state?: PlanAcceptanceState;
}

/** A page of acceptances after `position`, newest request first. */
export async function listPage(
  tx: Transaction,
  orgId: string,
  filters: PlanAcceptanceFilters,
  position: KeysetPosition,
  limit: number,
): Promise<PlanAcceptanceRecord[]> {
  const { values, param } = statementParameters(orgId);
  const where = ['a.org_id = $1', ...conditions(filters, param)];
  if (position) where.push(`(a.requested_at, a.id) < (${param(position.at)}::timestamptz, ${param(position.id)})`);
  return tx.query<PlanAcceptanceRecord>({
    text: `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where.join(' AND ')}
           ORDER BY a.requested_at DESC, a.id DESC LIMIT ${param(limit)}`,
    values,
  });
}

/** Every acceptance of one plan version: those waiting first, then by the rep's name. */
export async function ofVersion(
  tx: Transaction,
  orgId: string,
  planVersionId: string,
): Promise<PlanAcceptanceRecord[]> {
  return tx.query<PlanAcceptanceRecord>({
    text: `SELECT ${COLUMNS} FROM ${FROM} WHERE a.org_id = $1 AND a.plan_version_id = $2
           ORDER BY (a.state = 'accepted'), COALESCE(u.display_name, u.external_id), a.id`,
    values: [orgId, planVersionId],
  });
}

/**
 * The plans each of the org's reps has not accepted yet: their latest request for the plan (highest version) is
 * still `requested`. What holds pay when the org's pay waits for acceptance.
 */
export async function unacceptedPlansByUser(
  tx: Transaction,
  orgId: string,
  userIds?: readonly string[],
): Promise<Map<string, Set<string>>> {
  const { values, param } = statementParameters(orgId);
  const only = userIds === undefined ? '' : ` AND user_id = ANY(${param(userIds)}::text[])`;
  const rows = await tx.query<{ user_id: string; plan_id: string }>({
    text: `SELECT user_id, plan_id FROM (
             SELECT DISTINCT ON (user_id, plan_id) user_id, plan_id, state FROM plan_acceptances
             WHERE org_id = $1${only}
             ORDER BY user_id, plan_id, plan_version DESC
           ) latest WHERE state = 'requested'`,
    values,
  });
  const byUser = new Map<string, Set<string>>();
  for (const row of rows) {
    const plans = byUser.get(row.user_id) ?? new Set<string>();
    plans.add(row.plan_id);
    byUser.set(row.user_id, plans);
  }
  return byUser;
}

function conditions(filters: PlanAcceptanceFilters, param: (value: unknown) => string): string[] {
  const where: string[] = [];
  if (filters.userIds !== undefined) where.push(`a.user_id = ANY(${param(filters.userIds)}::text[])`);
  if (filters.userId !== undefined) where.push(`a.user_id = ${param(filters.userId)}`);
  if (filters.planId !== undefined) where.push(`a.plan_id = ${param(filters.planId)}`);
  if (filters.planVersionId !== undefined) where.push(`a.plan_version_id = ${param(filters.planVersionId)}`);
  if (filters.state !== undefined) where.push(`a.state = ${param(filters.state)}`);
  return where;
}
