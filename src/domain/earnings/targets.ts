import { decimalsOf } from '../currencies.ts';
import type { CalendarDate, PeriodId } from '../periods.ts';
import { type AssignmentWindow, dealDate, isDated, windowCovers, windowsOverlapPeriod } from './assignments.ts';
import { type AttainmentCredit, creditPeriods, creditsIn } from './attainmentCredits.ts';
import { applyChipCaps, applyPlanCap } from './caps.ts';
import { withCashTerms } from './cashTerms.ts';
import { dealLine, type PeriodStanding, type PlacedDeal, periodLine } from './chipLines.ts';
import { readChipRules, readPlanCap } from './chipRules.ts';
import { type ConditionOutcome, evaluateCondition } from './conditions.ts';
import { creditedReps } from './credit.ts';
import { compareKeys, dealPeriodId, wonOrderKey } from './dealPeriods.ts';
import { EMPTY_HIERARCHY, type RepHierarchy } from './hierarchy.ts';
import { leaverSentence, repWindows } from './leavers.ts';
import { centsAsNumber, formatMoney, runningTotalOnWire } from './money.ts';
import {
  annualQuotaOf,
  type PlanYearSpan,
  planYearOf,
  planYearTrace,
  withPlanYearTraces,
  yearToDateLabel,
} from './planYear.ts';
import { withPrecedence } from './precedence.ts';
import { creditedAmountOf, type OrgMoney, pricingOf } from './pricing.ts';
import { chipReadsQuota, partialCover, proratedQuota } from './proration.ts';
import { hasOwnQuota, quotaForPeriod, type RepQuotas } from './quotas.ts';
import type { DealSnapshot, EnginePlanVersion, LineTarget, PlanProblem, Rep } from './types.ts';

// Line targets (docs/plans-and-earnings.md, Lines and targets): for every line of a rep under a plan version, the earned target
// E and the projected target F with the trace that explains them. Pure: the caller loads the deals and
// writes the rows. A line's target depends only on its deal, and for tiered and attainment chips on the
// rep's won deals in the same period, so evaluating one rep-period gives exactly the answer that
// evaluating everything would give for its lines (see `scopeOfDealChange`).

export interface EvaluationRequest {
  plan: EnginePlanVersion;
  rep: Rep;
  /**
   * The deals whose lines to evaluate, which are also what tiered and attainment chips count. For those
   * chips to be right, this must hold every deal of the rep whose period (`dealPeriodId`) is the period
   * of an evaluated deal or one of `periods`, split deals crediting the rep included. A deal that does not
   * credit the rep (owned by someone else, or split among others) gets lines with zero targets, which is
   * how a deal's former owner loses its earnings.
   */
  deals: readonly DealSnapshot[];
  /** Periods whose period-level lines (attainment bonuses) to evaluate. */
  periods: readonly PeriodId[];
  /**
   * The org's rep hierarchy, which `override` chips read; absent: nobody has a manager. For an override chip,
   * `deals` must hold the deals of the rep's reports (see `reportsEver`) whose lines to evaluate.
   */
  hierarchy?: RepHierarchy;
  /** Today's UTC date: open deals without a close date are projected in its period. */
  today: CalendarDate;
  /** The org's default currency and exchange rates; absent: every deal is in the plan's currency. */
  money?: OrgMoney;
  /** The rep's quota table under the plan and its start date (quotas.ts); absent: the plan's quota everywhere. */
  quotas?: RepQuotas;
  /**
   * The rep's manual adjustments that count toward attainment (attainmentCredits.ts): each adds to the running
   * total of its period, before the deals, in the tiered and attainment chips without a condition. Absent: none.
   */
  credits?: readonly AttainmentCredit[];
}

export interface Evaluation {
  targets: LineTarget[];
  /** Chips that cannot be evaluated as written yield no lines; their rows should be left alone. */
  problems: PlanProblem[];
}

/**
 * The lines of a rep under a plan. Each period is evaluated with the rep's own quota for it (quotas.ts: the rep's
 * quota table, else the plan's, ramped from the rep's start date), and a period that the rep's dated assignments
 * cover only in part with that quota prorated by the days covered (quota × covered days / days of the period, rounded
 * half away from zero, at least a cent): tiers in percent of quota and attainment bonuses count against it, and the
 * lines that read it say where it came from. Every line depends on its own period only, so each such period is
 * evaluated apart.
 */
export function evaluateLines(evaluated: EvaluationRequest): Evaluation {
  const request = { ...evaluated, plan: withPrecedence(evaluated.plan) };
  if (request.plan.plan_year && request.plan.period === 'monthly') return evaluatePlanYears(request);
  const { plan, rep, today } = request;
  const windows = repWindows(plan, rep.external_id, request.quotas);
  const own = hasOwnQuota(plan, request.quotas);
  const noQuota = plan.quota_cents === null || plan.quota_cents === undefined;
  if ((noQuota && !own) || (!own && !isDated(windows))) return evaluateAtQuota(request);
  const periodOf = (deal: DealSnapshot) => dealPeriodId(deal, plan.period, today);
  const planDecimals = decimalsOf(pricingOf(plan, request.money, today).plan_currency);
  const apart = new Map<PeriodId, { quota: number | null; sentences: string[] }>();
  for (const periodId of new Set([...request.periods, ...request.deals.map(periodOf)])) {
    const figure = periodQuota(plan, rep, windows, request.quotas, periodId, planDecimals);
    if (figure.sentences.length > 0) apart.set(periodId, figure);
  }
  if (apart.size === 0) return evaluateAtQuota(request);
  const readsQuota = new Set(plan.chips.filter(chipReadsQuota).map((chip) => chip.id));
  const evaluations = [
    evaluateAtQuota({
      ...request,
      deals: request.deals.filter((deal) => !apart.has(periodOf(deal))),
      periods: request.periods.filter((periodId) => !apart.has(periodId)),
    }),
    ...[...apart].map(([periodId, { quota, sentences }]) => {
      const evaluation = evaluateAtQuota({
        ...request,
        plan: { ...plan, quota_cents: quota },
        deals: request.deals.filter((deal) => periodOf(deal) === periodId),
        periods: request.periods.includes(periodId) ? [periodId] : [],
      });
      return { ...evaluation, targets: withQuotaSentences(evaluation.targets, readsQuota, sentences) };
    }),
  ];
  const position = new Map(plan.chips.map((chip, index) => [chip.id, index]));
  const seen = new Set<string>();
  return {
    targets: evaluations
      .flatMap((evaluation) => evaluation.targets)
      .sort((a, b) => (position.get(a.line.chip_id) ?? 0) - (position.get(b.line.chip_id) ?? 0)),
    problems: evaluations
      .flatMap((evaluation) => evaluation.problems)
      .filter((problem) => !seen.has(problem.path) && Boolean(seen.add(problem.path))),
  };
}

/**
 * The lines of a plan with a plan year paid monthly (planYear.ts): each plan year the request touches is evaluated
 * apart, with the rep's annual quota blended by days and running totals that count from the year's first day, so a
 * month's tiered lines take the slices of the year's bands their deals cover. The request must hold every deal of the
 * rep in the plan years of the deals and periods it evaluates (scopeOfDealChange covers the year).
 */
function evaluatePlanYears(request: EvaluationRequest): Evaluation {
  const { plan, rep, today } = request;
  const planYear = plan.plan_year as NonNullable<EnginePlanVersion['plan_year']>;
  const windows = repWindows(plan, rep.external_id, request.quotas);
  const periodOf = (deal: DealSnapshot) => dealPeriodId(deal, plan.period, today);
  const planDecimals = decimalsOf(pricingOf(plan, request.money, today).plan_currency);
  const years = new Map<string, { span: PlanYearSpan; deals: DealSnapshot[]; periods: PeriodId[] }>();
  const yearOf = (periodId: PeriodId) => {
    const span = planYearOf(planYear, periodId);
    const found = years.get(span.starts_on) ?? { span, deals: [], periods: [] };
    years.set(span.starts_on, found);
    return found;
  };
  for (const deal of request.deals) yearOf(periodOf(deal)).deals.push(deal);
  for (const periodId of new Set(request.periods)) yearOf(periodId).periods.push(periodId);
  const tiered = new Set(plan.chips.filter((chip) => chip.kind === 'tiered_commission').map((chip) => chip.id));
  const evaluations = [...years.values()].map(({ span, deals, periods }) => {
    const quota = annualQuotaOf(plan, request.quotas, windows, span);
    const evaluation = evaluateAtQuota(
      { ...request, plan: { ...plan, quota_cents: quota.quota_cents }, deals, periods },
      span,
    );
    const trace = (periodId: PeriodId) => planYearTrace(span, quota, periodId, rep.external_id, planDecimals);
    return { ...evaluation, targets: withPlanYearTraces(evaluation.targets, tiered, trace) };
  });
  const position = new Map(plan.chips.map((chip, index) => [chip.id, index]));
  const seen = new Set<string>();
  return {
    targets: evaluations
      .flatMap((evaluation) => evaluation.targets)
      .sort((a, b) => (position.get(a.line.chip_id) ?? 0) - (position.get(b.line.chip_id) ?? 0)),
    problems: evaluations
      .flatMap((evaluation) => evaluation.problems)
      .filter((problem) => !seen.has(problem.path) && Boolean(seen.add(problem.path))),
  };
}

/**
 * A plan year's running totals: each month's standing counts on from the total of the months before it in the year,
 * so that a deal's running total before it, and a month's total, are the year to date's.
 */
function yearToDateStandings(
  standings: ReadonlyMap<PeriodId, PeriodStanding>,
  span: PlanYearSpan,
): Map<PeriodId, PeriodStanding> {
  const year = new Map<PeriodId, PeriodStanding>();
  let offset = 0n;
  let counted: PeriodStanding['counted'] = [];
  for (const month of span.months) {
    const own = standings.get(month);
    const prior = new Map<string, bigint>();
    for (const [id, cents] of own?.prior_by_deal ?? []) prior.set(id, cents + offset);
    counted = [
      ...counted,
      ...(own?.counted ?? []).map((entry) => ({
        ...entry,
        running_total_cents: runningTotalOnWire(BigInt(entry.running_total_cents) + offset),
      })),
    ];
    const total = (own?.total_cents ?? 0n) + offset;
    year.set(month, {
      prior_by_deal: prior,
      total_cents: total,
      counted,
      unpriced: own?.unpriced ?? [],
      positions: own?.positions ?? new Map(),
      deal_count: own?.deal_count ?? 0,
      ...(own?.credits ? { credits: own.credits } : {}),
    });
    offset = total;
  }
  return year;
}

/**
 * The quota a period of the rep is evaluated with, and the sentences that say where it came from: the rep's own
 * quota (when the rep has one, see hasOwnQuota), prorated when the rep's windows cover only part of the period. No
 * sentences: the plan's quota as it is.
 */
export function periodQuota(
  plan: EnginePlanVersion,
  rep: Rep,
  windows: readonly AssignmentWindow[],
  quotas: RepQuotas | undefined,
  periodId: PeriodId,
  planDecimals: number,
): { quota: number | null; sentences: string[] } {
  const sentences: string[] = [];
  let quota = plan.quota_cents ?? null;
  if (hasOwnQuota(plan, quotas)) {
    const figure = quotaForPeriod(plan, quotas, periodId, planDecimals);
    quota = figure.quota_cents;
    sentences.push(figure.explanation);
  }
  const cover = quota === null ? null : partialCover(windows, periodId);
  if (quota !== null && cover) {
    const { covered, days } = cover;
    const prorated = proratedQuota(BigInt(quota), covered, days);
    sentences.push(
      `${rep.external_id} is assigned to plan ${plan.plan_key} for ${covered} of the ${days} days of ${periodId}, so the quota is prorated: ${formatMoney(BigInt(quota), planDecimals)} × ${covered} / ${days}, rounded half away from zero, is ${formatMoney(prorated, planDecimals)}.`,
    );
    quota = centsAsNumber(prorated);
  }
  return { quota, sentences };
}

/** The targets, with the sentences saying where the quota came from first in the lines of chips that read it. */
export function withQuotaSentences(
  targets: readonly LineTarget[],
  readsQuota: ReadonlySet<string>,
  sentences: readonly string[],
): LineTarget[] {
  return targets.map((target) =>
    readsQuota.has(target.line.chip_id)
      ? { ...target, trace: { ...target.trace, explanation: [...sentences, ...target.trace.explanation] } }
      : target,
  );
}

function evaluateAtQuota(request: EvaluationRequest, year?: PlanYearSpan): Evaluation {
  const { plan, rep, today } = request;
  const windows = repWindows(plan, rep.external_id, request.quotas);
  const leaving = request.quotas?.leaving;
  const leaver = leaving ? leaverSentence(plan, rep.external_id, leaving) : null;
  const covers = (deal: DealSnapshot) => windows.some((window) => windowCovers(window, dealDate(deal, today)));
  const dealsById = new Map(request.deals.map((deal) => [deal.id, deal]));
  const placed: PlacedDeal[] = [...dealsById.values()].map((deal) => ({
    deal,
    period_id: dealPeriodId(deal, plan.period, today),
    owned: creditedReps(deal).includes(rep.external_id),
  }));
  const pricing = pricingOf(plan, request.money, today);
  const planCap = readPlanCap(plan);
  const problems: PlanProblem[] = [...planCap.problems];
  const targets: LineTarget[] = [];
  if (planCap.problems.length > 0) return { targets, problems };

  plan.chips.forEach((chip, index) => {
    const reading = readChipRules(chip, plan, `chips[${index}]`);
    if (reading.rules === null) {
      problems.push(...reading.problems);
      return;
    }
    const rules = reading.rules;
    const conditionOutcomes = new Map<string, ConditionOutcome>();
    const conditionOf = (deal: DealSnapshot): ConditionOutcome | null => {
      if (chip.when === null) return null;
      let outcome = conditionOutcomes.get(deal.id);
      if (!outcome) {
        outcome = evaluateCondition(chip.when, deal);
        conditionOutcomes.set(deal.id, outcome);
      }
      return outcome;
    };
    const matches = (deal: DealSnapshot) => conditionOf(deal)?.result ?? true;

    let standings = new Map<PeriodId, PeriodStanding>();
    if (rules.kind === 'tiered_commission' || rules.kind === 'attainment_bonus') {
      // Adjustments that count toward attainment start the period's running total, before its deals.
      if (chip.when === null) {
        for (const periodId of creditPeriods(request.credits, plan.period)) {
          if (!windowsOverlapPeriod(windows, periodId)) continue;
          const credits = creditsIn(request.credits, plan.period, pricing, periodId);
          standings.set(periodId, {
            prior_by_deal: new Map(),
            total_cents: credits.total_cents,
            counted: [],
            unpriced: [],
            positions: new Map(),
            deal_count: 0,
            credits,
          });
        }
      }
      const counted = placed
        .filter(({ deal, owned }) => owned && deal.status === 'won' && covers(deal) && matches(deal))
        .map((entry) => ({ ...entry, order: wonOrderKey(entry.deal) }))
        .sort((a, b) => compareKeys(a.order, b.order));
      for (const { deal, period_id } of counted) {
        const standing: PeriodStanding = standings.get(period_id) ?? {
          prior_by_deal: new Map(),
          total_cents: 0n,
          counted: [],
          unpriced: [],
          positions: new Map(),
          deal_count: 0,
        };
        standings.set(period_id, standing);
        const credited = creditedAmountOf(deal, rep.external_id, pricing);
        if (credited === null) {
          standing.unpriced.push(deal.external_id);
          continue;
        }
        standing.prior_by_deal.set(deal.id, standing.total_cents);
        standing.total_cents += credited;
        standing.deal_count += 1;
        standing.positions.set(deal.id, standing.deal_count);
        standing.counted.push({
          id: deal.id,
          external_id: deal.external_id,
          amount_cents: centsAsNumber(credited),
          close_date: deal.close_date,
          running_total_cents: runningTotalOnWire(standing.total_cents),
        });
      }
    }
    if (year && rules.kind === 'tiered_commission') standings = yearToDateStandings(standings, year);
    const hierarchy = request.hierarchy ?? EMPTY_HIERARCHY;
    const countedOver = year && ((periodId: PeriodId) => yearToDateLabel(year, periodId));
    const evaluation = {
      ...{ plan, chip, rules, rep, windows, leaver, today, standings, conditionOf, pricing, hierarchy },
      ...(countedOver ? { countedOver } : {}),
    };

    if (rules.kind === 'attainment_bonus') {
      for (const periodId of new Set(request.periods)) targets.push(periodLine(evaluation, rules, periodId));
    } else {
      const lines = placed.map((dealInPeriod) => dealLine(evaluation, rules, dealInPeriod));
      targets.push(...applyChipCaps(lines, rules.caps));
    }
  });
  const capped = planCap.cap === null ? targets : applyPlanCap(plan, targets, planCap.cap);
  const priced = capped.map((target) => ({ ...target, currency: pricing.plan_currency }));
  // Chips paid on cash hold part of each line after every cap, and release it as the customer pays.
  return { targets: withCashTerms(plan, priced), problems };
}
