import type { Prisma } from '../../generated/prisma/client.ts';
import type { Database } from '../db/prisma.ts';
import { cutFeedPage } from '../domain/deals/feed.ts';
import { canonicalJson } from '../domain/deals/json.ts';
import {
  type LedgerRow,
  lockPeriod,
  markPeriodPaid,
  type RowRetirement,
  reconcileLine,
} from '../domain/earnings/ledger.ts';
import {
  decodeEarningCursor,
  type EarningCursorFilters,
  earningFilterFingerprint,
  encodeEarningCursor,
} from '../domain/earnings/listCursor.ts';
import { dealPeriodId, evaluateLines, scopeOfDealChange } from '../domain/earnings/targets.ts';
import type {
  DealSnapshot,
  EarningStatus,
  EngineChip,
  EnginePlanVersion,
  LineTarget,
  PeriodStatus,
  Rep,
} from '../domain/earnings/types.ts';
import { type CalendarDate, type PeriodId, periodBounds } from '../domain/periods.ts';
import { newId } from '../lib/ids.ts';
import { type DealRecord, DealRepository } from '../repositories/deals.ts';
import {
  type EarningListFilters,
  type EarningRecord,
  EarningRepository,
  type EarningWithTrace,
  type LineRow,
  type NewEarning,
  type PlanState,
  poolStatements,
  statementsOf,
} from '../repositories/earnings.ts';
import { PlanRepository, type PlanVersionSnapshot } from '../repositories/plans.ts';
import { inTransaction, type SqlPool, type Transaction } from '../repositories/transaction.ts';
import type { DealChange, DealChangeListener } from './dealChanges.ts';
import type { PeriodChangeListener, PeriodStatusChange } from './periodChanges.ts';
import type { PlanArchived, PlanChangeListener, PlanVersionApplied } from './planChanges.ts';
import { announceEarningCreated, announceEarningStatusChanged, type WireEarning } from './webhookAnnouncements.ts';
import type { OutboxTransaction } from './webhookOutbox.ts';

// The earnings ledger wired to the database (product.md section 5). The pure engine decides
// (src/domain/earnings): which lines a change can affect, each line's target, and how a line's rows must move
// to meet it. This service loads what the engine needs, holds the locks that keep concurrent evaluations
// apart, and writes the rows and their webhooks in one transaction:
//
// - a deal event (the ingestion transaction): the deal's lines and, for tiered and attainment chips, the
//   lines of the rep's periods the deal was and is in;
// - a period lock or payment: the period's pending rows become approved, approved ones paid;
// - a plan change: noted in the plan's transaction, recomputed after it commits in one transaction per rep
//   (`recompute`), because a plan of 100,000 deals would otherwise hold one transaction for a minute.
//
// Locks, always in this order: the deal row (ingestion) → the rep's evaluation lock → the periods booked into
// or out of, FOR SHARE → earnings rows. A period lock takes its period FOR UPDATE and then only rows of that
// period, which nobody touches without holding the period FOR SHARE, so nothing can wait in a circle.
//
// A deal event reads the plans in force in the statement that takes its reps' locks (an org without plans
// takes none). A plan change that commits meanwhile is not missed: its recompute first waits for every deal
// event in progress, then evaluates each rep under the rep's lock, seeing the new plan and the event's deal.

/** The contract's earning list item: an allow-list of the row's fields, amounts as numbers, times in ms. */
export function toWireEarning(earning: EarningRecord): WireEarning {
  return {
    id: earning.id,
    user_id: earning.user_id,
    user_external_id: earning.user_external_id,
    period_id: earning.period_id,
    deal_id: earning.deal_id,
    plan_id: earning.plan_id,
    plan_version_id: earning.plan_version_id,
    rule_chip_id: earning.rule_chip_id,
    rule_version: earning.rule_version,
    amount_cents: earning.amount_cents,
    status: earning.status,
    supersedes_id: earning.supersedes_id,
    triggering_domain_event_id: earning.triggering_domain_event_id,
    created_at: earning.created_at.toISOString(),
  };
}

/** The engine's plan: a stored plan version in the engine's terms. */
export function enginePlanOf(snapshot: PlanVersionSnapshot): EnginePlanVersion {
  return {
    plan_id: snapshot.plan.id,
    plan_key: snapshot.plan.key,
    version_id: snapshot.version_id,
    version_number: snapshot.version_number,
    period: snapshot.definition.period,
    quota_cents: snapshot.definition.quota_cents,
    assignees: snapshot.definition.assignees,
    chips: snapshot.chips.map((chip) => ({ ...chip.definition, id: chip.id, version: chip.version })),
  };
}

/** The engine's deal: the projection's fields, `won_at` included. */
export function dealSnapshotOf(deal: DealRecord): DealSnapshot {
  return {
    id: deal.id,
    external_id: deal.external_id,
    amount_cents: deal.state.amount_cents,
    stage: deal.state.stage,
    close_date: deal.state.close_date,
    owner_external_id: deal.state.owner_external_id,
    status: deal.status,
    custom: deal.state.custom,
    won_at: deal.won_at?.toISOString() ?? null,
  };
}

/** What one booking did to the ledger. */
export interface BookingCounts {
  lines_evaluated: number;
  rows_written: number;
  rows_superseded: number;
  rows_reversed: number;
}

export interface RecomputeSummary extends BookingCounts {
  org_id: string;
  plan_ids: string[];
  reps: number;
  deals: number;
  seconds: number;
}

export interface RecomputeProgress {
  reps_done: number;
  reps_total: number;
  deals: number;
}

export interface RecomputeRequest {
  orgId: string;
  /** The plans to recompute; all of the org's when absent. */
  planIds?: readonly string[];
  onProgress?: (progress: RecomputeProgress) => void;
  /** Reps recomputed at the same time, each in its own transaction. */
  concurrency?: number;
}

export interface EarningsOptions {
  /** Today's UTC date: open deals without a close date are projected in its period. */
  today?: () => CalendarDate;
}

/** Plan changes noted inside their transaction, to recompute once it has committed. */
export interface NotedPlanChange {
  orgId: string;
  planId: string;
}

const NO_COUNTS: BookingCounts = { lines_evaluated: 0, rows_written: 0, rows_superseded: 0, rows_reversed: 0 };
const PLAN_CACHE_SIZE = 512;
const DEFAULT_RECOMPUTE_CONCURRENCY = 4;

function addCounts(a: BookingCounts, b: BookingCounts): BookingCounts {
  return {
    lines_evaluated: a.lines_evaluated + b.lines_evaluated,
    rows_written: a.rows_written + b.rows_written,
    rows_superseded: a.rows_superseded + b.rows_superseded,
    rows_reversed: a.rows_reversed + b.rows_reversed,
  };
}

/** Tiered and attainment chips count the rep's won deals of a period, so all of its lines move together. */
function countsPeriod(chip: EngineChip): boolean {
  return chip.kind === 'tiered_commission' || chip.kind === 'attainment_bonus';
}

function isLive(row: LedgerRow): boolean {
  return row.status === 'pending' || row.status === 'projected';
}

function todayUtc(): CalendarDate {
  return new Date().toISOString().slice(0, 10);
}

type EarningWebhook = 'earning.created' | 'earning.status_changed';

/**
 * Webhooks for the rows a transaction writes and moves. An org without any webhook endpoint is told to skip
 * them all (`hasEndpoints` false, read with the plans). Otherwise the first announcement of a kind tells
 * whether any endpoint takes it; when none does, the rest of the transaction skips that kind instead of asking
 * again for every row (a recompute moves thousands). An endpoint added while the transaction runs may miss
 * these rows either way: its transaction and this one are concurrent.
 */
class Announcements {
  readonly #tx: OutboxTransaction;
  readonly #orgId: string;
  readonly #unheard: Set<EarningWebhook>;

  constructor(tx: OutboxTransaction, orgId: string, hasEndpoints = true) {
    this.#tx = tx;
    this.#orgId = orgId;
    this.#unheard = new Set(hasEndpoints ? [] : ['earning.created', 'earning.status_changed']);
  }

  async created(earnings: readonly EarningRecord[]): Promise<void> {
    for (const earning of earnings) {
      if (this.#unheard.has('earning.created')) return;
      const message = await announceEarningCreated(this.#tx, this.#orgId, toWireEarning(earning));
      if (!message) this.#unheard.add('earning.created');
    }
  }

  async statusChanged(
    earnings: readonly EarningRecord[],
    previousStatus: (earning: EarningRecord) => EarningStatus,
  ): Promise<void> {
    const changedAt = new Date();
    for (const earning of earnings) {
      if (this.#unheard.has('earning.status_changed')) return;
      const message = await announceEarningStatusChanged(this.#tx, this.#orgId, {
        earning: toWireEarning(earning),
        previousStatus: previousStatus(earning),
        changedAt,
      });
      if (!message) this.#unheard.add('earning.status_changed');
    }
  }
}

interface Booking {
  orgId: string;
  targets: readonly LineTarget[];
  /** Lines whose live rows no longer apply at all (their chip left the plan): reversed. */
  droppedLines: readonly string[];
  triggeringDomainEventId: string | null;
  /** False when the org has no webhook endpoint: nothing to announce. */
  hasWebhookEndpoints: boolean;
}

/**
 * Evaluates earnings lines and keeps the ledger in step with deals, plans and periods. One instance serves a
 * process; it caches plan versions, which never change once written.
 */
export class EarningsEngine implements DealChangeListener, PlanChangeListener, PeriodChangeListener {
  readonly #plans: PlanRepository;
  readonly #earnings = new EarningRepository();
  readonly #today: () => CalendarDate;
  readonly #versions = new Map<string, EnginePlanVersion>();
  #noted: NotedPlanChange[] = [];

  constructor(db: Database, options: EarningsOptions = {}) {
    this.#plans = new PlanRepository(db);
    this.#today = options.today ?? todayUtc;
  }

  /**
   * In the ingestion transaction, with the deal row locked: for each active plan, the lines the change can
   * affect (scopeOfDealChange) for the deal's owner before and after, evaluated and booked.
   */
  async onDealChanged(tx: Transaction, change: DealChange): Promise<void> {
    const orgId = change.org.id;
    const before = change.before ? dealSnapshotOf(change.before) : null;
    const after = dealSnapshotOf(change.after);
    // Nothing the engine reads changed (an upsert repeating the deal's state): no line can move.
    if (before && canonicalJson(before) === canonicalJson(after)) return;
    const reps = new Map<string, Rep>();
    for (const deal of [change.before, change.after]) {
      const owner = deal?.state.owner_external_id ?? null;
      if (deal && owner !== null && deal.user_id !== null) {
        reps.set(owner, { user_id: deal.user_id, external_id: owner });
      }
    }
    if (reps.size === 0) return;
    // The deals are read after the reps' locks, so an evaluation that waited sees them as they are now.
    const inForce = await this.#earnings.plansInForceLockingReps(
      tx,
      orgId,
      [...reps.values()].map((rep) => rep.user_id),
    );
    if (inForce.plans.length === 0) return;
    const plans = await this.#versionsOf(orgId, inForce.plans);
    const today = this.#today();
    const work = plans.flatMap((plan) =>
      scopeOfDealChange(plan, before, after, today).flatMap((scope) => {
        const rep = reps.get(scope.rep_external_id);
        return rep ? [{ plan, rep, periods: scope.periods }] : [];
      }),
    );
    const dealsByRep = new Map<string, DealSnapshot[]>();
    for (const rep of reps.values()) {
      const periods = work.filter((item) => item.rep === rep).flatMap((item) => item.periods);
      if (periods.length === 0) continue;
      dealsByRep.set(rep.user_id, await this.#earnings.dealsOfRepAround(tx, orgId, rep.user_id, spanOf(periods)));
    }
    // A commission or flat line depends on its deal alone: only the changed deal's need evaluating. Tiered and
    // attainment lines depend on the rep's whole period: all of its lines are evaluated.
    const targets = work.flatMap(({ plan, rep, periods }) => {
      const dealChips = { ...plan, chips: plan.chips.filter((chip) => !countsPeriod(chip)) };
      const periodChips = { ...plan, chips: plan.chips.filter(countsPeriod) };
      const deals = (dealsByRep.get(rep.user_id) ?? []).filter((deal) =>
        periods.includes(dealPeriodId(deal, plan.period, today)),
      );
      const position = new Map(plan.chips.map((chip, index) => [chip.id, index]));
      // Back in the plan's chip order, which is the order rows written together are numbered in.
      return [
        ...evaluateLines({ plan: dealChips, rep, deals: [after], periods: [], today }).targets,
        ...(periodChips.chips.length === 0
          ? []
          : evaluateLines({ plan: periodChips, rep, deals: [...deals, after], periods, today }).targets),
      ].sort((a, b) => (position.get(a.line.chip_id) ?? 0) - (position.get(b.line.chip_id) ?? 0));
    });
    await this.book(tx, {
      orgId,
      targets,
      droppedLines: [],
      triggeringDomainEventId: change.domainEvent.id,
      hasWebhookEndpoints: inForce.hasWebhookEndpoints,
    });
  }

  /** Noted here, recomputed after the plan's transaction commits: see `takeNotedPlanChanges` and `recompute`. */
  async onPlanVersionApplied(_tx: Prisma.TransactionClient, change: PlanVersionApplied): Promise<void> {
    this.#note({ orgId: change.orgId, planId: change.planId });
  }

  /** Noted here; after the commit, `recompute` reverses the plan's projected rows (an archived plan is not evaluated). */
  async onPlanArchived(_tx: Prisma.TransactionClient, change: PlanArchived): Promise<void> {
    this.#note({ orgId: change.orgId, planId: change.planId });
  }

  /** The plan changes noted since the last call, each once. */
  takeNotedPlanChanges(): NotedPlanChange[] {
    const noted = this.#noted;
    this.#noted = [];
    return noted;
  }

  /** The period is locked (FOR UPDATE) and now `locked`: its pending rows become approved, amounts frozen. */
  async onPeriodLocked(tx: Prisma.TransactionClient, change: PeriodStatusChange): Promise<void> {
    await this.#movePeriodRows(tx, change, 'pending', (rows) => lockPeriod(change.period.id, 'open', rows));
  }

  /** The period is locked (FOR UPDATE) and now `paid`: its approved rows become paid. */
  async onPeriodPaid(tx: Prisma.TransactionClient, change: PeriodStatusChange): Promise<void> {
    await this.#movePeriodRows(tx, change, 'approved', (rows) => markPeriodPaid(change.period.id, 'locked', rows));
  }

  /**
   * Recomputes the plans' lines in open periods, one rep per transaction (under the rep's evaluation lock, so
   * it queues with deal events of that rep rather than racing them): active plans are evaluated with the
   * version in force, archived plans have their projected rows reversed. Rows written carry no triggering
   * domain event. Safe to run at any time and again: a line that already meets its target is left alone.
   */
  async recompute(pool: SqlPool, request: RecomputeRequest): Promise<RecomputeSummary> {
    const started = performance.now();
    const { orgId } = request;
    const reader = poolStatements(pool);
    // A deal event in progress may have read the plans as they were before the change that asked for this
    // recompute; once it has ended, every rep evaluated below reflects both.
    await this.#earnings.waitForDealWritersBefore(reader, orgId);
    const plans = await this.#earnings.planStates(reader, orgId, request.planIds);
    const planIds = plans.map((plan) => plan.plan_id);
    const reps = planIds.length === 0 ? [] : await this.#earnings.repsToRecompute(reader, orgId, planIds);
    let counts = NO_COUNTS;
    let deals = 0;
    let done = 0;
    const today = this.#today();
    const queue = [...reps];
    const worker = async () => {
      for (let userId = queue.shift(); userId !== undefined; userId = queue.shift()) {
        const rep = userId;
        const result = await inTransaction(pool, (tx) => this.#recomputeRep(tx, orgId, rep, planIds, today));
        counts = addCounts(counts, result.counts);
        deals += result.deals;
        done += 1;
        request.onProgress?.({ reps_done: done, reps_total: reps.length, deals });
      }
    };
    const concurrency = Math.max(1, Math.min(request.concurrency ?? DEFAULT_RECOMPUTE_CONCURRENCY, reps.length));
    await Promise.all(Array.from({ length: concurrency }, worker));
    return {
      org_id: orgId,
      plan_ids: planIds,
      reps: reps.length,
      deals,
      ...counts,
      seconds: Math.round((performance.now() - started) / 10) / 100,
    };
  }

  async #versionsOf(orgId: string, states: readonly PlanState[]): Promise<EnginePlanVersion[]> {
    const versions: EnginePlanVersion[] = [];
    for (const state of states) {
      let version = this.#versions.get(state.version_id);
      if (!version) {
        // Plan versions never change once written, and the one named here is committed: read it once.
        const snapshot = await this.#plans.snapshot(orgId, state.plan_id, state.version_id);
        if (!snapshot) throw new Error(`plan ${state.plan_id} of org ${orgId} has no version ${state.version_id}`);
        version = enginePlanOf(snapshot);
        if (this.#versions.size >= PLAN_CACHE_SIZE) this.#versions.clear();
        this.#versions.set(state.version_id, version);
      }
      versions.push(version);
    }
    return versions;
  }

  #note(change: NotedPlanChange): void {
    if (!this.#noted.some((noted) => noted.orgId === change.orgId && noted.planId === change.planId)) {
      this.#noted.push(change);
    }
  }

  async #recomputeRep(
    tx: Transaction,
    orgId: string,
    userId: string,
    planIds: readonly string[],
    today: CalendarDate,
  ): Promise<{ counts: BookingCounts; deals: number }> {
    await this.#earnings.joinFeedWriters(tx, orgId);
    await this.#earnings.lockRepsForEvaluation(tx, orgId, [userId]);
    const found = await this.#earnings.findRep(tx, orgId, userId);
    if (!found) return { counts: NO_COUNTS, deals: 0 };
    const rep: Rep = found;
    const states = await this.#earnings.planStates(tx, orgId, planIds);
    const archived = states.filter((state) => state.status === 'archived').map((state) => state.plan_id);
    const hasWebhookEndpoints = await this.#earnings.hasWebhookEndpoints(tx, orgId);
    const announcements = new Announcements(tx, orgId, hasWebhookEndpoints);

    const reversed = await this.#earnings.reverseProjectionsOfRep(tx, orgId, userId, archived);
    await announcements.statusChanged(reversed, () => 'projected');
    let counts: BookingCounts = { ...NO_COUNTS, rows_reversed: reversed.length };

    const plans = await this.#versionsOf(
      orgId,
      states.filter((state) => state.status === 'active'),
    );
    if (plans.length === 0) return { counts, deals: 0 };
    const rows = await this.#earnings.standingRowsOfRep(
      tx,
      orgId,
      userId,
      plans.map((plan) => plan.plan_id),
    );
    const owned = await this.#earnings.dealsOfRep(tx, orgId, userId);
    const ownedIds = new Set(owned.map((deal) => deal.id));
    // Deals that changed owner since this rep's rows were written: evaluated so that their lines go to zero.
    const formerIds = [
      ...new Set(rows.flatMap((row) => (row.deal_id !== null && !ownedIds.has(row.deal_id) ? [row.deal_id] : []))),
    ];
    const deals = [...owned, ...(await this.#earnings.dealsByIds(tx, orgId, formerIds))];
    const periodStatuses = await this.#earnings.periodStatuses(tx, orgId);
    const isOpen = (periodId: PeriodId) => (periodStatuses.get(periodId) ?? 'open') === 'open';
    const liveLines = new Set(rows.filter(isLive).map((row) => row.line_key));

    const targets: LineTarget[] = [];
    const droppedLines = new Set<string>();
    for (const plan of plans) {
      const planRows = rows.filter((row) => row.plan_id === plan.plan_id);
      // Every line of a rep the plan does not name earns nothing; with no rows, there is nothing to undo either.
      if (plan.assignees !== 'all' && !plan.assignees.includes(rep.external_id) && planRows.length === 0) continue;
      const periods = new Set<PeriodId>();
      for (const deal of owned) {
        const periodId = dealPeriodId(deal, plan.period, today);
        if (isOpen(periodId)) periods.add(periodId);
      }
      for (const row of planRows) if (row.deal_id === null && isLive(row)) periods.add(row.line_period_id);
      const evaluation = evaluateLines({ plan, rep, deals, periods: [...periods], today });
      // A plan change recomputes lines in open periods; a line booked in a locked one keeps its rows, unless a
      // live row (a clawback still open) says it is still being booked.
      targets.push(
        ...evaluation.targets.filter((target) => isOpen(target.period_id) || liveLines.has(target.line.line_key)),
      );
      const unusable = new Set(
        evaluation.problems.flatMap((problem) => {
          const index = /^chips\[(\d+)\]/.exec(problem.path)?.[1];
          const chip = index === undefined ? undefined : plan.chips[Number(index)];
          return chip ? [chip.id] : [];
        }),
      );
      const targeted = new Set(evaluation.targets.map((target) => target.line.line_key));
      for (const row of planRows) {
        if (isLive(row) && !targeted.has(row.line_key) && !unusable.has(row.rule_chip_id)) {
          droppedLines.add(row.line_key);
        }
      }
    }
    counts = addCounts(
      counts,
      await this.book(tx, {
        orgId,
        targets,
        droppedLines: [...droppedLines],
        triggeringDomainEventId: null,
        hasWebhookEndpoints,
      }),
    );
    return { counts, deals: owned.length };
  }

  /**
   * Brings each target's line to its target (reconcileLine) and reverses the live rows of dropped lines. The
   * periods rows are booked into or moved out of are held FOR SHARE before the rows are read, so a concurrent
   * lock or payment of one of them happens wholly before or wholly after this booking; when the decision
   * names a period not held yet (a clawback into the next open period), that period is taken too and the
   * decision made again.
   */
  async book(tx: Transaction, booking: Booking): Promise<BookingCounts> {
    const { orgId, targets, droppedLines } = booking;
    const lineKeys = [...new Set([...targets.map((target) => target.line.line_key), ...droppedLines])];
    if (lineKeys.length === 0) return NO_COUNTS;
    const statuses = new Map<PeriodId, PeriodStatus>();
    const held = new Set<PeriodId>();
    const hold = async (periods: Iterable<PeriodId>, bookedInto: ReadonlySet<PeriodId>) => {
      const fresh = [...new Set(periods)].filter((periodId) => !held.has(periodId));
      if (fresh.length === 0) return;
      const found = await this.#earnings.sharePeriods(tx, orgId, fresh);
      const missing = fresh.filter((periodId) => !found.has(periodId) && bookedInto.has(periodId));
      if (missing.length > 0) {
        await this.#earnings.ensurePeriods(tx, orgId, missing);
        for (const [periodId, status] of await this.#earnings.sharePeriods(tx, orgId, missing)) {
          found.set(periodId, status);
        }
      }
      for (const periodId of fresh) {
        held.add(periodId);
        const status = found.get(periodId);
        if (status) statuses.set(periodId, status);
      }
    };
    const likely = new Set(
      targets.filter((target) => target.earned_cents !== 0 || target.projected_cents !== 0).map((t) => t.period_id),
    );
    await hold(likely, likely);

    for (;;) {
      const rows = await this.#earnings.standingRowsOfLines(tx, orgId, lineKeys);
      const byLine = new Map<string, LineRow[]>();
      for (const row of rows) byLine.set(row.line_key, [...(byLine.get(row.line_key) ?? []), row]);
      const decisions = targets.map((target) => ({
        target,
        changes: reconcileLine(target, byLine.get(target.line.line_key) ?? [], statuses),
      }));
      const drops: RowRetirement[] = droppedLines.flatMap((lineKey) =>
        (byLine.get(lineKey) ?? []).filter(isLive).map((row) => ({ id: row.id, status: 'reversed' as const })),
      );
      const rowsById = new Map(rows.map((row) => [row.id, row]));
      const retire = [...decisions.flatMap((decision) => decision.changes.retire), ...drops];
      const bookedInto = new Set(decisions.flatMap((decision) => decision.changes.write.map((row) => row.period_id)));
      const movedOutOf = retire.flatMap((retirement) => {
        const row = rowsById.get(retirement.id);
        return row?.status === 'pending' ? [row.period_id] : [];
      });
      const needed = [...bookedInto, ...movedOutOf].filter((periodId) => !held.has(periodId));
      if (needed.length > 0) {
        await hold(needed, bookedInto);
        continue;
      }

      const { retired, written } = await this.#earnings.retireAndWrite(
        tx,
        orgId,
        retire,
        decisions.flatMap(({ target, changes }) =>
          changes.write.map(
            (row): NewEarning => ({
              id: newId('earn'),
              line_key: target.line.line_key,
              user_id: target.line.user_id,
              deal_id: target.line.deal_id,
              plan_id: target.line.plan_id,
              plan_version_id: target.plan_version_id,
              rule_chip_id: target.line.chip_id,
              rule_version: target.rule_version,
              triggering_domain_event_id: booking.triggeringDomainEventId,
              ...row,
            }),
          ),
        ),
      );
      // Every row to retire was read live under the rep's lock and its period's share lock: none can have moved.
      if (retired.length !== retire.length) {
        throw new Error(`earnings of org ${orgId} moved while their lines were locked for evaluation`);
      }
      const announcements = new Announcements(tx, orgId, booking.hasWebhookEndpoints);
      await announcements.statusChanged(retired, (earning) => rowsById.get(earning.id)?.status ?? 'pending');
      await announcements.created(written);
      return {
        lines_evaluated: targets.length,
        rows_written: written.length,
        rows_superseded: retired.filter((row) => row.status === 'superseded').length,
        rows_reversed: retired.filter((row) => row.status === 'reversed').length,
      };
    }
  }

  async #movePeriodRows(
    tx: Prisma.TransactionClient,
    change: PeriodStatusChange,
    from: 'pending' | 'approved',
    decide: (rows: LedgerRow[]) => ReturnType<typeof lockPeriod>,
  ): Promise<void> {
    const statements = statementsOf(tx);
    const rows = await this.#earnings.rowsOfPeriodWithStatus(statements, change.orgId, change.period.id, from);
    const transition = decide(rows);
    if (!transition.ok) throw new Error(transition.reason);
    const to = transition.changes[0]?.to;
    if (to === undefined) return;
    const moved = await this.#earnings.moveRowsOfPeriod(
      statements,
      change.orgId,
      change.period.id,
      transition.changes.map((row) => row.id),
      { from, to },
    );
    await new Announcements(tx, change.orgId).statusChanged(moved, () => from);
  }
}

/** The first and last day of the periods, for reading the deals that can fall in them. */
function spanOf(periods: readonly PeriodId[]): { from: string; to: string } {
  const bounds = periods.map(periodBounds);
  return {
    from: bounds.map((period) => period.starts_on).reduce((a, b) => (a < b ? a : b)),
    to: bounds.map((period) => period.ends_on).reduce((a, b) => (a > b ? a : b)),
  };
}

export interface EarningPage {
  earnings: EarningRecord[];
  nextCursor: string | null;
}

export interface EarningPageQuery {
  filters: EarningListFilters;
  limit: number;
  cursor?: string;
}

/**
 * Reading earnings: keyset pages in (created_at, id) order. Rows are stamped when their transaction writes
 * them, so a page stops at the org's feed horizon (as the deals feed does): a row still being written can
 * never appear behind a cursor already handed out.
 */
export class EarningReader {
  readonly #pool: SqlPool;
  readonly #earnings = new EarningRepository();
  readonly #deals: DealRepository;

  constructor(pool: SqlPool) {
    this.#pool = pool;
    this.#deals = new DealRepository(pool);
  }

  /** Throws InvalidCursor for a cursor that is malformed or was issued for other filters or another org. */
  async listPage(orgId: string, query: EarningPageQuery): Promise<EarningPage> {
    const fingerprint = earningFilterFingerprint(orgId, query.filters satisfies EarningCursorFilters);
    const from = query.cursor === undefined ? null : decodeEarningCursor(query.cursor, fingerprint);
    const horizon = await this.#deals.changeHorizon(orgId);
    const rows = await this.#earnings.listAfter(
      poolStatements(this.#pool),
      orgId,
      query.filters,
      from,
      query.limit + 1,
    );
    const page = cutFeedPage(
      rows.map((row) => ({ row, id: row.id, updated_at: row.created_at })),
      { from: from && { updatedAt: from.createdAt, id: from.id }, limit: query.limit, ...horizon },
    );
    return {
      earnings: page.items.map((item) => item.row),
      nextCursor: page.more
        ? encodeEarningCursor(
            page.position && { createdAt: page.position.updatedAt, id: page.position.id },
            fingerprint,
          )
        : null,
    };
  }

  find(orgId: string, id: string): Promise<EarningWithTrace | null> {
    return this.#earnings.findWithTrace(poolStatements(this.#pool), orgId, id);
  }
}
