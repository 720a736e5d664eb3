import { decimalsOf } from '../currencies.ts';
import type { CalendarDate, PeriodId } from '../periods.ts';
import {
  type AssignmentWindow,
  assignmentWindows,
  dealDate,
  describeWindows,
  isDated,
  windowCovers,
  windowsOverlapPeriod,
} from './assignments.ts';
import { creditSentences, type PeriodCredits } from './attainmentCredits.ts';
import type { ChipRules, CountTierRules } from './chipRules.ts';
import { type Computation, computeAttainmentBonus, computeCommission, computeFlat } from './chips.ts';
import type { ConditionOutcome } from './conditions.ts';
import { creditedPart, creditedReps, isSplit } from './credit.ts';
import { hierarchyDayOf, type RepHierarchy } from './hierarchy.ts';
import { lineRef } from './lineKeys.ts';
import {
  conditionSentences,
  namingCountedDeals,
  roundInto,
  traceOf,
  whereDealCounts,
  zeroTarget,
} from './lineTrace.ts';
import { type AmountDecimals, centsAsNumber } from './money.ts';
import { computeOverride, type OverrideReport, overrideReportsOf } from './overrideChip.ts';
import { replacementSentences } from './precedence.ts';
import { amountOf, dealCurrencyOf, isPriced, type Pricing, priceIn } from './pricing.ts';
import { computeCountTiered, computeTiered } from './tieredChip.ts';
import type {
  DealSnapshot,
  EngineChip,
  EnginePlanVersion,
  LineTarget,
  Rep,
  TraceCountedDeal,
  TraceStep,
} from './types.ts';

// The lines of one chip for one rep: a line per deal, or per period for an attainment bonus, each with its trace.

/** A period's won deals for one chip, in counting order, with each deal's running total before it. */
export interface PeriodStanding {
  prior_by_deal: Map<string, bigint>;
  total_cents: bigint;
  /** The deals counted, in order, with the running total after each: what the traces name. */
  counted: TraceCountedDeal[];
  /** Won deals left out of the count because no exchange rate converts them (external ids). */
  unpriced: string[];
  /** Each counted deal's number in the count, from 1, as bands in `up_to_deals` read it. */
  positions: Map<string, number>;
  /** How many deals are counted (adjustments count toward the amount, never as deals). */
  deal_count: number;
  /** Manual adjustments counted toward attainment before the deals (attainmentCredits.ts); absent: none. */
  credits?: PeriodCredits;
}

export interface PlacedDeal {
  deal: DealSnapshot;
  period_id: PeriodId;
  /** The deal credits the rep: the rep owns it and it has no splits, or its splits name the rep. */
  owned: boolean;
}

export interface ChipEvaluation {
  plan: EnginePlanVersion;
  chip: EngineChip;
  rep: Rep;
  /** The rep's assignment windows in the plan; none when the rep is not assigned. */
  windows: AssignmentWindow[];
  /** For a rep who has left, the sentence naming their leaving date and the plan's leaver rule (leavers.ts). */
  leaver?: string | null;
  today: CalendarDate;
  standings: Map<PeriodId, PeriodStanding>;
  conditionOf: (deal: DealSnapshot) => ConditionOutcome | null;
  pricing: Pricing;
  hierarchy: RepHierarchy;
  /** In a plan year: what a month's running total counts over (planYear.ts, yearToDateLabel). */
  countedOver?: (periodId: PeriodId) => string;
}

/**
 * The sentences on the adjustments counted toward attainment, then the one naming the won deals a running total
 * leaves out for want of an exchange rate.
 */
function unpricedSentence(standing: PeriodStanding | undefined, periodId: PeriodId, planCurrency: string): string[] {
  const credits = standing?.credits ? creditSentences(standing.credits, periodId, planCurrency) : [];
  const unpriced = standing?.unpriced ?? [];
  if (unpriced.length === 0) return credits;
  return [
    ...credits,
    `Not counted in ${periodId} until an exchange rate converts them: ${unpriced.map((id) => `deal ${id}`).join(', ')}.`,
  ];
}

export function dealLine(
  evaluation: ChipEvaluation,
  rules: ChipRules,
  { deal, period_id, owned }: PlacedDeal,
): LineTarget {
  const { plan, chip, rep, windows } = evaluation;
  const steps: TraceStep[] = [];
  const explanation: string[] = evaluation.leaver ? [evaluation.leaver] : [];
  let target = 0n;
  let unpriced = false;
  const date = dealDate(deal, evaluation.today);
  const covered = windows.some((window) => windowCovers(window, date));
  // An override line is the manager's on the deals of their reports, not on the manager's own deals.
  const override =
    rules.kind === 'override'
      ? overrideOf(deal, rep.external_id, evaluation.hierarchy, hierarchyDayOf(deal, evaluation.today), rules.depth)
      : null;

  if (override && override.reports.length === 0) {
    const credited = creditedReps(deal);
    steps.push(zeroTarget('not_a_report'));
    explanation.push(
      `On ${override.day}, ${credited.length === 0 ? `deal ${deal.external_id} credits no one` : `deal ${deal.external_id} credits ${credited.join(', ')}`}, none of whom reports to ${rep.external_id}${rules.kind === 'override' && rules.depth > 1 ? ` within ${rules.depth} levels` : ''}, so this override earns nothing.`,
    );
  } else if (!override && !owned && isSplit(deal)) {
    const credited = creditedReps(deal).join(', ');
    steps.push(zeroTarget('not_owner'));
    explanation.push(
      `Deal ${deal.external_id} is split among ${credited}, not crediting ${rep.external_id}, so this line earns nothing.`,
    );
  } else if (!override && !owned) {
    const owner = deal.owner_external_id === null ? 'has no owner' : `is owned by ${deal.owner_external_id}`;
    steps.push(zeroTarget('not_owner'));
    explanation.push(`Deal ${deal.external_id} ${owner}, not by ${rep.external_id}, so this line earns nothing.`);
  } else if (windows.length === 0) {
    steps.push(zeroTarget(leftOrUnassigned(evaluation, (uncut) => uncut.length > 0)));
    if (!evaluation.leaver) {
      explanation.push(`${rep.external_id} is not assigned to plan ${plan.plan_key}, so this line earns nothing.`);
    }
  } else if (!covered) {
    steps.push(zeroTarget(leftOrUnassigned(evaluation, (uncut) => uncut.some((window) => windowCovers(window, date)))));
    explanation.push(
      `${rep.external_id} is assigned to plan ${plan.plan_key} ${describeWindows(windows)}; deal ${deal.external_id} is dated ${date}, outside that, so this line earns nothing.`,
    );
  } else {
    if (isDated(windows)) {
      explanation.push(
        `${rep.external_id} is assigned to plan ${plan.plan_key} ${describeWindows(windows)}; deal ${deal.external_id} is dated ${date}, inside that.`,
      );
    }
    explanation.push(whereDealCounts(deal, period_id));
    const outcome = deal.status === 'won' || deal.status === 'open' ? evaluation.conditionOf(deal) : null;
    if (outcome && chip.when) {
      steps.push({ type: 'condition', expression: chip.when, inputs: outcome.inputs, result: outcome.result });
      explanation.push(...conditionSentences(outcome));
      if (!outcome.result) explanation.push(...replacementSentences(chip, deal));
    }
    if (deal.status === 'lost' || deal.status === 'deleted') {
      steps.push(zeroTarget(deal.status === 'lost' ? 'deal_lost' : 'deal_deleted'));
    } else if (!(outcome?.result ?? true)) {
      steps.push(zeroTarget('not_matching'));
    } else if (rules.kind !== 'flat' && !isPriced(evaluation.pricing, deal)) {
      // A flat amount is in the plan's currency already; every other chip needs the deal's amount converted.
      const missing = priceIn(evaluation.pricing, deal, 0n);
      steps.push(missing.step as TraceStep);
      explanation.push(missing.sentence as string);
      unpriced = true;
    } else {
      target = roundInto(
        computeDealChip(evaluation, rules, deal, period_id, override),
        steps,
        explanation,
        decimalsOf(evaluation.pricing.plan_currency),
      );
    }
  }
  return {
    line: lineRef(plan, chip, rep, deal.id, null),
    plan_version_id: plan.version_id,
    rule_version: chip.version,
    earned_cents: deal.status === 'won' ? centsAsNumber(target) : 0,
    projected_cents: deal.status === 'open' ? centsAsNumber(target) : 0,
    period_id,
    trace: traceOf(plan, chip, deal, steps, explanation),
    currency: evaluation.pricing.plan_currency,
    ...(unpriced ? { pricing: 'missing_exchange_rate' as const } : {}),
  };
}

function computeDealChip(
  evaluation: ChipEvaluation,
  rules: ChipRules,
  deal: DealSnapshot,
  periodId: PeriodId,
  override: { reports: OverrideReport[]; day: CalendarDate } | null,
): Computation {
  const toPlanCurrency = (cents: bigint) => {
    const priced = priceIn(evaluation.pricing, deal, cents);
    return priced.priced ? priced : { cents, step: null, sentence: null };
  };
  const decimals = {
    deal: decimalsOf(dealCurrencyOf(deal, evaluation.pricing)),
    plan: decimalsOf(evaluation.pricing.plan_currency),
  };
  switch (rules.kind) {
    case 'override':
      return computeOverride(
        deal,
        rules,
        evaluation.rep.external_id,
        override?.reports ?? [],
        override?.day ?? '',
        toPlanCurrency,
        decimals,
      );
    case 'commission':
      return computeCommission(deal, rules, evaluation.rep.external_id, toPlanCurrency, decimals);
    case 'flat':
      return computeFlat(rules, deal, evaluation.rep.external_id, decimals);
    case 'tiered_commission': {
      if (rules.basis === 'deal_count') return computeCountChip(evaluation, rules, deal, periodId, decimals);
      const standing = evaluation.standings.get(periodId);
      const wonTotal = standing?.total_cents ?? 0n;
      const projected = deal.status !== 'won';
      const part = creditedPart(deal, evaluation.rep.external_id, amountOf(deal), 'the amount', decimals.deal);
      const priced = priceIn(evaluation.pricing, deal, part.cents);
      const converted = priced.priced ? priced.cents : part.cents;
      // A projection counts the open deal as if it were won next, after every deal already won.
      const prior = projected ? wonTotal : (standing?.prior_by_deal.get(deal.id) ?? 0n);
      const periodTotal = projected ? wonTotal + converted : wonTotal;
      const cumulative = {
        prior_cents: prior,
        period_cents: periodTotal,
        rep_external_id: evaluation.rep.external_id,
        period_id: evaluation.countedOver?.(periodId) ?? periodId,
        projected,
      };
      const credit = part.step && { whole_cents: amountOf(deal), step: part.step, explanation: part.explanation };
      const conversion = priced.priced && priced.step && priced.sentence ? priced : undefined;
      const computation = computeTiered(
        converted,
        cumulative,
        rules,
        evaluation.plan.quota_cents,
        credit ?? undefined,
        conversion && {
          step: conversion.step as TraceStep & { type: 'conversion' },
          sentence: conversion.sentence as string,
        },
        priced.priced ? decimals.plan : decimals.deal,
      );
      // A per-deal line depends on its deal alone: no other deal or credit of the period is part of its sum.
      if (rules.basis === 'per_deal') return computation;
      const named = namingCountedDeals(
        computation,
        countedDealsOfLine(standing?.counted ?? [], deal.id),
        standing?.credits?.counted,
      );
      return {
        ...named,
        explanation: [...named.explanation, ...unpricedSentence(standing, periodId, evaluation.pricing.plan_currency)],
      };
    }
    case 'attainment_bonus':
      throw new TypeError('an attainment bonus is a period-level line');
  }
}

/** A tier line counted in deals: the deal's number in the period's count (a projection: as if won next). */
function computeCountChip(
  evaluation: ChipEvaluation,
  rules: CountTierRules,
  deal: DealSnapshot,
  periodId: PeriodId,
  decimals: AmountDecimals,
): Computation {
  const standing = evaluation.standings.get(periodId);
  const counted = standing?.deal_count ?? 0;
  const projected = deal.status !== 'won';
  const part = creditedPart(deal, evaluation.rep.external_id, amountOf(deal), 'the amount', decimals.deal);
  const priced = priceIn(evaluation.pricing, deal, part.cents);
  const credit = part.step && { whole_cents: amountOf(deal), step: part.step, explanation: part.explanation };
  const conversion = priced.priced && priced.step && priced.sentence ? priced : undefined;
  const computation = computeCountTiered(
    priced.priced ? priced.cents : part.cents,
    {
      position: projected ? counted + 1 : (standing?.positions.get(deal.id) ?? 1),
      period_deals: projected ? counted + 1 : counted,
      rep_external_id: evaluation.rep.external_id,
      period_id: periodId,
      projected,
    },
    rules,
    credit ?? undefined,
    conversion && {
      step: conversion.step as TraceStep & { type: 'conversion' },
      sentence: conversion.sentence as string,
    },
    priced.priced ? decimals.plan : decimals.deal,
  );
  const named = namingCountedDeals(computation, countedDealsOfLine(standing?.counted ?? [], deal.id));
  return {
    ...named,
    // Adjustments count toward the amount won, never as deals: the count names only the unpriced deals it leaves out.
    explanation: [
      ...named.explanation,
      ...unpricedSentence(standing && { ...standing, credits: undefined }, periodId, evaluation.pricing.plan_currency),
    ],
  };
}

/**
 * A period's tiered lines each list every deal of the period's count while it holds at most COUNTED_DEALS_LISTED;
 * past that, a deal's line names its own place in the count, as a line decided from the running totals does (docs/
 * plans-and-earnings.md): the deal counted just before it (whose running total is `prior_won_cents`, and whose own
 * line names the deal before it) and the deal itself; an open deal's projection names the deal counted last. So a
 * period's lines hold its count once per line only while it is small, never the period's deals once per deal
 * (with 40 deals a period, 40 times 40 entries of ~150 bytes each), and each line is still recomputed by hand by
 * following the chain, or from the rep's won deals of the period. The period's attainment bonus, one line, lists
 * them all.
 */
export const COUNTED_DEALS_LISTED = 20;

export function countedDealsOfLine(counted: TraceCountedDeal[], dealId: string): TraceCountedDeal[] {
  if (counted.length <= COUNTED_DEALS_LISTED) return counted;
  const at = counted.findIndex((entry) => entry.id === dealId);
  if (at === -1) return counted.slice(-1);
  return counted.slice(Math.max(0, at - 1), at + 1);
}

function overrideOf(
  deal: DealSnapshot,
  manager: string,
  hierarchy: RepHierarchy,
  day: CalendarDate,
  depth: number,
): { reports: OverrideReport[]; day: CalendarDate } {
  return { reports: overrideReportsOf(deal, manager, hierarchy, day, depth), day };
}

/**
 * Why a line the rep's windows leave out earns nothing: `leaver` when the rep has left and their assignment before the
 * leaver rule's cut would have paid it (`paidUncut` asks that of the uncut windows), else `not_assigned`.
 */
function leftOrUnassigned(
  evaluation: ChipEvaluation,
  paidUncut: (uncut: AssignmentWindow[]) => boolean,
): 'leaver' | 'not_assigned' {
  if (!evaluation.leaver) return 'not_assigned';
  return paidUncut(assignmentWindows(evaluation.plan, evaluation.rep.external_id)) ? 'leaver' : 'not_assigned';
}

export function periodLine(
  evaluation: ChipEvaluation,
  rules: ChipRules & { kind: 'attainment_bonus' },
  periodId: PeriodId,
): LineTarget {
  const { plan, chip, rep, windows } = evaluation;
  const steps: TraceStep[] = [];
  const explanation: string[] = evaluation.leaver ? [evaluation.leaver] : [];
  let target = 0n;
  if (!windowsOverlapPeriod(windows, periodId)) {
    steps.push(zeroTarget(leftOrUnassigned(evaluation, (uncut) => windowsOverlapPeriod(uncut, periodId))));
    explanation.push(
      windows.length === 0 && evaluation.leaver
        ? 'So this line earns nothing.'
        : windows.length === 0
          ? `${rep.external_id} is not assigned to plan ${plan.plan_key}, so this line earns nothing.`
          : `${rep.external_id} is assigned to plan ${plan.plan_key} ${describeWindows(windows)}, not during ${periodId}, so this line earns nothing.`,
    );
  } else {
    if (isDated(windows)) {
      explanation.push(
        `${rep.external_id} is assigned to plan ${plan.plan_key} ${describeWindows(windows)}; only deals dated inside that count.`,
      );
    }
    if (chip.when !== null) explanation.push("Only won deals that meet the chip's condition count toward attainment.");
    const standing = evaluation.standings.get(periodId);
    const attained = standing?.total_cents ?? 0n;
    const decimals = decimalsOf(evaluation.pricing.plan_currency);
    const computed = computeAttainmentBonus(
      attained,
      BigInt(plan.quota_cents ?? 0),
      rules,
      rep.external_id,
      periodId,
      decimals,
    );
    computed.explanation.push(...unpricedSentence(standing, periodId, evaluation.pricing.plan_currency));
    target = roundInto(
      namingCountedDeals(computed, standing?.counted ?? [], standing?.credits?.counted),
      steps,
      explanation,
      decimals,
    );
  }
  return {
    line: lineRef(plan, chip, rep, null, periodId),
    plan_version_id: plan.version_id,
    rule_version: chip.version,
    earned_cents: centsAsNumber(target),
    projected_cents: 0,
    period_id: periodId,
    trace: traceOf(plan, chip, null, steps, explanation),
    currency: evaluation.pricing.plan_currency,
  };
}
