import { Prisma } from '../../generated/prisma/client.ts';
import type { ChipDefinition, PlanDefinition } from '../domain/plans/types.ts';
import { bumpConfigVersion } from './orgs.ts';
import { prismaOf, type Transaction } from './transaction.ts';

// The admin's writes of plans, through Prisma: the lock that serialises applies of a plan key, a new plan or a
// further version with its chips, archive and reactivate. Each bumps the org's configuration version in its
// transaction (the plans in force are part of what a deal event reads of the org).

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

// Serialises applies of one plan key in an org (also the very first, when there is no row to lock yet).
const PLAN_KEY_LOCK_CLASS = 0x706c616e; // "plan"

/** Holds the org's lock on this plan key until the transaction ends. */
export async function lockKey(tx: Transaction, orgId: string, key: string): Promise<void> {
  await prismaOf(tx)
    .$executeRaw`SELECT pg_advisory_xact_lock(${PLAN_KEY_LOCK_CLASS}::int, hashtext(${`${orgId}/${key}`}))`;
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
  await bumpConfigVersion(tx, version.orgId);
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
  await bumpConfigVersion(tx, version.orgId);
}

/** Makes an archived plan active again, on the version it had. */
export async function reactivate(tx: Transaction, orgId: string, planId: string, at: Date): Promise<void> {
  const { count } = await prismaOf(tx).plan.updateMany({
    where: { org_id: orgId, id: planId },
    data: { status: 'active', archived_at: null, updated_at: at },
  });
  if (count > 0) await bumpConfigVersion(tx, orgId);
}

/** Archives an active plan; `changed` is false when it was archived already (the first time stays). */
export async function archive(tx: Transaction, orgId: string, planId: string, at: Date): Promise<boolean> {
  const { count } = await prismaOf(tx).plan.updateMany({
    where: { org_id: orgId, id: planId, status: 'active' },
    data: { status: 'archived', archived_at: at, updated_at: at },
  });
  if (count > 0) await bumpConfigVersion(tx, orgId);
  return count > 0;
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
