import type { Prisma } from '../../generated/prisma/client.ts';
import { normaliseChip } from '../domain/plans/normalise.ts';
import type { ChipDefinition, Condition, PlanDefinition } from '../domain/plans/types.ts';
import { find, PLAN_FIELDS, type PlanRecord, type PlanRow, type PlanVersionSnapshot, toPlanRecord } from './plans.ts';
import { named, prismaOf, type Transaction } from './transaction.ts';

// A plan version as an evaluation runs it (its normalised definition and its chips in order): read in plain SQL
// inside an evaluating transaction (versionSnapshot), or through Prisma for the admin (snapshot, activeSnapshots).

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
    ...(stored.plan_year ? { plan_year: { starts_month: stored.plan_year.starts_month } } : {}),
    assignees: stored.assignees,
    ...(Array.isArray(stored.ramp) ? { ramp: [...stored.ramp] } : {}),
    ...(typeof stored.leaver_rule === 'string' ? { leaver_rule: stored.leaver_rule } : {}),
    ...(typeof stored.cap_cents === 'number' ? { cap_cents: stored.cap_cents } : {}),
    ...(typeof stored.currency === 'string' ? { currency: stored.currency } : {}),
    ...(stored.draw
      ? {
          draw: {
            amount_cents: stored.draw.amount_cents,
            recoverable: stored.draw.recoverable,
            ...(stored.draw.paid === 'in_advance' ? { paid: 'in_advance' as const } : {}),
          },
        }
      : {}),
    chips: chips.map((chip) => chip.definition),
  };
  return { plan, version_id: version.id, version_number: version.number, definition, chips };
}

// The chips' subquery names the org's parameter, not the version's org_id: Citus prunes a table by its own
// conditions, and a correlation to the outer row is none (docs/scaling.md#citus-rules-checked-without-citus).
const VERSION_SNAPSHOT = `
  SELECT p.id, p.org_id, p.key, p.name, p.status, p.period, p.quota_cents, p.current_version_id, p.created_at,
         p.updated_at, p.archived_at, v.id AS version_id, v.number AS version_number, v.definition,
         COALESCE((SELECT json_agg(json_build_object('chip_id', vc.chip_id, 'key', c.key, 'version', vc.version,
                                                     'name', vc.name, 'kind', vc.kind, 'when', vc."when",
                                                     'params', vc.params) ORDER BY vc.position)
                   FROM plan_version_chips vc JOIN chips c ON c.org_id = vc.org_id AND c.id = vc.chip_id
                   WHERE vc.org_id = $1 AND vc.plan_version_id = v.id), '[]'::json) AS chips
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
