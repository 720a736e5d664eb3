import { advanceDrawTarget, planDrawTargets } from '../../domain/earnings/advanceDraws.ts';
import { assignmentWindows, windowsOverlapPeriod } from '../../domain/earnings/assignments.ts';
import { overrideDepthOf } from '../../domain/earnings/changeScope.ts';
import { dealPeriodId } from '../../domain/earnings/dealPeriods.ts';
import {
  DRAW_CHIP_KEY,
  DRAW_RECOVERY_CHIP_KEY,
  drawChipId,
  earnedByPeriod,
  readPlanDraw,
} from '../../domain/earnings/draws.ts';
import { EMPTY_HIERARCHY } from '../../domain/earnings/hierarchy.ts';
import { evaluateLines } from '../../domain/earnings/targets.ts';
import type { DealSnapshot, EnginePlanVersion, LineTarget, PeriodStatus, Rep } from '../../domain/earnings/types.ts';
import { type CalendarDate, nextPeriodId, type PeriodId, periodBounds, periodKindOf } from '../../domain/periods.ts';
import * as adjustments from '../../repositories/adjustments.ts';
import * as dealSnapshots from '../../repositories/dealSnapshots.ts';
import * as earnings from '../../repositories/earnings.ts';
import * as locks from '../../repositories/evaluationLocks.ts';
import * as feedWriters from '../../repositories/feedWriters.ts';
import * as ledgerPlans from '../../repositories/ledgerPlans.ts';
import * as orgs from '../../repositories/orgs.ts';
import * as periods from '../../repositories/periods.ts';
import * as repQuotas from '../../repositories/repQuotas.ts';
import type { Transaction } from '../../repositories/transaction.ts';
import * as users from '../../repositories/users.ts';
import * as webhookEndpoints from '../../repositories/webhookEndpoints.ts';
import { book } from './booking.ts';
import type { EvaluationContext } from './context.ts';
import { dealsReadBy, loadHierarchy, type OrgHierarchy } from './hierarchyReader.ts';

// When draws are settled. A period's draw lines exist once the period is locked: the lock
// settles the draw of every rep the plan covers in the period, deals or not, before the period's pending rows
// are approved, so the draw appears on the statement and in the payouts of the locked period. From then on, a
// change to the earnings of a locked period (a late deal, a clawback) re-derives that period's draw lines and
// those of every locked period after it (their recoveries depend on the balance it leaves), booked as top-ups
// or clawbacks in the earliest open period, like every change to a locked period. An open period has no draw
// lines yet: what it will pay is settled when it is locked. A draw paid in advance (`paid: in_advance`) is the
// exception: the lock of a period also books the advance of the period after it (its `draw` line, the whole draw,
// which depends on the plan and the rep's assignment only), so that the advance stands on the rep's statement from
// the period's start; the period's own lock then settles what its earnings repay (its `draw_recovery` line).

const NO_HIERARCHY: OrgHierarchy = { hierarchy: EMPTY_HIERARCHY, reps: new Map() };

export function hasDraw(plan: EnginePlanVersion): boolean {
  return readPlanDraw(plan).draw !== null;
}

/** The periods whose draws are settled: every period of the kind that is locked or paid. */
export function settledPeriods(statuses: ReadonlyMap<PeriodId, PeriodStatus>, plan: EnginePlanVersion): PeriodId[] {
  return [...statuses]
    .filter(([periodId, status]) => status !== 'open' && periodKindOf(periodId) === plan.period)
    .map(([periodId]) => periodId)
    .sort();
}

/**
 * The draw lines of a rep under a plan with a draw, for the settled periods from `from` on: each period's total
 * from its chips' lines (every deal of the rep in it, and under override chips its reports' deals, so a manager's
 * overrides count against the draw like commissions), the balance the settled periods before `from` leave, from the
 * ledger. `org`: the hierarchy when the caller has read it already.
 */
export async function drawTargetsFrom(
  tx: Transaction,
  orgId: string,
  plan: EnginePlanVersion,
  rep: Rep,
  from: PeriodId,
  settled: readonly PeriodId[],
  today: CalendarDate,
  changedDeal?: DealSnapshot,
  org?: OrgHierarchy,
): Promise<LineTarget[]> {
  const { draw } = readPlanDraw(plan);
  const periods = settled.filter((periodId) => periodId >= from);
  if (draw === null || periods.length === 0) return [];
  const bounds = periods.map(periodBounds);
  const span = { from: bounds[0]?.starts_on ?? '', to: bounds.at(-1)?.ends_on ?? '' };
  const overrides = overrideDepthOf(plan) > 0;
  const hierarchy = overrides ? (org ?? (await loadHierarchy(tx, orgId))) : NO_HIERARCHY;
  const read = overrides
    ? await dealsReadBy(tx, orgId, rep, [plan], hierarchy, span)
    : await dealSnapshots.dealsOfRepAround(tx, orgId, rep.user_id, span);
  const inPeriods = (changedDeal ? [...read, changedDeal] : read).filter((deal) =>
    periods.includes(dealPeriodId(deal, plan.period, today)),
  );
  // The draw compares earnings in the plan's currency: deals in others are converted as the chips' lines are.
  const config = await orgs.loadConfig(tx, orgId);
  const money = { default_currency: config.defaultCurrency, rates: config.rates };
  const books = await repQuotas.booksOfReps(tx, orgId, [rep.user_id]);
  const credits = (await adjustments.attainmentCreditsOfReps(tx, orgId, [rep.user_id])).get(rep.user_id);
  const chips = evaluateLines({
    plan,
    rep,
    deals: inPeriods,
    periods,
    today,
    money,
    hierarchy: hierarchy.hierarchy,
    quotas: repQuotas.quotasUnder(books.get(rep.user_id), plan.plan_id),
    ...(credits ? { credits } : {}),
  }).targets;
  const advance = drawChipId(plan.plan_id, DRAW_CHIP_KEY);
  const recovery = drawChipId(plan.plan_id, DRAW_RECOVERY_CHIP_KEY);
  const before = settled.filter((periodId) => periodId < from);
  const opening = await earnings.drawBalanceBefore(tx, orgId, rep.user_id, plan.plan_id, { advance, recovery }, before);
  await ledgerPlans.ensureDrawChips(tx, orgId, plan.plan_id, [
    { id: advance, key: DRAW_CHIP_KEY },
    { id: recovery, key: DRAW_RECOVERY_CHIP_KEY },
  ]);
  const currency = plan.currency ?? config.defaultCurrency;
  const leaving = books.get(rep.user_id)?.leaving ?? null;
  return planDrawTargets(plan, rep, draw, earnedByPeriod(chips, periods), opening, currency, leaving);
}

/**
 * The draw lines a deal change moves: for each plan with a draw and each rep the deal credits before or after,
 * when the deal is or was in a settled period, that period's lines and every settled period's after it.
 */
export async function drawTargetsOfDealChange(
  tx: Transaction,
  orgId: string,
  plans: readonly EnginePlanVersion[],
  reps: readonly Rep[],
  deals: { before: DealSnapshot | null; after: DealSnapshot },
  today: CalendarDate,
  org?: OrgHierarchy,
): Promise<LineTarget[]> {
  const drawPlans = plans.filter(hasDraw);
  if (drawPlans.length === 0) return [];
  const statuses = await periods.periodStatuses(tx, orgId);
  const targets: LineTarget[] = [];
  for (const plan of drawPlans) {
    const settled = settledPeriods(statuses, plan);
    const touched = [deals.before, deals.after]
      .flatMap((deal) => (deal === null ? [] : [dealPeriodId(deal, plan.period, today)]))
      .filter((periodId) => settled.includes(periodId))
      .sort();
    const from = touched[0];
    if (from === undefined) continue;
    for (const rep of reps) {
      targets.push(...(await drawTargetsFrom(tx, orgId, plan, rep, from, settled, today, deals.after, org)));
    }
  }
  return targets;
}

/**
 * Before a period is locked, in the lock's transaction: settles the draw of every rep each plan with a draw covers
 * in the period. The reps' evaluation locks are taken first (the order every evaluation takes them in: rep, then
 * periods), so no deal event of theirs is half-way between reading the periods and booking.
 */
export async function settleDrawsOfPeriod(
  tx: Transaction,
  orgId: string,
  periodId: PeriodId,
  context: EvaluationContext,
): Promise<void> {
  const states = (await ledgerPlans.planStates(tx, orgId)).filter((state) => state.status === 'active');
  const versions = (await context.versions.of(tx, orgId, states)).filter(
    (plan) => hasDraw(plan) && plan.period === periodKindOf(periodId),
  );
  if (versions.length === 0) return;
  const next = nextPeriodId(periodId);
  const covers = (plan: EnginePlanVersion, rep: Rep, id: PeriodId) =>
    windowsOverlapPeriod(assignmentWindows(plan, rep.external_id), id);
  const reps = (await users.repsOfOrg(tx, orgId)).filter((rep) =>
    versions.some(
      (plan) =>
        covers(plan, rep, periodId) || (readPlanDraw(plan).draw?.in_advance === true && covers(plan, rep, next)),
    ),
  );
  if (reps.length === 0) return;
  await locks.lockRepsForEvaluation(
    tx,
    orgId,
    reps.map((rep) => rep.user_id),
  );
  const statuses = await periods.periodStatuses(tx, orgId);
  if ((statuses.get(periodId) ?? 'open') !== 'open') return;
  const today = context.today();
  const org = versions.some((plan) => overrideDepthOf(plan) > 0) ? await loadHierarchy(tx, orgId) : NO_HIERARCHY;
  const targets: LineTarget[] = [];
  // A leaver's draw follows their plan's leaver rule (docs/reps-and-payroll.md, "Pay after the leaving date").
  const books = await repQuotas.booksOfReps(
    tx,
    orgId,
    reps.map((rep) => rep.user_id),
  );
  for (const plan of versions) {
    const settled = [...settledPeriods(statuses, plan), periodId].sort();
    const { draw } = readPlanDraw(plan);
    const currency = plan.currency ?? (await orgs.loadConfig(tx, orgId)).defaultCurrency;
    if (draw?.in_advance) {
      await ledgerPlans.ensureDrawChips(tx, orgId, plan.plan_id, [
        { id: drawChipId(plan.plan_id, DRAW_CHIP_KEY), key: DRAW_CHIP_KEY },
        { id: drawChipId(plan.plan_id, DRAW_RECOVERY_CHIP_KEY), key: DRAW_RECOVERY_CHIP_KEY },
      ]);
    }
    for (const rep of reps) {
      if (covers(plan, rep, periodId)) {
        targets.push(...(await drawTargetsFrom(tx, orgId, plan, rep, periodId, settled, today, undefined, org)));
      }
      // Paid in advance: the next period's advance, booked at its start (the lock of this one) unless it is settled.
      if (draw?.in_advance && covers(plan, rep, next) && (statuses.get(next) ?? 'open') === 'open') {
        targets.push(advanceDrawTarget(plan, rep, draw, next, currency, books.get(rep.user_id)?.leaving ?? null));
      }
    }
  }

  // The lock writes earnings rows (the settled draws): it takes a feed writer slot before it stamps any, or the
  // earnings feed's horizon would not count it (feedHorizon).
  await feedWriters.joinFeedWriters(tx, orgId);
  await book(tx, {
    orgId,
    targets,
    droppedLines: [],
    triggeringDomainEventId: null,
    cause: null,
    endpoints: await webhookEndpoints.hasWebhookEndpoints(tx, orgId),
  });
}
