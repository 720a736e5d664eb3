import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { DEFAULT_CURRENCY } from '../domain/currencies.ts';
import { chipDefinitionDigest, planContentDigest } from '../domain/plans/digests.ts';
import { describeProblem, type PlanFileFormat, readPlanFile } from '../domain/plans/planFile.ts';
import type { PlanDefinition } from '../domain/plans/types.ts';
import { Refusal } from '../domain/refusal.ts';
import type { Viewer } from '../domain/viewer.ts';
import { newId } from '../lib/ids.ts';
import * as audit from '../repositories/audit.ts';
import * as orgs from '../repositories/orgs.ts';
import * as planSnapshots from '../repositories/planSnapshots.ts';
import type { PlanRecord, PlanVersionSnapshot } from '../repositories/plans.ts';
import * as plans from '../repositories/plans.ts';
import type { NewPlanVersion } from '../repositories/planWrites.ts';
import * as planWrites from '../repositories/planWrites.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import type { PlanChangeListener, PlanVersionApplied } from './planChanges.ts';

export interface ApplyPlanInput {
  orgId: string;
  /** The plan file's text. */
  text: string;
  format?: PlanFileFormat;
  /** The file's name, for messages. */
  source?: string;
}

export interface ApplyPlanResult {
  plan_id: string;
  version_id: string;
  version: number;
  /** False when the file matched the plan's current version and the plan was active: nothing was written. */
  changed: boolean;
  /** The plan was archived and is active again. */
  reactivated: boolean;
  /** Per chip of the version in force: its id, key, version and what this apply did to it. */
  chips: Array<{ id: string; key: string; version: string; change: 'added' | 'changed' | 'unchanged' }>;
  /** Chip keys of the previous version that the file no longer has. */
  removed_chips: string[];
}

export interface ArchivePlanResult {
  plan: PlanRecord;
  /** False when the plan was archived already. */
  changed: boolean;
}

const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 60_000 } as const;

/**
 * Plans as code: apply a plan file, list and archive plans. Each change is one transaction with its audit entry
 * and the plan-change listener (the earnings recompute), so a plan never changes without both.
 */
export class PlanAdmin {
  private readonly db: Transactor;

  readonly #statements: Transaction;

  constructor(db: Transactor) {
    this.db = db;
    this.#statements = db.statements;
  }

  /**
   * Validates the file (every problem by path; nothing applied when there is any), then: a new plan; a new
   * version when the content differs from the current one; nothing when it is the same. Applying to an archived
   * plan makes it active again, with a new version only when the content differs.
   */
  async apply(
    input: ApplyPlanInput,
    listener: PlanChangeListener,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<ApplyPlanResult> {
    const read = readPlanFile(input.text, input.format === undefined ? {} : { format: input.format });
    if (!read.ok) {
      const count = read.problems.length;
      // A refused file is an admin action too: the log shows who tried what, though nothing changed.
      if (await orgs.find(this.#statements, input.orgId)) {
        await audit.insertMany(this.#statements, [
          adminAuditEntry(input.orgId, 'plan.apply_refused', { source: input.source ?? null, problems: count }, actor),
        ]);
      }
      throw new Refusal(
        'invalid_plan_file',
        `${input.source ?? 'the plan file'} has ${count} problem${count === 1 ? '' : 's'}; nothing was applied`,
        { details: { problems: read.problems }, lines: read.problems.map(describeProblem) },
      );
    }
    await this.requireOrg(input.orgId);
    return this.db.run((tx) => this.applyDefinition(tx, input.orgId, read.plan, actor, listener), TRANSACTION_OPTIONS);
  }

  async list(orgId: string) {
    await this.requireOrg(orgId);
    return plans.listWithVersionNumbers(this.#statements, orgId);
  }

  /** Archived plans are no longer evaluated and leave the API's plan list; archiving twice changes nothing. */
  async archive(
    orgId: string,
    planId: string,
    listener: PlanChangeListener,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<ArchivePlanResult> {
    await this.requireOrg(orgId);
    return this.db.run(async (tx) => {
      const plan = await plans.lock(tx, orgId, planId);
      if (!plan) throw new Refusal('not_found', `org ${orgId} has no plan ${planId}`);
      const at = new Date();
      const changed = await planWrites.archive(tx, orgId, planId, at);
      if (changed) {
        await audit.insertMany(tx, [
          adminAuditEntry(
            orgId,
            'plan.archived',
            { plan_id: planId, key: plan.key, version_id: plan.current_version_id },
            actor,
          ),
        ]);
        await listener.onPlanArchived(tx, { orgId, planId, versionId: plan.current_version_id });
      }
      return { plan: (await plans.find(tx, orgId, planId)) as PlanRecord, changed };
    }, TRANSACTION_OPTIONS);
  }

  /**
   * A plan's rows are in its currency, and a line's rows must stay in one currency for the ledger to add them up:
   * a plan keeps the currency it was first applied with (a new plan, with another key, can pay in another).
   */
  private async requireSameCurrency(orgId: string, before: PlanDefinition, after: PlanDefinition): Promise<void> {
    const fallback = (await orgs.defaultCurrency(this.#statements, orgId)) ?? DEFAULT_CURRENCY;
    const was = before.currency ?? fallback;
    const now = after.currency ?? fallback;
    if (was === now) return;
    throw new Refusal(
      'invalid_plan_file',
      `plan ${after.key} pays in ${was}; a plan's currency cannot change (apply a plan with a new key to pay in ${now})`,
      {
        details: { problems: [{ path: 'currency', message: `must stay ${was}` }] },
        lines: [`currency: must stay ${was}`],
      },
    );
  }

  private async applyDefinition(
    tx: Transaction,
    orgId: string,
    definition: PlanDefinition,
    actor: AdminActor,
    listener: PlanChangeListener,
  ): Promise<ApplyPlanResult> {
    await planWrites.lockKey(tx, orgId, definition.key);
    const existing = await plans.findByKey(tx, orgId, definition.key);
    const contentDigest = planContentDigest(definition);
    const at = new Date();

    if (existing && (await plans.currentContentDigest(tx, existing)) === contentDigest) {
      const snapshot = (await planSnapshots.snapshot(tx, orgId, existing.id)) as PlanVersionSnapshot;
      const unchanged = snapshot.chips.map((chip) => ({
        id: chip.id,
        key: chip.definition.key,
        version: chip.version,
        change: 'unchanged' as const,
      }));
      const result = {
        plan_id: existing.id,
        version_id: existing.current_version_id,
        version: snapshot.version_number,
        chips: unchanged,
        removed_chips: [],
      };
      if (existing.status === 'active') return { ...result, changed: false, reactivated: false };
      await planWrites.reactivate(tx, orgId, existing.id, at);
      await this.recordApplied(
        tx,
        {
          orgId,
          planId: existing.id,
          versionId: existing.current_version_id,
          versionNumber: snapshot.version_number,
          previousVersionId: existing.current_version_id,
          newVersion: false,
          reactivated: true,
          chips: { added: [], changed: [], unchanged: unchanged.map((chip) => chip.id), removed: [] },
        },
        actor,
        listener,
      );
      return { ...result, changed: true, reactivated: true };
    }

    const planId = existing?.id ?? newId('plan');
    const latest = existing ? await plans.latestChips(tx, orgId, planId) : new Map();
    const previous = existing ? await planSnapshots.snapshot(tx, orgId, planId) : null;
    if (previous) await this.requireSameCurrency(orgId, previous.definition, definition);
    const version: NewPlanVersion = {
      orgId,
      planId,
      versionId: newId('pv'),
      number: existing ? (await plans.lastVersionNumber(tx, orgId, planId)) + 1 : 1,
      definition,
      contentDigest,
      newChips: [],
      chips: [],
      at,
    };
    const chips: ApplyPlanResult['chips'] = [];
    for (const chip of definition.chips) {
      const digest = chipDefinitionDigest(definition, chip);
      const before = latest.get(chip.key);
      const id = before?.id ?? newId('chip');
      if (!before) version.newChips.push({ id, key: chip.key });
      const chipVersion = !before ? 1 : before.definition_digest === digest ? before.version : before.version + 1;
      version.chips.push({ id, version: chipVersion, definition: chip, definitionDigest: digest });
      const inPrevious = previous?.chips.some((old) => old.id === id) ?? false;
      const change = !inPrevious ? 'added' : before?.version === chipVersion ? 'unchanged' : 'changed';
      chips.push({ id, key: chip.key, version: String(chipVersion), change });
    }
    const removed = (previous?.chips ?? []).filter((old) => !chips.some((chip) => chip.id === old.id));

    if (existing) await planWrites.addVersion(tx, version);
    else await planWrites.createPlan(tx, version);
    const reactivated = existing?.status === 'archived';
    await this.recordApplied(
      tx,
      {
        orgId,
        planId,
        versionId: version.versionId,
        versionNumber: version.number,
        previousVersionId: existing?.current_version_id ?? null,
        newVersion: true,
        reactivated,
        chips: {
          added: chips.filter((chip) => chip.change === 'added').map((chip) => chip.id),
          changed: chips.filter((chip) => chip.change === 'changed').map((chip) => chip.id),
          unchanged: chips.filter((chip) => chip.change === 'unchanged').map((chip) => chip.id),
          removed: removed.map((chip) => chip.id),
        },
      },
      actor,
      listener,
    );
    return {
      plan_id: planId,
      version_id: version.versionId,
      version: version.number,
      changed: true,
      reactivated,
      chips,
      removed_chips: removed.map((chip) => chip.definition.key),
    };
  }

  private async recordApplied(
    tx: Transaction,
    change: PlanVersionApplied,
    actor: AdminActor,
    listener: PlanChangeListener,
  ): Promise<void> {
    await audit.insertMany(tx, [
      adminAuditEntry(
        change.orgId,
        'plan.applied',
        {
          plan_id: change.planId,
          version_id: change.versionId,
          version: change.versionNumber,
          previous_version_id: change.previousVersionId,
          new_version: change.newVersion,
          reactivated: change.reactivated,
          chips: change.chips,
        },
        actor,
      ),
    ]);
    await listener.onPlanVersionApplied(tx, change);
  }

  private async requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }
}

/** What the API reads: active plans, and one plan (active or archived) with its current chips. */
export class PlanReader {
  readonly #statements: Transaction;

  constructor(db: Transactor) {
    this.#statements = db.statements;
  }

  /** The active plans; for a rep principal, those the reps they may see are or were assigned to. */
  async listActive(viewer: Viewer): Promise<PlanRecord[]> {
    const active = await plans.listActive(this.#statements, viewer.orgId);
    if (viewer.kind === 'org') return active;
    const visible = await plans.idsAssignedToAny(this.#statements, viewer.orgId, viewer.visibleUserIds);
    return active.filter((plan) => visible.has(plan.id));
  }

  /**
   * The plan with its current version's chips in evaluation order; null when the org has no such plan, or a rep
   * principal may not see it.
   */
  async withCurrentChips(viewer: Viewer, planId: string): Promise<PlanVersionSnapshot | null> {
    if (viewer.kind === 'rep') {
      const visible = await plans.idsAssignedToAny(this.#statements, viewer.orgId, viewer.visibleUserIds);
      if (!visible.has(planId)) return null;
    }
    return planSnapshots.snapshot(this.#statements, viewer.orgId, planId);
  }
}

export interface PlanVersionHistory {
  id: string;
  number: number;
  created_at: Date;
  definition: PlanDefinition;
  chips: PlanVersionSnapshot['chips'];
  /** Chip keys by what this version did to them against the version before (all added for the first). */
  changes: { added: string[]; changed: string[]; removed: string[]; unchanged: string[] };
}

/** A plan's versions, newest first, each with what it changed against the one before. */
export class PlanHistory {
  readonly #statements: Transaction;

  constructor(db: Transactor) {
    this.#statements = db.statements;
  }

  /** The versions, and the currency the plan pays in (its file's, else the org's): a plan's currency never changes. */
  async of(
    orgId: string,
    planId: string,
  ): Promise<{ plan: PlanRecord; currency: string; versions: PlanVersionHistory[] } | null> {
    const list = await plans.listVersions(this.#statements, orgId, planId);
    if (list.length === 0) return null;
    const snapshots = await Promise.all(
      list.map((version) => planSnapshots.snapshot(this.#statements, orgId, planId, version.id)),
    );
    const versions = list.map((version, index) => {
      const snapshot = snapshots[index] as PlanVersionSnapshot;
      const before = snapshots[index + 1] ?? null;
      return {
        id: version.id,
        number: version.number,
        created_at: version.created_at,
        definition: snapshot.definition,
        chips: snapshot.chips,
        changes: chipChanges(before, snapshot),
      };
    });
    const current = snapshots[0] as PlanVersionSnapshot;
    const currency =
      current.definition.currency ?? (await orgs.defaultCurrency(this.#statements, orgId)) ?? DEFAULT_CURRENCY;
    return { plan: current.plan, currency, versions };
  }
}

function chipChanges(before: PlanVersionSnapshot | null, after: PlanVersionSnapshot): PlanVersionHistory['changes'] {
  const previous = new Map((before?.chips ?? []).map((chip) => [chip.id, chip]));
  const changes: PlanVersionHistory['changes'] = { added: [], changed: [], removed: [], unchanged: [] };
  for (const chip of after.chips) {
    const old = previous.get(chip.id);
    const key = chip.definition.key;
    if (!old) changes.added.push(key);
    else if (old.version !== chip.version) changes.changed.push(key);
    else changes.unchanged.push(key);
  }
  const kept = new Set(after.chips.map((chip) => chip.id));
  for (const chip of before?.chips ?? []) if (!kept.has(chip.id)) changes.removed.push(chip.definition.key);
  return changes;
}
