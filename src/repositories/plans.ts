import { Prisma } from '../../generated/prisma/client.ts';
import { normaliseChip } from '../domain/plans/normalise.ts';
import type {
  Assignee,
  ChipDefinition,
  Condition,
  PeriodKind,
  PlanDefinition,
  PlanDraw,
} from '../domain/plans/types.ts';
import { named, prismaOf, sql, type Transaction } from './transaction.ts';

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
  draw: { amount_cents: number; recoverable: boolean } | null;
}

export function limitsOf(definition: Pick<Partial<PlanDefinition>, 'cap_cents' | 'draw'>): PlanLimits {
  return {
    cap_cents: typeof definition.cap_cents === 'number' ? definition.cap_cents : null,
    draw: definition.draw
      ? { amount_cents: definition.draw.amount_cents, recoverable: definition.draw.recoverable }
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

export interface NewPlanVersion {
  orgId: string;
  planId: string;
  versionId: string;
  number: number;
  definition: PlanDefinition;
  contentDigest: string;
  /** Chip rows to create (chips seen for the first time in this plan). */
  newChips: Array<{ id: string; key: string }>;
  chips: Array<{ id: string; version: number; definition: ChipDefinition; definitionDigest: string }>;
  at: Date;
}

const PLAN_FIELDS = {
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

type PlanRow = Prisma.PlanGetPayload<{ select: typeof PLAN_FIELDS }>;

function toPlanRecord(row: PlanRow): PlanRecord {
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

/** A stored plan version with its chips in order, as `toSnapshot` reads it. */
interface StoredVersion {
  id: string;
  number: number;
  definition: unknown;
  chips: Array<{
    chip_id: string;
    key: string;
    version: number;
    name: string;
    kind: string;
    when: unknown;
    params: unknown;
  }>;
}

function toSnapshot(plan: PlanRecord, version: StoredVersion): PlanVersionSnapshot {
  const chips = version.chips.map((chip) => ({
    id: chip.chip_id,
    version: String(chip.version),
    definition: normaliseChip({
      key: chip.key,
      name: chip.name,
      kind: chip.kind as ChipDefinition['kind'],
      when: chip.when as Condition | null,
      params: chip.params as Record<string, unknown>,
    }),
  }));
  const stored = version.definition as PlanDefinition;
  const definition: PlanDefinition = {
    key: stored.key,
    name: stored.name,
    period: stored.period,
    quota_cents: stored.quota_cents,
    assignees: stored.assignees,
    ...(Array.isArray(stored.ramp) ? { ramp: [...stored.ramp] } : {}),
    ...(typeof stored.cap_cents === 'number' ? { cap_cents: stored.cap_cents } : {}),
    ...(typeof stored.currency === 'string' ? { currency: stored.currency } : {}),
    ...(stored.draw ? { draw: { amount_cents: stored.draw.amount_cents, recoverable: stored.draw.recoverable } } : {}),
    chips: chips.map((chip) => chip.definition),
  };
  return { plan, version_id: version.id, version_number: version.number, definition, chips };
}

const VERSION_SNAPSHOT = `
  SELECT p.id, p.org_id, p.key, p.name, p.status, p.period, p.quota_cents, p.current_version_id, p.created_at,
         p.updated_at, p.archived_at, v.id AS version_id, v.number AS version_number, v.definition,
         COALESCE((SELECT json_agg(json_build_object('chip_id', vc.chip_id, 'key', c.key, 'version', vc.version,
                                                     'name', vc.name, 'kind', vc.kind, 'when', vc."when",
                                                     'params', vc.params) ORDER BY vc.position)
                   FROM plan_version_chips vc JOIN chips c ON c.org_id = vc.org_id AND c.id = vc.chip_id
                   WHERE vc.org_id = v.org_id AND vc.plan_version_id = v.id), '[]'::json) AS chips
  FROM plans p JOIN plan_versions v ON v.plan_id = p.id AND v.org_id = p.org_id
  WHERE p.org_id = $1 AND p.id = $2 AND v.id = $3`;

/**
 * One plan version with its chips, in evaluation order, read in the caller's transaction (plain SQL, so inside
 * a deal event's transaction of the `pg` pool too): what an evaluation reads for a version it has not cached.
 */
export async function versionSnapshot(
  tx: Transaction,
  orgId: string,
  planId: string,
  versionId: string,
): Promise<PlanVersionSnapshot | null> {
  const rows = await tx.query<
    PlanRow & { version_id: string; version_number: number; definition: unknown; chips: StoredVersion['chips'] }
  >(named('plans_version_snapshot', { text: VERSION_SNAPSHOT, values: [orgId, planId, versionId] }));
  const row = rows[0];
  if (!row) return null;
  const { version_id, version_number, definition, chips, ...plan } = row;
  return toSnapshot(toPlanRecord(plan), { id: version_id, number: version_number, definition, chips });
}

// Serialises applies of one plan key in an org (also the very first, when there is no row to lock yet).
const PLAN_KEY_LOCK_CLASS = 0x706c616e; // "plan"

/** Holds the org's lock on this plan key until the transaction ends. */
export async function lockKey(tx: Transaction, orgId: string, key: string): Promise<void> {
  await prismaOf(tx)
    .$executeRaw`SELECT pg_advisory_xact_lock(${PLAN_KEY_LOCK_CLASS}::int, hashtext(${`${orgId}/${key}`}))`;
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

/** The first version of a new plan: the plan row, pointing at the version written with it. */
export async function createPlan(tx: Transaction, version: NewPlanVersion): Promise<void> {
  const { definition } = version;
  await prismaOf(tx).plan.create({
    data: {
      id: version.planId,
      org_id: version.orgId,
      key: definition.key,
      name: definition.name,
      period: definition.period,
      quota_cents: definition.quota_cents,
      status: 'active',
      current_version_id: version.versionId,
      created_at: version.at,
      updated_at: version.at,
    },
  });
  await writeVersion(tx, version);
}

/** A further version of an existing plan; the plan takes its settings and becomes active. */
export async function addVersion(tx: Transaction, version: NewPlanVersion): Promise<void> {
  await writeVersion(tx, version);
  const { definition } = version;
  await prismaOf(tx).plan.update({
    where: { org_id_id: { org_id: version.orgId, id: version.planId } },
    data: {
      name: definition.name,
      period: definition.period,
      quota_cents: definition.quota_cents,
      status: 'active',
      archived_at: null,
      current_version_id: version.versionId,
      updated_at: version.at,
    },
  });
}

/** Makes an archived plan active again, on the version it had. */
export async function reactivate(tx: Transaction, orgId: string, planId: string, at: Date): Promise<void> {
  await prismaOf(tx).plan.updateMany({
    where: { org_id: orgId, id: planId },
    data: { status: 'active', archived_at: null, updated_at: at },
  });
}

/** Archives an active plan; `changed` is false when it was archived already (the first time stays). */
export async function archive(tx: Transaction, orgId: string, planId: string, at: Date): Promise<boolean> {
  const { count } = await prismaOf(tx).plan.updateMany({
    where: { org_id: orgId, id: planId, status: 'active' },
    data: { status: 'archived', archived_at: at, updated_at: at },
  });
  return count > 0;
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

/** A plan version with its chips, in evaluation order. */
export async function snapshot(tx: Transaction, orgId: string, planId: string, versionId?: string) {
  const plan = await find(tx, orgId, planId);
  if (!plan) return null;
  const [snapshot] = await snapshotsOf(prismaOf(tx), [plan], versionId);
  return snapshot ?? null;
}

/** The current versions of the org's active plans, oldest plan first: what evaluations run. */
export async function activeSnapshots(tx: Transaction, orgId: string): Promise<PlanVersionSnapshot[]> {
  const client = prismaOf(tx);
  const rows = await client.plan.findMany({
    where: { org_id: orgId, status: 'active' },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
    select: PLAN_FIELDS,
  });
  return snapshotsOf(client, rows.map(toPlanRecord));
}

async function snapshotsOf(
  client: Prisma.TransactionClient,
  plans: PlanRecord[],
  versionId?: string,
): Promise<PlanVersionSnapshot[]> {
  if (plans.length === 0) return [];
  const versions = await client.planVersion.findMany({
    where: {
      org_id: plans[0]?.org_id as string,
      id: { in: versionId ? [versionId] : plans.map((plan) => plan.current_version_id) },
    },
    select: {
      id: true,
      plan_id: true,
      number: true,
      definition: true,
      chips: {
        orderBy: { position: 'asc' },
        select: {
          chip_id: true,
          version: true,
          name: true,
          kind: true,
          when: true,
          params: true,
        },
      },
    },
  });
  // The chips' keys by (org_id, id), not through Prisma's relation load, which would name the org per row
  // (`org_id IN (…)`): one org, one statement (docs/scaling.md).
  const chipIds = [...new Set(versions.flatMap((version) => version.chips.map((chip) => chip.chip_id)))];
  const chips =
    chipIds.length === 0
      ? []
      : await client.chip.findMany({
          where: { org_id: plans[0]?.org_id as string, id: { in: chipIds } },
          select: { id: true, key: true },
        });
  const keys = new Map(chips.map((chip) => [chip.id, chip.key]));
  const byPlan = new Map(versions.map((version) => [version.plan_id, version]));
  return plans.flatMap((plan) => {
    const version = byPlan.get(plan.id);
    if (!version) return [];
    return [
      toSnapshot(plan, {
        ...version,
        chips: version.chips.map((chip) => {
          const key = keys.get(chip.chip_id);
          if (key === undefined) throw new Error(`plan version ${version.id} names chip ${chip.chip_id}, not found`);
          return { ...chip, key };
        }),
      }),
    ];
  });
}

async function writeVersion(tx: Transaction, version: NewPlanVersion): Promise<void> {
  await prismaOf(tx).planVersion.create({
    data: {
      id: version.versionId,
      org_id: version.orgId,
      plan_id: version.planId,
      number: version.number,
      definition: toJson(version.definition),
      content_digest: version.contentDigest,
      created_at: version.at,
    },
  });
  if (version.newChips.length > 0) {
    await prismaOf(tx).chip.createMany({
      data: version.newChips.map((chip) => ({
        id: chip.id,
        org_id: version.orgId,
        plan_id: version.planId,
        key: chip.key,
        created_at: version.at,
      })),
    });
  }
  await prismaOf(tx).planVersionChip.createMany({
    data: version.chips.map((chip, position) => ({
      org_id: version.orgId,
      plan_version_id: version.versionId,
      chip_id: chip.id,
      position,
      version: chip.version,
      name: chip.definition.name,
      kind: chip.definition.kind,
      when: chip.definition.when === null ? Prisma.DbNull : toJson(chip.definition.when),
      params: toJson(chip.definition.params),
      definition_digest: chip.definitionDigest,
    })),
  });
}

/** Plan definitions are JSON by construction (validated plan files); Prisma's JSON input type wants it said. */
function toJson(value: object): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

/** A plan's state as an evaluation reads it (in plain SQL, inside the evaluating transaction): which version is in force, if it is active. */
export interface PlanState {
  plan_id: string;
  status: 'active' | 'archived';
  version_id: string;
}

/** The org's plans (all, or those named), active or archived, oldest first. */
export async function planStates(tx: Transaction, orgId: string, planIds?: readonly string[]): Promise<PlanState[]> {
  const statement = planIds
    ? sql`SELECT id AS plan_id, status, current_version_id AS version_id FROM plans
          WHERE org_id = ${orgId} AND id = ANY(${[...planIds]}::text[]) AND current_version_id IS NOT NULL
          ORDER BY created_at, id`
    : sql`SELECT id AS plan_id, status, current_version_id AS version_id FROM plans
          WHERE org_id = ${orgId} AND current_version_id IS NOT NULL ORDER BY created_at, id`;
  return tx.query<PlanState>(statement);
}

/**
 * Creates the chips a plan's draw lines name, once: they are not chips of the plan file, so no plan
 * version lists them, but every earning row names a chip.
 */
export async function ensureDrawChips(
  tx: Transaction,
  orgId: string,
  planId: string,
  chips: ReadonlyArray<{ id: string; key: string }>,
) {
  for (const chip of chips) {
    await tx.query(
      sql`INSERT INTO chips (id, org_id, plan_id, key) VALUES (${chip.id}, ${orgId}, ${planId}, ${chip.key})
          ON CONFLICT DO NOTHING`,
    );
  }
}

/** A plan as a statement shows it. */
export interface ReportPlan {
  id: string;
  key: string;
  name: string;
  status: 'active' | 'archived';
  period: PeriodKind;
  quota_cents: number | null;
  /** ISO 4217: the plan's currency, else the org's default. */
  currency: string;
  /** `all`, or the assignees of the plan's current version (owner_external_id values or dated assignments). */
  assignees: 'all' | Assignee[];
  /** The current version's draw; null when it has none. */
  draw: PlanDraw | null;
  /** The current version's ramp; null when it has none. */
  ramp: number[] | null;
}

/** The org's plans with their current version's assignees, oldest first, as a statement shows them (plain SQL). */
export async function listForStatements(tx: Transaction, orgId: string): Promise<ReportPlan[]> {
  const rows = await tx.query<Omit<ReportPlan, 'quota_cents'> & { quota_cents: number | bigint | null }>(
    sql`SELECT p.id, p.key, p.name, p.status, p.period, p.quota_cents,
               COALESCE(v.definition -> 'assignees', '"all"'::jsonb) AS assignees,
               v.definition -> 'draw' AS draw, v.definition -> 'ramp' AS ramp,
               COALESCE(v.definition ->> 'currency', o.default_currency) AS currency
        FROM plans p
        JOIN plan_versions v ON v.org_id = p.org_id AND v.id = p.current_version_id
        JOIN orgs o ON o.id = p.org_id
        WHERE p.org_id = ${orgId} ORDER BY p.created_at, p.id`,
  );
  return rows.map((row) => ({
    ...row,
    quota_cents: row.quota_cents === null ? null : Number(row.quota_cents),
    draw: row.draw ?? null,
    ramp: row.ramp ?? null,
  }));
}
