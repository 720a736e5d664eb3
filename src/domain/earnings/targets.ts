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
import { type CapScope, type Cut, capTrace, cutAfter, cutToCap, floorTrace } from './caps.ts';
import {
  type ChipCaps,
  type ChipRules,
  type Computation,
  computeAttainmentBonus,
  computeCommission,
  computeFlat,
  computeOverride,
  computeTiered,
  type OverrideReport,
  overrideReportsOf,
  readChipRules,
  readPlanCap,
} from './chips.ts';
import { type ConditionOutcome, evaluateCondition } from './conditions.ts';
import { creditedPart, creditedReps, isSplit } from './credit.ts';
import { compareKeys, dealPeriodId, wonOrderKey } from './dealPeriods.ts';
import { EMPTY_HIERARCHY, hierarchyDayOf, type RepHierarchy } from './hierarchy.ts';
import { lineRef } from './lineKeys.ts';
import {
  conditionSentences,
  namingCountedDeals,
  roundInto,
  traceOf,
  whereDealCounts,
  zeroTarget,
} from './lineTrace.ts';
import { centsAsNumber, formatMoney, runningTotalOnWire } from './money.ts';
import {
  amountOf,
  creditedAmountOf,
  dealCurrencyOf,
  isPriced,
  type OrgMoney,
  type Pricing,
  priceIn,
  pricingOf,
} from './pricing.ts';
import { chipReadsQuota, partialCover, proratedQuota } from './proration.ts';
import type {
  DealSnapshot,
  EngineChip,
  EnginePlanVersion,
  LineTarget,
  PlanProblem,
  Rep,
  TraceCountedDeal,
  TraceStep,
} from './types.ts';

// Line targets (docs/plans-and-earnings.md, Lines and targets): for every line of a rep under a plan version, the earned target
// E and the projected target F with the trace that explains them. Pure: the caller loads the deals and
// writes the rows. A line's target depends only on its deal, and for tiered and attainment chips on the
// rep's won deals in the same period, so evaluating one rep-period gives exactly the answer that
// evaluating everything would give for its lines (see `scopeOfDealChange`).

/** A period's won deals for one chip, in counting order, with each deal's running total before it. */
interface PeriodStanding {
  prior_by_deal: Map<string, bigint>;
  total_cents: bigint;
  /** The deals counted, in order, with the running total after each: what the traces name. */
  counted: TraceCountedDeal[];
  /** Won deals left out of the count because no exchange rate converts them (external ids). */
  unpriced: string[];
}

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
}

export interface Evaluation {
  targets: LineTarget[];
  /** Chips that cannot be evaluated as written yield no lines; their rows should be left alone. */
  problems: PlanProblem[];
}

interface PlacedDeal {
  deal: DealSnapshot;
  period_id: PeriodId;
  /** The deal credits the rep: the rep owns it and it has no splits, or its splits name the rep. */
  owned: boolean;
}

/**
 * The lines of a rep under a plan. A period that the rep's dated assignments cover only in part is evaluated with
 * the quota prorated by the days covered (quota × covered days / days of the period, rounded half away from zero,
 * at least a cent): tiers in percent of quota and attainment bonuses count against the prorated quota, and the
 * lines that read it say so. Every line depends on its own period only, so each such period is evaluated apart.
 */
export function evaluateLines(request: EvaluationRequest): Evaluation {
  const { plan, rep, today } = request;
  const quota = plan.quota_cents;
  const windows = assignmentWindows(plan, rep.external_id);
  if (quota === null || quota === undefined || !isDated(windows)) return evaluateAtQuota(request);
  const periodOf = (deal: DealSnapshot) => dealPeriodId(deal, plan.period, today);
  const partial = new Map<PeriodId, { covered: number; days: number }>();
  for (const periodId of new Set([...request.periods, ...request.deals.map(periodOf)])) {
    const cover = partialCover(windows, periodId);
    if (cover) partial.set(periodId, cover);
  }
  if (partial.size === 0) return evaluateAtQuota(request);
  const planDecimals = decimalsOf(pricingOf(plan, request.money, today).plan_currency);
  const evaluations = [
    evaluateAtQuota({
      ...request,
      deals: request.deals.filter((deal) => !partial.has(periodOf(deal))),
      periods: request.periods.filter((periodId) => !partial.has(periodId)),
    }),
    ...[...partial].map(([periodId, { covered, days }]) => {
      const prorated = proratedQuota(BigInt(quota), covered, days);
      const evaluation = evaluateAtQuota({
        ...request,
        plan: { ...plan, quota_cents: centsAsNumber(prorated) },
        deals: request.deals.filter((deal) => periodOf(deal) === periodId),
        periods: request.periods.includes(periodId) ? [periodId] : [],
      });
      const sentence = `${rep.external_id} is assigned to plan ${plan.plan_key} for ${covered} of the ${days} days of ${periodId}, so the quota is prorated: ${formatMoney(BigInt(quota), planDecimals)} × ${covered} / ${days}, rounded half away from zero, is ${formatMoney(prorated, planDecimals)}.`;
      const readsQuota = new Set(plan.chips.filter(chipReadsQuota).map((chip) => chip.id));
      return {
        ...evaluation,
        targets: evaluation.targets.map((target) =>
          readsQuota.has(target.line.chip_id)
            ? { ...target, trace: { ...target.trace, explanation: [sentence, ...target.trace.explanation] } }
            : target,
        ),
      };
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

function evaluateAtQuota(request: EvaluationRequest): Evaluation {
  const { plan, rep, today } = request;
  const windows = assignmentWindows(plan, rep.external_id);
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

    const standings = new Map<PeriodId, PeriodStanding>();
    if (rules.kind === 'tiered_commission' || rules.kind === 'attainment_bonus') {
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
        };
        standings.set(period_id, standing);
        const credited = creditedAmountOf(deal, rep.external_id, pricing);
        if (credited === null) {
          standing.unpriced.push(deal.external_id);
          continue;
        }
        standing.prior_by_deal.set(deal.id, standing.total_cents);
        standing.total_cents += credited;
        standing.counted.push({
          id: deal.id,
          external_id: deal.external_id,
          amount_cents: centsAsNumber(credited),
          close_date: deal.close_date,
          running_total_cents: runningTotalOnWire(standing.total_cents),
        });
      }
    }
    const hierarchy = request.hierarchy ?? EMPTY_HIERARCHY;
    const evaluation = { plan, chip, rules, rep, windows, today, standings, conditionOf, pricing, hierarchy };

    if (rules.kind === 'attainment_bonus') {
      for (const periodId of new Set(request.periods)) targets.push(periodLine(evaluation, rules, periodId));
    } else {
      const lines = placed.map((dealInPeriod) => dealLine(evaluation, rules, dealInPeriod));
      targets.push(...applyChipCaps(lines, rules.caps));
    }
  });
  const capped = planCap.cap === null ? targets : applyPlanCap(plan, targets, planCap.cap);
  return { targets: capped.map((target) => ({ ...target, currency: pricing.plan_currency })), problems };
}

/** The line's amount (earned for a won deal or a period line, projected for an open deal) and its kind. */
function amountOfLine(target: LineTarget): { cents: bigint; projected: boolean } {
  const projected = target.projected_cents !== 0;
  return { cents: BigInt(projected ? target.projected_cents : target.earned_cents), projected };
}

/** The line with a cap applied: the new amount, and the cap's step and sentence added to its trace. */
function capped(target: LineTarget, scope: CapScope, capCents: bigint, cut: Cut): LineTarget {
  const { step, sentence } = capTrace(scope, capCents, cut, target.period_id, decimalsOf(target.currency));
  const { projected } = amountOfLine(target);
  const amount = centsAsNumber(cut.amount);
  return {
    ...target,
    earned_cents: projected ? 0 : amount,
    projected_cents: projected ? amount : 0,
    trace: {
      ...target.trace,
      steps: [...target.trace.steps, step],
      explanation: [...target.trace.explanation, sentence],
    },
  };
}

/** Counting order of lines in a period: deals by wonOrderKey, period-level lines after them. */
function lineOrderKey(target: LineTarget): string[] {
  return target.trace.deal === null ? ['\uffff'] : wonOrderKey(target.trace.deal);
}

/**
 * Cuts lines, per period, to a cap they share: the won lines in counting order (`order` breaks ties, e.g.
 * chip order), then each projection with what the won lines left. Lines that pay nothing are left alone.
 */
function cutPeriods(
  targets: readonly LineTarget[],
  cap: bigint,
  scope: CapScope,
  order: (target: LineTarget) => string[],
): LineTarget[] {
  const result = [...targets];
  const byPeriod = new Map<PeriodId, number[]>();
  result.forEach((target, index) => {
    if (amountOfLine(target).cents === 0n) return;
    byPeriod.set(target.period_id, [...(byPeriod.get(target.period_id) ?? []), index]);
  });
  for (const indexes of byPeriod.values()) {
    const earned = indexes
      .filter((index) => !amountOfLine(result[index] as LineTarget).projected)
      .sort((a, b) => compareKeys(order(result[a] as LineTarget), order(result[b] as LineTarget)) || a - b);
    const cuts = cutToCap(
      earned.map((index) => amountOfLine(result[index] as LineTarget).cents),
      cap,
    );
    let used = 0n;
    earned.forEach((index, position) => {
      const cut = cuts[position] as Cut;
      used += cut.amount;
      result[index] = capped(result[index] as LineTarget, scope, cap, cut);
    });
    for (const index of indexes.filter((candidate) => !earned.includes(candidate))) {
      const target = result[index] as LineTarget;
      result[index] = capped(target, scope, cap, cutAfter(amountOfLine(target).cents, cap, used));
    }
  }
  return result;
}

/** Whether a line's chip applies to its won deal (computed, whatever the amount): what a floor can top up. */
function paysOnWonDeal(target: LineTarget): boolean {
  return (
    target.trace.deal?.status === 'won' &&
    target.trace.steps.some((step) => step.type === 'rounding') &&
    !target.trace.steps.some((step) => step.type === 'zero_target')
  );
}

/**
 * A chip's floor on its lines of one rep, per period: when the period's won lines the chip applies to pay less
 * than the floor, the last of them in counting order is topped up by the difference. A period without such a
 * line has no floor (a guarantee for periods without deals is the plan's draw).
 */
function raiseToFloor(targets: readonly LineTarget[], floor: bigint): LineTarget[] {
  const result = [...targets];
  const byPeriod = new Map<PeriodId, number[]>();
  result.forEach((target, index) => {
    if (paysOnWonDeal(target)) byPeriod.set(target.period_id, [...(byPeriod.get(target.period_id) ?? []), index]);
  });
  for (const indexes of byPeriod.values()) {
    const ordered = indexes.sort((a, b) =>
      compareKeys(lineOrderKey(result[a] as LineTarget), lineOrderKey(result[b] as LineTarget)),
    );
    const total = ordered.reduce((sum, index) => sum + BigInt((result[index] as LineTarget).earned_cents), 0n);
    const last = ordered.at(-1);
    if (last === undefined || total >= floor) continue;
    const target = result[last] as LineTarget;
    const before = BigInt(target.earned_cents);
    const { step, sentence } = floorTrace(
      floor,
      total,
      before,
      before + floor - total,
      target.period_id,
      decimalsOf(target.currency),
    );
    result[last] = {
      ...target,
      earned_cents: centsAsNumber(before + floor - total),
      trace: {
        ...target.trace,
        steps: [...target.trace.steps, step],
        explanation: [...target.trace.explanation, sentence],
      },
    };
  }
  return result;
}

/**
 * A chip's caps and floor on its lines of one rep: each deal's cap on its own, then each period's lines
 * together, the floor before the period cap.
 */
function applyChipCaps(lines: LineTarget[], caps: ChipCaps) {
  let result = lines;
  const dealCap = caps.deal_cents;
  if (dealCap !== null) {
    result = result.map((target) => {
      const { cents } = amountOfLine(target);
      return cents === 0n ? target : capped(target, 'deal', dealCap, cutAfter(cents, dealCap, 0n));
    });
  }
  if (caps.floor_cents !== null) result = raiseToFloor(result, caps.floor_cents);
  if (caps.period_cents !== null) result = cutPeriods(result, caps.period_cents, 'period', lineOrderKey);
  return result;
}

/** The plan's cap over every chip's lines of the rep, per period: deals in counting order, chips in plan order. */
function applyPlanCap(plan: EnginePlanVersion, targets: LineTarget[], cap: bigint): LineTarget[] {
  const chipIndex = new Map(plan.chips.map((chip, index) => [chip.id, String(index).padStart(4, '0')]));
  return cutPeriods(targets, cap, 'plan', (target) => [
    ...lineOrderKey(target),
    chipIndex.get(target.line.chip_id) ?? '',
  ]);
}

interface ChipEvaluation {
  plan: EnginePlanVersion;
  chip: EngineChip;
  rep: Rep;
  /** The rep's assignment windows in the plan; none when the rep is not assigned. */
  windows: AssignmentWindow[];
  today: CalendarDate;
  standings: Map<PeriodId, PeriodStanding>;
  conditionOf: (deal: DealSnapshot) => ConditionOutcome | null;
  pricing: Pricing;
  hierarchy: RepHierarchy;
}

/** The sentence naming the won deals a running total leaves out for want of an exchange rate. */
function unpricedSentence(standing: PeriodStanding | undefined, periodId: PeriodId): string[] {
  const unpriced = standing?.unpriced ?? [];
  if (unpriced.length === 0) return [];
  return [
    `Not counted in ${periodId} until an exchange rate converts them: ${unpriced.map((id) => `deal ${id}`).join(', ')}.`,
  ];
}

function dealLine(evaluation: ChipEvaluation, rules: ChipRules, { deal, period_id, owned }: PlacedDeal): LineTarget {
  const { plan, chip, rep, windows } = evaluation;
  const steps: TraceStep[] = [];
  const explanation: string[] = [];
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
    steps.push(zeroTarget('not_assigned'));
    explanation.push(`${rep.external_id} is not assigned to plan ${plan.plan_key}, so this line earns nothing.`);
  } else if (!covered) {
    steps.push(zeroTarget('not_assigned'));
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
        period_id: periodId,
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
      const named = namingCountedDeals(computation, standing?.counted ?? []);
      return { ...named, explanation: [...named.explanation, ...unpricedSentence(standing, periodId)] };
    }
    case 'attainment_bonus':
      throw new TypeError('an attainment bonus is a period-level line');
  }
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

function periodLine(
  evaluation: ChipEvaluation,
  rules: ChipRules & { kind: 'attainment_bonus' },
  periodId: PeriodId,
): LineTarget {
  const { plan, chip, rep, windows } = evaluation;
  const steps: TraceStep[] = [];
  const explanation: string[] = [];
  let target = 0n;
  if (!windowsOverlapPeriod(windows, periodId)) {
    steps.push(zeroTarget('not_assigned'));
    explanation.push(
      windows.length === 0
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
    computed.explanation.push(...unpricedSentence(standing, periodId));
    target = roundInto(namingCountedDeals(computed, standing?.counted ?? []), steps, explanation, decimals);
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
