import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { firstCycle, overridesMovedBy, repHierarchyOf } from '../domain/earnings/hierarchy.ts';
import { type CalendarDate, isCalendarDate } from '../domain/periods.ts';
import { MAX_OVERRIDE_DEPTH } from '../domain/plans/types.ts';
import { Refusal } from '../domain/refusal.ts';
import { newId } from '../lib/ids.ts';
import * as audit from '../repositories/audit.ts';
import * as orgs from '../repositories/orgs.ts';
import type { ManagerEntryRecord } from '../repositories/repManagers.ts';
import * as repManagers from '../repositories/repManagers.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import type { EarningsRecompute } from './adminRecompute.ts';
import type { RecomputeSummary } from './earnings/planRecompute.ts';
import type { PlanAcceptances } from './planAcceptances.ts';

/** What asks the reps an admin's change creates to accept their plans. */
type NewRepAcceptances = Pick<PlanAcceptances, 'requestOfNewRepsIn'>;

// The rep hierarchy that manager overrides read: admins set a rep's manager from a day on, and the
// override lines the change moves are recomputed, in locked periods too (the difference is booked in the next
// open period), as one use case shared by the CLI and the admin API.

/** A manager entry as admins see it. */
export interface ManagerEntry {
  rep_external_id: string;
  /** Null: from this day on the rep has no manager. */
  manager_external_id: string | null;
  from: CalendarDate;
  created_at: Date;
  updated_at: Date;
}

export interface SetManagerInput {
  orgId: string;
  repExternalId: string;
  /** Null clears the rep's manager from `from` on. */
  managerExternalId: string | null;
  /** YYYY-MM-DD; today (UTC) when absent. */
  from?: string;
}

export interface SetManagerResult {
  rep_external_id: string;
  manager_external_id: string | null;
  from: CalendarDate;
  /** False when the rep already had this manager from this day: nothing was written or recomputed. */
  changed: boolean;
  /** The rep's entries after the change, oldest first. */
  entries: ManagerEntry[];
  /** The recompute of the managers whose override lines the change can move; null when nothing changed. */
  recompute: RecomputeSummary | null;
}

const MAX_EXTERNAL_ID_LENGTH = 255;
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 60_000 } as const;

function toEntry(record: ManagerEntryRecord): ManagerEntry {
  return {
    rep_external_id: record.rep_external_id,
    manager_external_id: record.manager_external_id,
    from: record.from,
    created_at: new Date(record.created_at),
    updated_at: new Date(record.updated_at),
  };
}

function checkExternalId(value: string, what: string): void {
  if (value.trim() === '' || value.length > MAX_EXTERNAL_ID_LENGTH) {
    throw new Refusal('invalid_body', `${what}: must be a rep's external id, not blank, at most 255 characters`);
  }
}

export class RepHierarchyAdmin {
  readonly #db: Transactor;
  readonly #recompute: EarningsRecompute;
  readonly #pool: Transactor;

  readonly #statements: Transaction;

  readonly #acceptances: NewRepAcceptances | undefined;

  /** With `acceptances`, a rep this creates is asked to accept their plans (docs/plan-acceptance.md). */
  constructor(db: Transactor, recompute: EarningsRecompute, pool: Transactor, acceptances?: NewRepAcceptances) {
    this.#db = db;
    this.#recompute = recompute;
    this.#pool = pool;
    this.#statements = db.statements;
    this.#acceptances = acceptances;
  }

  /** Every entry of the org (or of one rep), by rep and day. */
  async list(orgId: string, repExternalId?: string): Promise<ManagerEntry[]> {
    await this.#requireOrg(orgId);
    const entries = await repManagers.entriesOfOrg(this.#pool.statements, orgId);
    return entries
      .filter((entry) => repExternalId === undefined || entry.rep_external_id === repExternalId)
      .map(toEntry);
  }

  /**
   * From `from` on, the rep's manager is the given one (or nobody). Reps are created on first sight, as deal
   * owners are. Refused, with nothing changed: a rep as their own manager, a change that would make anyone their
   * own manager up the chain on any day, a day that does not exist. Then the managers whose override lines the
   * change can move are recomputed, each under its evaluation lock, after every deal event in progress.
   */
  async setManager(input: SetManagerInput, actor: AdminActor = CLI_ACTOR): Promise<SetManagerResult> {
    const { orgId, repExternalId, managerExternalId } = input;
    checkExternalId(repExternalId, 'rep');
    if (managerExternalId !== null) checkExternalId(managerExternalId, 'manager');
    const from = input.from ?? new Date().toISOString().slice(0, 10);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !isCalendarDate(from)) {
      throw new Refusal('invalid_body', `from: ${from} is not a day that exists (YYYY-MM-DD)`);
    }
    if (managerExternalId === repExternalId) {
      throw new Refusal('invalid_body', `${repExternalId} cannot be their own manager`);
    }
    await this.#requireOrg(orgId);

    const change = await this.#db.run(async (tx) => {
      await repManagers.lockHierarchy(tx, orgId);
      const before = await repManagers.entriesOfOrg(tx, orgId);
      const current = before.find((entry) => entry.rep_external_id === repExternalId && entry.from === from);
      if (current && current.manager_external_id === managerExternalId) return null;
      const entries = before
        .filter((entry) => !(entry.rep_external_id === repExternalId && entry.from === from))
        .map(({ rep_external_id, manager_external_id, from: day }) => ({
          rep_external_id,
          manager_external_id,
          from: day,
        }));
      entries.push({ rep_external_id: repExternalId, manager_external_id: managerExternalId, from });
      const cycle = firstCycle(repHierarchyOf(entries));
      if (cycle) {
        throw new Refusal(
          'invalid_body',
          `this would make ${cycle.loop[0]} their own manager from ${cycle.day} (${cycle.loop.join(' → ')}); nothing changed`,
        );
      }
      const rep = await users.createOrFindRep(tx, orgId, repExternalId);
      const manager = managerExternalId === null ? null : await users.createOrFindRep(tx, orgId, managerExternalId);
      const repUserId = rep.id;
      const managerUserId = manager?.id ?? null;
      await repManagers.setFrom(tx, orgId, { id: newId('rmgr'), repUserId, managerUserId, from });
      await audit.insertMany(tx, [
        adminAuditEntry(
          orgId,
          'rep.manager_set',
          {
            rep_external_id: repExternalId,
            manager_external_id: managerExternalId,
            from,
            previous_manager_external_id: current?.manager_external_id ?? null,
          },
          actor,
        ),
      ]);
      // A rep (or manager) seen here first is asked to accept their plans, as a deal event's new rep is.
      const created = [rep, ...(manager ? [manager] : [])].filter((user) => user.created).map((user) => user.id);
      await this.#acceptances?.requestOfNewRepsIn(tx, orgId, created, actor);
      return { before, after: await repManagers.entriesOfOrg(tx, orgId) };
    }, TRANSACTION_OPTIONS);

    const rep = (await this.list(orgId, repExternalId)).sort((a, b) => (a.from < b.from ? -1 : 1));
    if (!change) {
      return {
        rep_external_id: repExternalId,
        manager_external_id: managerExternalId,
        from,
        changed: false,
        entries: rep,
        recompute: null,
      };
    }
    const hierarchyOf = (records: readonly ManagerEntryRecord[]) =>
      repHierarchyOf(
        records.map((record) => ({
          rep_external_id: record.rep_external_id,
          manager_external_id: record.manager_external_id,
          from: record.from,
        })),
      );
    const moved = overridesMovedBy(
      hierarchyOf(change.before),
      hierarchyOf(change.after),
      repExternalId,
      MAX_OVERRIDE_DEPTH,
    );
    const userIds = new Map<string, string>();
    for (const record of [...change.before, ...change.after]) {
      userIds.set(record.rep_external_id, record.rep_user_id);
      if (record.manager_external_id !== null && record.manager_user_id !== null) {
        userIds.set(record.manager_external_id, record.manager_user_id);
      }
    }
    const summary = await this.#recompute.run({
      orgId,
      hierarchyChange: { userIds: [...moved].flatMap((externalId) => userIds.get(externalId) ?? []) },
    });
    return {
      rep_external_id: repExternalId,
      manager_external_id: managerExternalId,
      from,
      changed: true,
      entries: rep,
      recompute: summary,
    };
  }

  async #requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }
}
