import { assignmentWindows } from '../../domain/earnings/assignments.ts';
import { countsCredits, creditPeriodOf, creditPeriods } from '../../domain/earnings/attainmentCredits.ts';
import { repsReadBy } from '../../domain/earnings/changeScope.ts';
import { dealPeriodId } from '../../domain/earnings/dealPeriods.ts';
import { DRAW_CHIP_KEY, DRAW_RECOVERY_CHIP_KEY, drawChipId } from '../../domain/earnings/draws.ts';
import { countingMoves, quotaMovesFrom } from '../../domain/earnings/planYear.ts';
import { chipReadsQuota } from '../../domain/earnings/proration.ts';
import { movedByRate, type RateChange, ratesBefore } from '../../domain/earnings/rateChange.ts';
import { evaluateLines } from '../../domain/earnings/targets.ts';
import type { EnginePlanVersion, LineTarget, Rep, TraceReplacement } from '../../domain/earnings/types.ts';
import { type CalendarDate, type PeriodId, periodBounds } from '../../domain/periods.ts';
import * as adjustments from '../../repositories/adjustments.ts';
import * as dealSnapshots from '../../repositories/dealSnapshots.ts';
import * as earnings from '../../repositories/earnings.ts';
import * as earningsWrites from '../../repositories/earningsWrites.ts';
import * as locks from '../../repositories/evaluationLocks.ts';
import * as feedWriters from '../../repositories/feedWriters.ts';
import * as ledgerPlans from '../../repositories/ledgerPlans.ts';
import * as orgs from '../../repositories/orgs.ts';
import * as periodStandings from '../../repositories/periodStandings.ts';
import * as periods from '../../repositories/periods.ts';
import * as repQuotas from '../../repositories/repQuotas.ts';
import type { Transaction, Transactor } from '../../repositories/transaction.ts';
import * as users from '../../repositories/users.ts';
import * as webhookEndpoints from '../../repositories/webhookEndpoints.ts';
import { waitForFeedWriters } from '../feedHorizon.ts';
import { EarningAnnouncements } from './announcements.ts';
import { addCounts, type BookingCounts, book, isLive, NO_COUNTS } from './booking.ts';
import type { EvaluationContext } from './context.ts';
import { drawTargetsFrom, hasDraw, settledPeriods } from './draws.ts';
import { loadHierarchy, type OrgHierarchy } from './hierarchyReader.ts';

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
  /**
   * Why rows are replaced, in their traces (an exchange rate set, for one): a new plan version when absent, the
   * hierarchy change for a `hierarchyChange`.
   */
  reason?: TraceReplacement;
  /**
   * A change of the rep hierarchy: only these reps (user ids), whose override lines it can move; those lines are
   * recomputed in locked periods too (the ledger books the difference in the next open period), and rows they
   * replace say the hierarchy changed.
   */
  hierarchyChange?: { userIds: readonly string[] };
  /**
   * An exchange rate that was set: the lines it moves are recomputed in locked and paid periods too (the ledger
   * books the difference in the next open period), see rateChange.ts.
   */
  rateChange?: RateChange;
  /**
   * A change of reps' quotas or start dates (docs/quotas.md): only these reps (user ids), under these plans (all when
   * absent); the lines of their chips that read the quota in the periods that end on or after `from` are recomputed
   * in locked periods too (the ledger books the difference in the next open period).
   */
  quotaChange?: QuotaChange;
  /**
   * Adjustments that count toward attainment were added or voided (docs/pay-workflow.md): only these reps (user
   * ids); the lines of their chips that count attainment (tiered and attainment chips without a condition) in the
   * plan periods holding `periods` are recomputed, in locked periods too (the ledger books the difference in the
   * next open period).
   */
  adjustmentChange?: AdjustmentChange;
  /** Only these reps (user ids), their lines in open periods as any recompute does: a reopened period's reps. */
  userIds?: readonly string[];
}

export interface AdjustmentChange {
  userIds: readonly string[];
  /** The adjustments' own periods (months or quarters). */
  periods: readonly PeriodId[];
}

export interface QuotaChange {
  userIds: readonly string[];
  planIds?: readonly string[];
  /** The first day the change can move a quota (YYYY-MM-DD). */
  from: CalendarDate;
}

const HIERARCHY_CHANGED: TraceReplacement = {
  code: 'hierarchy_changed',
  explanation: "The rep hierarchy changed, and the manager's override lines were recomputed.",
};

const DEFAULT_RECOMPUTE_CONCURRENCY = 4;

/**
 * Recomputes the plans' lines in open periods, one rep per transaction (under the rep's evaluation lock, so
 * it queues with deal events of that rep rather than racing them): active plans are evaluated with the
 * version in force, archived plans have their projected rows reversed. Rows written carry no triggering
 * domain event. Safe to run at any time and again: a line that already meets its target is left alone.
 */
export async function recomputePlans(
  pool: Transactor,
  request: RecomputeRequest,
  context: EvaluationContext,
): Promise<RecomputeSummary> {
  const started = performance.now();
  const { orgId } = request;
  const reader = pool.statements;
  // A deal event in progress may have read the plans as they were before the change that asked for this
  // recompute; once it has ended, every rep evaluated below reflects both.
  await waitForFeedWriters(pool, orgId);
  // What a recompute changes (a plan's version, the hierarchy, the rates) may change what the running totals
  // count: the next deal event of each period counts it again from the period's deals.
  await periodStandings.dropStandingsOfOrg(reader, orgId);
  const states = await ledgerPlans.planStates(reader, orgId, request.planIds);
  const planIds = states.map((plan) => plan.plan_id);
  const only =
    (request.hierarchyChange && new Set(request.hierarchyChange.userIds)) ??
    (request.quotaChange && new Set(request.quotaChange.userIds)) ??
    (request.adjustmentChange && new Set(request.adjustmentChange.userIds)) ??
    (request.userIds && new Set(request.userIds));
  // A hierarchy change names the managers it moves: each is recomputed even when nothing else would select it (a
  // manager whose only report left, with every override row approved in a locked period, has no open rows).
  const reps =
    planIds.length === 0 ? [] : only ? [...only].sort() : await earnings.repsToRecompute(reader, orgId, planIds);
  const org = await loadHierarchy(reader, orgId);
  const recomputedFor = request.hierarchyChange ? HIERARCHY_CHANGED : request.reason;
  let counts = NO_COUNTS;
  let deals = 0;
  let done = 0;
  const today = context.today();
  const queue = [...reps];
  const worker = async () => {
    for (let userId = queue.shift(); userId !== undefined; userId = queue.shift()) {
      const rep = userId;
      const result = await pool.run((tx) =>
        recomputeRep(
          tx,
          {
            orgId,
            userId: rep,
            planIds,
            today,
            org,
            hierarchyChange: Boolean(request.hierarchyChange),
            rateChange: request.rateChange,
            quotaChange: request.quotaChange,
            adjustmentChange: request.adjustmentChange,
            recomputedFor,
          },
          context,
        ),
      );
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

interface RepRecompute {
  orgId: string;
  userId: string;
  planIds: readonly string[];
  today: CalendarDate;
  org: OrgHierarchy;
  hierarchyChange: boolean;
  rateChange: RateChange | undefined;
  quotaChange: QuotaChange | undefined;
  adjustmentChange: AdjustmentChange | undefined;
  /** Why rows whose amount moved are replaced: a new plan version when absent. */
  recomputedFor: TraceReplacement | undefined;
}

async function recomputeRep(
  tx: Transaction,
  {
    orgId,
    userId,
    planIds,
    today,
    org,
    hierarchyChange,
    rateChange,
    quotaChange,
    adjustmentChange,
    recomputedFor,
  }: RepRecompute,
  context: EvaluationContext,
): Promise<{ counts: BookingCounts; deals: number }> {
  await feedWriters.joinFeedWriters(tx, orgId);
  await locks.lockRepsForEvaluation(tx, orgId, [userId]);
  const found = await users.findRepById(tx, orgId, userId);
  if (!found) return { counts: NO_COUNTS, deals: 0 };
  const rep: Rep = found;
  const states = await ledgerPlans.planStates(tx, orgId, planIds);
  const archived = states.filter((state) => state.status === 'archived').map((state) => state.plan_id);
  const hasWebhookEndpoints = await webhookEndpoints.hasWebhookEndpoints(tx, orgId);
  const announcements = new EarningAnnouncements(tx, orgId, hasWebhookEndpoints);

  const reversed = await earningsWrites.reverseProjectionsOfRep(tx, orgId, userId, archived, new Date());
  await announcements.statusChanged(reversed, () => 'projected');
  let counts: BookingCounts = { ...NO_COUNTS, rows_reversed: reversed.length };

  const versions = await context.versions.of(
    tx,
    orgId,
    states.filter((state) => state.status === 'active'),
  );
  if (versions.length === 0) return { counts, deals: 0 };
  const rows = await earnings.standingRowsOfRep(
    tx,
    orgId,
    userId,
    versions.map((plan) => plan.plan_id),
  );
  const owned = await dealSnapshots.dealsOfRep(tx, orgId, userId);
  // With override chips, the deals of the rep's reports (on any day, within the chips' depth) too.
  const reportIds = new Set(versions.flatMap((plan) => [...repsReadBy(plan, rep.external_id, org.hierarchy)]));
  reportIds.delete(rep.external_id);
  const read = new Map(owned.map((deal) => [deal.id, deal]));
  for (const report of reportIds) {
    const reportRep = org.reps.get(report);
    if (!reportRep) continue;
    for (const deal of await dealSnapshots.dealsOfRep(tx, orgId, reportRep.user_id)) read.set(deal.id, deal);
  }
  // Deals that changed owner (or left the rep's reports) since this rep's rows were written: evaluated so that
  // their lines go to zero.
  const formerIds = [
    ...new Set(rows.flatMap((row) => (row.deal_id !== null && !read.has(row.deal_id) ? [row.deal_id] : []))),
  ];
  const evaluated = [...read.values(), ...(await dealSnapshots.dealsByIds(tx, orgId, formerIds))];
  const periodStatuses = await periods.periodStatuses(tx, orgId);
  const isOpen = (periodId: PeriodId) => (periodStatuses.get(periodId) ?? 'open') === 'open';
  const liveLines = new Set(rows.filter(isLive).map((row) => row.line_key));
  // An unpriced line's row of 0 stays a line to evaluate even once its period is locked: a rate set later prices it.
  const unpricedLines = new Set(
    rows.filter((row) => row.pricing === 'missing_exchange_rate').map((row) => row.line_key),
  );
  const config = await orgs.loadConfig(tx, orgId);
  const money = { default_currency: config.defaultCurrency, rates: config.rates };
  const quotaBook = (await repQuotas.booksOfReps(tx, orgId, [userId])).get(userId);
  const credits = (await adjustments.attainmentCreditsOfReps(tx, orgId, [userId])).get(userId) ?? [];
  // Adjustments added or voided move the counting lines of the plan periods that hold theirs (in a plan year, and of
  // the year's later months), locked ones included.
  const creditMoves = (plan: EnginePlanVersion, periodId: PeriodId) =>
    adjustmentChange?.periods.some((adjusted) =>
      countingMoves(plan, creditPeriodOf(adjusted, plan.period), periodId),
    ) ?? false;
  // A quota change moves the quota-reading lines of the periods from its first day on, locked ones included.
  const quotaMoves = (plan: EnginePlanVersion, periodId: PeriodId) =>
    quotaChange !== undefined &&
    (quotaChange.planIds === undefined || quotaChange.planIds.includes(plan.plan_id)) &&
    periodBounds(periodId).ends_on >= quotaMovesFrom(plan, quotaChange.from);

  const targets: LineTarget[] = [];
  const droppedLines = new Set<string>();
  for (const plan of versions) {
    const planRows = rows.filter((row) => row.plan_id === plan.plan_id);
    // Every line of a rep the plan does not name earns nothing; with no rows, there is nothing to undo either.
    if (assignmentWindows(plan, rep.external_id).length === 0 && planRows.length === 0) continue;
    const periods = new Set<PeriodId>();
    for (const deal of owned) {
      const periodId = dealPeriodId(deal, plan.period, today);
      // A rate can move an attainment bonus of a closed period, since it converts what the period counts.
      if (isOpen(periodId) || rateChange || quotaMoves(plan, periodId) || creditMoves(plan, periodId)) {
        periods.add(periodId);
      }
    }
    for (const row of planRows) if (row.line_period_id !== null && isLive(row)) periods.add(row.line_period_id);
    // A period an adjustment counts in has its attainment lines even without a deal.
    for (const periodId of creditPeriods(credits, plan.period)) if (isOpen(periodId)) periods.add(periodId);
    for (const adjusted of adjustmentChange?.periods ?? []) periods.add(creditPeriodOf(adjusted, plan.period));
    const quotas = repQuotas.quotasUnder(quotaBook, plan.plan_id);
    const request = {
      plan,
      rep,
      deals: evaluated,
      periods: [...periods],
      today,
      money,
      hierarchy: org.hierarchy,
      quotas,
      credits,
    };
    const evaluation = evaluateLines(request);
    const moved = rateChange
      ? movedByRate(
          evaluateLines({ ...request, money: { ...money, rates: ratesBefore(money.rates, rateChange) } }).targets,
        )
      : () => false;
    // A plan change recomputes lines in open periods, and the forecasts of open deals in any period (a lock freezes
    // what was earned, not a forecast); an earned line of a locked period keeps its rows, unless a live row (a
    // clawback still open) says it is still being booked. A hierarchy change moves override lines of locked periods,
    // and a rate the lines it converts differently, as any late change does: the difference is booked in the next
    // open period.
    const overrideChips = new Set(plan.chips.filter((chip) => chip.kind === 'override').map((chip) => chip.id));
    const quotaChips = new Set(plan.chips.filter(chipReadsQuota).map((chip) => chip.id));
    const creditChips = new Set(plan.chips.filter(countsCredits).map((chip) => chip.id));
    const lateChange = (target: LineTarget) =>
      (hierarchyChange && overrideChips.has(target.line.chip_id)) ||
      (quotaChips.has(target.line.chip_id) && quotaMoves(plan, target.period_id)) ||
      (creditChips.has(target.line.chip_id) && creditMoves(plan, target.period_id)) ||
      moved(target);
    targets.push(
      ...evaluation.targets.filter(
        (target) =>
          isOpen(target.period_id) ||
          target.trace.deal?.status === 'open' ||
          liveLines.has(target.line.line_key) ||
          unpricedLines.has(target.line.line_key) ||
          lateChange(target),
      ),
    );
    const unusable = new Set(
      evaluation.problems.flatMap((problem) => {
        const index = /^chips\[(\d+)\]/.exec(problem.path)?.[1];
        const chip = index === undefined ? undefined : plan.chips[Number(index)];
        return chip ? [chip.id] : [];
      }),
    );
    const targeted = new Set(evaluation.targets.map((target) => target.line.line_key));
    // Draw lines are settled per locked period (draws.ts): a plan change re-derives those with a live row (a
    // top-up or clawback still open) and every settled period's after them, and never drops them.
    const drawChips = new Set([
      drawChipId(plan.plan_id, DRAW_CHIP_KEY),
      drawChipId(plan.plan_id, DRAW_RECOVERY_CHIP_KEY),
    ]);
    const liveDrawPeriods = planRows
      .flatMap((row) =>
        drawChips.has(row.rule_chip_id) && isLive(row) && row.line_period_id !== null ? [row.line_period_id] : [],
      )
      .sort();
    // A late change that moves lines of locked periods moves what those periods earned, so their draws (and every
    // settled period's after them) are re-derived too.
    const latePeriods = evaluation.targets
      .filter((target) => !isOpen(target.period_id) && lateChange(target))
      .map((target) => target.period_id);
    const from = [...liveDrawPeriods, ...latePeriods].sort()[0];
    if (from !== undefined && hasDraw(plan)) {
      const settled = settledPeriods(periodStatuses, plan);
      targets.push(...(await drawTargetsFrom(tx, orgId, plan, rep, from, settled, today, undefined, org)));
    }
    for (const row of planRows) {
      if (drawChips.has(row.rule_chip_id)) continue;
      if (isLive(row) && !targeted.has(row.line_key) && !unusable.has(row.rule_chip_id)) {
        droppedLines.add(row.line_key);
      }
    }
  }
  counts = addCounts(
    counts,
    await book(tx, {
      orgId,
      targets,
      droppedLines: [...droppedLines],
      triggeringDomainEventId: null,
      cause: null,
      ...(recomputedFor ? { recomputedFor } : {}),
      endpoints: hasWebhookEndpoints,
    }),
  );
  return { counts, deals: owned.length };
}
