import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { decimalsOf } from '../domain/currencies.ts';
import { amountInMinorUnits, type QuotaFileProblem, quotaStartProblem } from '../domain/imports/quotaRows.ts';
import { type CalendarDate, isCalendarDate } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import * as audit from '../repositories/audit.ts';
import * as ledgerPlans from '../repositories/ledgerPlans.ts';
import * as orgs from '../repositories/orgs.ts';
import * as plans from '../repositories/plans.ts';
import * as repQuotas from '../repositories/repQuotas.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import type { EarningsRecompute } from './adminRecompute.ts';
import type { QuotaChange, RecomputeSummary } from './earnings/planRecompute.ts';
import type { PlanAcceptances } from './planAcceptances.ts';
import { fileRefusal, type NameWrite, type QuotaWrite, readQuotaFile, type StartWrite } from './quotaFile.ts';
import { nameByAdmin } from './repNames.ts';

/** What asks the reps an admin's change creates to accept their plans. */
type NewRepAcceptances = Pick<PlanAcceptances, 'requestOfNewRepsIn'>;

// Reps' quota tables and start dates (docs/quotas.md), as one use case shared by the CLI, the admin API and the
// console: set one entry, set a start date, or upload a file of them, which applies whole or not at all. What changed
// is audited and recomputed: the lines that read the quota, from the first period the change can move, in locked
// periods too (the difference is booked in the next open period).

/** A quota entry as admins see it. */
export interface QuotaEntryView {
  rep_id: string;
  rep_external_id: string;
  plan_id: string;
  plan_key: string;
  /** The plan's currency, which `quota_cents` is in. */
  currency: string;
  from: CalendarDate;
  /** Null: the plan's own quota from `from` on. */
  quota_cents: number | null;
  updated_at: Date;
}

export interface SetQuotaInput {
  orgId: string;
  repExternalId: string;
  planKey: string;
  /** YYYY-MM-DD, the first day of one of the plan's periods. */
  from: string;
  /** Minor units of the plan's currency; null: the plan's own quota again from `from` on. */
  quotaCents: number | null;
  /** Instead of `quotaCents`: the quota in major units of the plan's currency ("120000.00"), converted once it is known. */
  quota?: string;
}

export interface SetStartDateInput {
  orgId: string;
  repExternalId: string;
  /** YYYY-MM-DD; null clears it. */
  startDate: string | null;
}

/** What a change did: how many entries and start dates it changed and what the recompute wrote. */
export interface QuotaChangeResult {
  /** Rows of the file (or 1). */
  rows: number;
  quotas_changed: number;
  start_dates_changed: number;
  /** Reps' display names the file set (docs/reps-and-payroll.md#display-names); they recompute nothing. */
  display_names_changed: number;
  /** False when everything was already so: nothing was written or recomputed. */
  changed: boolean;
  recompute: RecomputeSummary | null;
}

const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 60_000 } as const;
const MAX_EXTERNAL_ID_LENGTH = 255;

const RECOMPUTE_REASON = {
  code: 'amount_changed',
  explanation: "A rep's quota or start date changed, and the lines that read the quota were evaluated again.",
} as const;

export class QuotaAdmin {
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

  /** The org's entries, by rep, plan and day; only a rep's (external id) or a plan's (key) when given. */
  async list(orgId: string, filter: { repExternalId?: string; planKey?: string } = {}): Promise<QuotaEntryView[]> {
    await this.#requireOrg(orgId);
    const reader = this.#statements;
    const rep =
      filter.repExternalId === undefined
        ? undefined
        : await users.findRepByExternalId(reader, orgId, filter.repExternalId);
    const plan = filter.planKey === undefined ? undefined : await plans.findByKey(reader, orgId, filter.planKey);
    if ((filter.repExternalId !== undefined && !rep) || (filter.planKey !== undefined && !plan)) return [];
    const entries = await repQuotas.entriesOfOrg(reader, orgId, {
      ...(rep ? { userId: rep.id } : {}),
      ...(plan ? { planId: plan.id } : {}),
    });
    return entries.map((entry) => ({
      rep_id: entry.user_id,
      rep_external_id: entry.rep_external_id,
      plan_id: entry.plan_id,
      plan_key: entry.plan_key,
      currency: entry.currency,
      from: entry.from,
      quota_cents: entry.quota_cents,
      updated_at: new Date(entry.updated_at),
    }));
  }

  /** The rep's start date; null when not set or the rep is unknown. */
  async startDate(orgId: string, repExternalId: string): Promise<CalendarDate | null> {
    const reader = this.#pool.statements;
    const rep = await users.findRepByExternalId(reader, orgId, repExternalId);
    if (!rep) return null;
    return (await repQuotas.startDates(reader, orgId, [rep.id])).get(rep.id) ?? null;
  }

  /** From `from` on, the rep's quota under the plan is `quotaCents` (null: the plan's). Reps are created on first sight. */
  async set(input: SetQuotaInput, actor: AdminActor = CLI_ACTOR): Promise<QuotaChangeResult> {
    checkExternalId(input.repExternalId, 'rep_external_id');
    if (input.quota !== undefined && input.quotaCents !== null) {
      throw new Refusal('invalid_body', 'quota: send quota (major units) or quota_cents (minor units), not both');
    }
    if (input.quota !== undefined && !/^\d+(\.\d+)?$/.test(input.quota)) {
      throw new Refusal('invalid_body', `quota: ${JSON.stringify(input.quota)} is not an amount such as 120000.00`);
    }
    if (input.quotaCents !== null && (!Number.isSafeInteger(input.quotaCents) || input.quotaCents < 1)) {
      throw new Refusal('invalid_body', 'quota_cents: must be a whole number of minor units, at least 1, or null');
    }
    if (!/^\d{4}-\d{2}-\d{2}$/.test(input.from) || !isCalendarDate(input.from)) {
      throw new Refusal('invalid_body', `from: ${input.from} is not a day that exists (YYYY-MM-DD)`);
    }
    const write: QuotaWrite = {
      line: 0,
      rep_external_id: input.repExternalId,
      plan_key: input.planKey,
      from: input.from,
      quota_cents: input.quotaCents,
      ...(input.quota === undefined ? {} : { amount: input.quota }),
    };
    return this.#apply(input.orgId, 1, { quotas: [write], starts: [], names: [] }, actor, 'single');
  }

  /** From now on the rep started on `startDate` (null: not ramped). Reps are created on first sight. */
  async setStartDate(input: SetStartDateInput, actor: AdminActor = CLI_ACTOR): Promise<QuotaChangeResult> {
    checkExternalId(input.repExternalId, 'rep_external_id');
    if (
      input.startDate !== null &&
      (!/^\d{4}-\d{2}-\d{2}$/.test(input.startDate) || !isCalendarDate(input.startDate))
    ) {
      throw new Refusal('invalid_body', `start_date: ${input.startDate} is not a day that exists (YYYY-MM-DD)`);
    }
    const write: StartWrite = { line: 0, rep_external_id: input.repExternalId, start_date: input.startDate };
    return this.#apply(input.orgId, 1, { quotas: [], starts: [write], names: [] }, actor, 'single');
  }

  /**
   * A quota file (CSV, docs/quotas.md): every row is checked first, and one bad row refuses the whole file with every
   * bad row named by line (`invalid_body`); nothing is applied. Rows already so change nothing: the same file again
   * is a no-op.
   */
  async importFile(
    input: { orgId: string; text: string | AsyncIterable<string> },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<QuotaChangeResult> {
    await this.#requireOrg(input.orgId);
    const file = await readQuotaFile(input.text);
    return this.#apply(input.orgId, file.rows, file.writes, actor, 'file', file.problems);
  }

  async #apply(
    orgId: string,
    rowCount: number,
    writes: { quotas: QuotaWrite[]; starts: StartWrite[]; names: NameWrite[] },
    actor: AdminActor,
    via: 'single' | 'file',
    fileProblems: readonly QuotaFileProblem[] = [],
  ): Promise<QuotaChangeResult> {
    const { quotas: quotaWrites, starts: startWrites, names: nameWrites } = writes;
    await this.#requireOrg(orgId);
    const change = await this.#db.run(async (tx) => {
      await repQuotas.lockQuotas(tx, orgId);
      const orgPlans = new Map((await ledgerPlans.listForStatements(tx, orgId)).map((plan) => [plan.key, plan]));
      // The rows the file's own checks refused, then those the org's plans and the other rows refuse: all in one answer.
      const problems: QuotaFileProblem[] = [...fileProblems];
      const where = (line: number) => (via === 'file' ? line : 0);
      const seenQuota = new Map<string, number>();
      const resolved: Array<QuotaWrite & { plan_id: string }> = [];
      for (const write of quotaWrites) {
        const plan = orgPlans.get(write.plan_key);
        if (!plan) {
          if (via === 'single') throw new Refusal('not_found', `no plan ${write.plan_key}`);
          problems.push({ line: write.line, message: `plan_key: the org has no plan ${write.plan_key}` });
          continue;
        }
        const startProblem = quotaStartProblem(write.from, plan.period);
        if (startProblem) {
          problems.push({ line: where(write.line), message: startProblem });
          continue;
        }
        let cents = write.quota_cents;
        if (write.amount !== undefined) {
          const converted = amountInMinorUnits(write.amount, decimalsOf(plan.currency));
          if (typeof converted === 'string') {
            problems.push({ line: write.line, message: converted });
            continue;
          }
          cents = converted;
        }
        const key = `${write.rep_external_id}\u0000${plan.id}\u0000${write.from}`;
        const earlier = seenQuota.get(key);
        if (earlier !== undefined) {
          problems.push({ line: write.line, message: `repeats line ${earlier}: the same rep, plan and from` });
          continue;
        }
        seenQuota.set(key, write.line);
        resolved.push({ ...write, quota_cents: cents, plan_id: plan.id });
      }
      const seenStart = new Map<string, StartWrite>();
      for (const write of startWrites) {
        const earlier = seenStart.get(write.rep_external_id);
        if (earlier && earlier.start_date !== write.start_date) {
          problems.push({ line: write.line, message: `start_date: differs from line ${earlier.line} for this rep` });
          continue;
        }
        seenStart.set(write.rep_external_id, write);
      }
      const seenName = new Map<string, NameWrite>();
      for (const write of nameWrites) {
        const earlier = seenName.get(write.rep_external_id);
        if (earlier && earlier.display_name !== write.display_name) {
          problems.push({
            line: write.line,
            message: `display_name: differs from line ${earlier.line} for this rep`,
          });
          continue;
        }
        seenName.set(write.rep_external_id, write);
      }
      if (problems.length > 0) {
        if (via === 'single') throw new Refusal('invalid_body', problems.map((problem) => problem.message).join('; '));
        throw fileRefusal(problems);
      }
      const userIds = new Map<string, string>();
      const created: string[] = [];
      const named = [...resolved, ...seenStart.values(), ...seenName.values()];
      for (const externalId of new Set(named.map((write) => write.rep_external_id))) {
        const rep = await users.createOrFindRep(tx, orgId, externalId);
        userIds.set(externalId, rep.id);
        if (rep.created) created.push(rep.id);
      }
      const userOf = (externalId: string) => userIds.get(externalId) ?? '';
      const existing = new Map(
        (await repQuotas.entriesOfOrg(tx, orgId)).map((entry) => [
          `${entry.user_id}\u0000${entry.plan_id}\u0000${entry.from}`,
          entry.quota_cents,
        ]),
      );
      const starts = await repQuotas.startDates(tx, orgId, [...userIds.values()]);
      const entries = [];
      const changed = { userIds: new Set<string>(), planIds: new Set<string>(), from: [] as string[], all: false };
      let quotasChanged = 0;
      for (const write of resolved) {
        const userId = userOf(write.rep_external_id);
        const key = `${userId}\u0000${write.plan_id}\u0000${write.from}`;
        if (existing.has(key) && existing.get(key) === write.quota_cents) continue;
        await repQuotas.setFrom(tx, orgId, {
          userId,
          planId: write.plan_id,
          from: write.from,
          quotaCents: write.quota_cents,
        });
        quotasChanged += 1;
        changed.userIds.add(userId);
        changed.planIds.add(write.plan_id);
        changed.from.push(write.from);
        entries.push(
          adminAuditEntry(
            orgId,
            'quota.set',
            {
              rep_external_id: write.rep_external_id,
              plan_key: write.plan_key,
              from: write.from,
              quota_cents: write.quota_cents,
              previous_quota_cents: existing.get(key) ?? null,
              ...(via === 'file' ? { file_line: write.line } : {}),
            },
            actor,
          ),
        );
      }
      let startsChanged = 0;
      for (const write of seenStart.values()) {
        const userId = userOf(write.rep_external_id);
        const before = starts.get(userId) ?? null;
        if (before === write.start_date) continue;
        await repQuotas.setStartDate(tx, orgId, userId, write.start_date);
        startsChanged += 1;
        changed.userIds.add(userId);
        changed.all = true;
        // A ramp counts months from the start: periods from the earlier of the two starts' months on can move.
        const days = [before, write.start_date].filter((day): day is string => day !== null).sort();
        if (days[0]) changed.from.push(`${days[0].slice(0, 7)}-01`);
        entries.push(
          adminAuditEntry(
            orgId,
            'rep.start_date_set',
            {
              rep_external_id: write.rep_external_id,
              start_date: write.start_date,
              previous_start_date: before,
              ...(via === 'file' ? { file_line: write.line } : {}),
            },
            actor,
          ),
        );
      }
      if (entries.length > 0) await audit.insertMany(tx, entries);
      let namesChanged = 0;
      for (const write of seenName.values()) {
        const details = via === 'file' ? { file_line: write.line } : {};
        const result = await nameByAdmin(tx, orgId, userOf(write.rep_external_id), write.display_name, actor, details);
        if (result?.changed) namesChanged += 1;
      }
      // The reps this created are asked to accept their plans, each shown the quota table and start date just set.
      await this.#acceptances?.requestOfNewRepsIn(tx, orgId, created, actor);
      return { quotasChanged, startsChanged, namesChanged, changed };
    }, TRANSACTION_OPTIONS);
    const { quotasChanged, startsChanged, namesChanged, changed } = change;
    const from = changed.from.sort()[0];
    if (changed.userIds.size === 0 || from === undefined) {
      return {
        rows: rowCount,
        quotas_changed: quotasChanged,
        start_dates_changed: startsChanged,
        display_names_changed: namesChanged,
        changed: namesChanged > 0,
        recompute: null,
      };
    }
    const quotaChange: QuotaChange = {
      userIds: [...changed.userIds].sort(),
      ...(changed.all ? {} : { planIds: [...changed.planIds].sort() }),
      from,
    };
    const recompute = await this.#recompute.run({ orgId, reason: RECOMPUTE_REASON, quotaChange });
    return {
      rows: rowCount,
      quotas_changed: quotasChanged,
      start_dates_changed: startsChanged,
      display_names_changed: namesChanged,
      changed: true,
      recompute,
    };
  }

  async #requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }
}

function checkExternalId(value: string, what: string): void {
  if (value.trim() === '' || value.length > MAX_EXTERNAL_ID_LENGTH) {
    throw new Refusal('invalid_body', `${what}: must be a rep's external id, not blank, at most 255 characters`);
  }
}
