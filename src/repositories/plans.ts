import type { Prisma } from '../../generated/prisma/client.ts';
import type { ChipDefinition, PeriodKind, PlanDefinition } from '../domain/plans/types.ts';
import { prismaOf, sql, type Transaction } from './transaction.ts';

// The plans as the admin reads them, through Prisma: a plan by key or id (locked or not), the lists, a plan's
// versions, digests and chips, with the plan's shapes the modules beside it share. Beside it: the admin's writes of
// plans and versions (planWrites.ts), a version's snapshot with its chips (planSnapshots.ts), and what the ledger and
// the statements read in plain SQL (ledgerPlans.ts).

export type PlanStatus = 'active' | 'archived';

/** A plan as stored, in domain terms (the quota as a number of cents). */
export interface PlanRecord {
  id: string;
  org_id: string;
  key: string;
  name: string;
  status: PlanStatus;
  period: PeriodKind;
  quota_cents: number | null;
  current_version_id: string;
  created_at: Date;
  updated_at: Date;
  archived_at: Date | null;
}

/** A plan version's plan-level cap and draw, as the wire shows them: null when not set. */
export interface PlanLimits {
  cap_cents: number | null;
  draw: { amount_cents: number; recoverable: boolean; paid?: 'in_advance' } | null;
}

export function limitsOf(definition: Pick<Partial<PlanDefinition>, 'cap_cents' | 'draw'>): PlanLimits {
  return {
    cap_cents: typeof definition.cap_cents === 'number' ? definition.cap_cents : null,
    draw: definition.draw
      ? {
          amount_cents: definition.draw.amount_cents,
          recoverable: definition.draw.recoverable,
          ...(definition.draw.paid === 'in_advance' ? { paid: 'in_advance' as const } : {}),
        }
      : null,
  };
}

/** A chip as it stands in one plan version. `version` is the contract's `rule_version` ("1", "2", …). */
export interface VersionChip {
  id: string;
  version: string;
  definition: ChipDefinition;
}

/** One plan version with everything an evaluation needs: the normalised definition and its chips in order. */
export interface PlanVersionSnapshot {
  plan: PlanRecord;
  version_id: string;
  version_number: number;
  definition: PlanDefinition;
  chips: VersionChip[];
}

/** The newest state of each chip of a plan (over every version), by chip key. */
export interface LatestChip {
  id: string;
  version: number;
  definition_digest: string;
}

export const PLAN_FIELDS = {
  id: true,
  org_id: true,
  key: true,
  name: true,
  status: true,
  period: true,
  quota_cents: true,
  current_version_id: true,
  created_at: true,
  updated_at: true,
  archived_at: true,
} as const;

export type PlanRow = Prisma.PlanGetPayload<{ select: typeof PLAN_FIELDS }>;

export function toPlanRecord(row: PlanRow): PlanRecord {
  if (row.current_version_id === null) throw new Error(`plan ${row.id} has no current version`);
  return {
    id: row.id,
    org_id: row.org_id,
    key: row.key,
    name: row.name,
    status: row.status as PlanStatus,
    period: row.period as PeriodKind,
    quota_cents: row.quota_cents === null ? null : Number(row.quota_cents),
    current_version_id: row.current_version_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    archived_at: row.archived_at,
  };
}

export async function findByKey(tx: Transaction, orgId: string, key: string): Promise<PlanRecord | null> {
  const row = await prismaOf(tx).plan.findUnique({
    where: { org_id_key: { org_id: orgId, key } },
    select: PLAN_FIELDS,
  });
  return row ? toPlanRecord(row) : null;
}

export async function find(tx: Transaction, orgId: string, planId: string): Promise<PlanRecord | null> {
  const row = await prismaOf(tx).plan.findFirst({
    where: { org_id: orgId, id: planId },
    select: PLAN_FIELDS,
  });
  return row ? toPlanRecord(row) : null;
}

/** Locks the plan row for the rest of the transaction. */
export async function lock(tx: Transaction, orgId: string, planId: string): Promise<PlanRecord | null> {
  const locked = await prismaOf(tx).$queryRaw<Array<{ id: string }>>`
    SELECT id FROM plans WHERE org_id = ${orgId} AND id = ${planId} FOR UPDATE`;
  return locked.length === 0 ? null : find(tx, orgId, planId);
}

/**
 * The plans any of the users is or was assigned to (by any version's assignees, `all` included) or has rows of:
 * what a rep principal may see of the org's plans.
 */
export async function idsAssignedToAny(
  tx: Transaction,
  orgId: string,
  userIds: readonly string[],
): Promise<Set<string>> {
  const rows = await tx.query<{ plan_id: string }>(
    sql`WITH reps AS (SELECT external_id FROM users WHERE org_id = ${orgId} AND id = ANY(${userIds}::text[]))
        SELECT v.plan_id FROM plan_versions v
        WHERE v.org_id = ${orgId} AND (
          jsonb_typeof(v.definition -> 'assignees') IS DISTINCT FROM 'array'
          OR EXISTS (
            SELECT 1 FROM jsonb_array_elements(v.definition -> 'assignees') AS a(entry)
            WHERE (CASE WHEN jsonb_typeof(a.entry) = 'string' THEN a.entry #>> '{}' ELSE a.entry ->> 'owner_external_id' END)
                  IN (SELECT external_id FROM reps)))
        UNION
        SELECT DISTINCT plan_id FROM earnings WHERE org_id = ${orgId} AND user_id = ANY(${userIds}::text[])`,
  );
  return new Set(rows.map((row) => row.plan_id));
}

/** The org's active plans, oldest first (the API's plan list). */
export async function listActive(tx: Transaction, orgId: string): Promise<PlanRecord[]> {
  const rows = await prismaOf(tx).plan.findMany({
    where: { org_id: orgId, status: 'active' },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    select: PLAN_FIELDS,
  });
  return rows.map(toPlanRecord);
}

/**
 * Every plan of the org, active and archived, oldest first, with its current version's number and the plan-level
 * settings of its definition (cap and draw).
 */
export async function listWithVersionNumbers(
  tx: Transaction,
  orgId: string,
): Promise<Array<PlanRecord & { current_version_number: number; current_limits: PlanLimits }>> {
  const plans = (
    await prismaOf(tx).plan.findMany({
      where: { org_id: orgId },
      orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
      select: PLAN_FIELDS,
    })
  ).map(toPlanRecord);
  const versions = await prismaOf(tx).planVersion.findMany({
    where: { org_id: orgId, id: { in: plans.map((plan) => plan.current_version_id) } },
    select: { id: true, number: true, definition: true },
  });
  const byId = new Map(versions.map((version) => [version.id, version]));
  return plans.map((plan) => {
    const version = byId.get(plan.current_version_id);
    return {
      ...plan,
      current_version_number: version?.number ?? 0,
      current_limits: limitsOf((version?.definition ?? {}) as Partial<PlanDefinition>),
    };
  });
}

/** The content digest of the plan's current version. */
export async function currentContentDigest(tx: Transaction, plan: PlanRecord): Promise<string | null> {
  const version = await prismaOf(tx).planVersion.findFirst({
    where: { org_id: plan.org_id, id: plan.current_version_id },
    select: { content_digest: true },
  });
  return version?.content_digest ?? null;
}

export async function lastVersionNumber(tx: Transaction, orgId: string, planId: string): Promise<number> {
  const last = await prismaOf(tx).planVersion.aggregate({
    where: { org_id: orgId, plan_id: planId },
    _max: { number: true },
  });
  return last._max.number ?? 0;
}

/** Every chip the plan ever had, by key, with its newest version and definition digest. */
export async function latestChips(tx: Transaction, orgId: string, planId: string): Promise<Map<string, LatestChip>> {
  const rows = await prismaOf(tx).$queryRaw<
    Array<{ key: string; id: string; version: number; definition_digest: string }>
  >`
    SELECT DISTINCT ON (c.id) c.key, c.id, pvc.version, pvc.definition_digest
    FROM chips c JOIN plan_version_chips pvc ON pvc.org_id = c.org_id AND pvc.chip_id = c.id
    WHERE c.org_id = ${orgId} AND c.plan_id = ${planId}
    ORDER BY c.id, pvc.version DESC`;
  return new Map(
    rows.map((row) => [row.key, { id: row.id, version: row.version, definition_digest: row.definition_digest }]),
  );
}

/** The plan's versions, newest first (ids, numbers and when they were applied). */
export async function listVersions(
  tx: Transaction,
  orgId: string,
  planId: string,
): Promise<Array<{ id: string; number: number; created_at: Date }>> {
  return prismaOf(tx).planVersion.findMany({
    where: { org_id: orgId, plan_id: planId },
    orderBy: { number: 'desc' },
    select: { id: true, number: true, created_at: true },
  });
}
