import { DEFAULT_CURRENCY, decimalsOf } from '../currencies.ts';
import { type CalendarDate, calendarDateOfInstant, type PeriodId, periodKindOf } from '../periods.ts';
import {
  type AssignmentWindow,
  assignmentWindows,
  coveredDays,
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
import { creditedPart, creditedReps, creditsOf, isSplit } from './credit.ts';
import { compareKeys, dealPeriodId, wonOrderKey } from './dealPeriods.ts';
import { conversionTrace, convertMinorUnits, type ExchangeRate, missingRateTrace, rateInForce } from './exchange.ts';
import { EMPTY_HIERARCHY, hierarchyDayOf, type RepHierarchy } from './hierarchy.ts';
import { lineRef } from './lineKeys.ts';
import {
  centsAsNumber,
  exactCentsString,
  formatExactMoney,
  formatMoney,
  roundExactCents,
  roundHalfAwayFromZero,
  runningTotalOnWire,
} from './money.ts';
import type {
  DealSnapshot,
  EngineChip,
  EnginePlanVersion,
  LineTarget,
  PlanProblem,
  Rep,
  TargetTrace,
  TraceCountedDeal,
  TraceStep,
  ZeroTargetReason,
} from './types.ts';

// Line targets (docs/plans-and-earnings.md, Lines and targets): for every line of a rep under a plan version, the earned target
// E and the projected target F with the trace that explains them. Pure: the caller loads the deals and
// writes the rows. A line's target depends only on its deal, and for tiered and attainment chips on the
// rep's won deals in the same period, so evaluating one rep-period gives exactly the answer that
// evaluating everything would give for its lines (see `scopeOfDealChange`).

export const ENGINE_VERSION = '1.0.0';

function dealSnapshot(deal: DealSnapshot): DealSnapshot {
  const { id, external_id, amount_cents, stage, close_date, owner_external_id, status, custom, won_at } = deal;
  const snapshot: DealSnapshot = {
    id,
    external_id,
    amount_cents,
    stage,
    close_date,
    owner_external_id,
    status,
    custom,
    won_at,
  };
  if (isSplit(deal)) snapshot.splits = creditsOf(deal);
  if (deal.currency !== undefined) snapshot.currency = deal.currency;
  return snapshot;
}

function traceOf(
  plan: EnginePlanVersion,
  chip: EngineChip,
  deal: DealSnapshot | null,
  steps: TraceStep[],
  explanation: string[],
): TargetTrace {
  return {
    engine_version: ENGINE_VERSION,
    plan: { id: plan.plan_id, key: plan.plan_key, version_id: plan.version_id, version_number: plan.version_number },
    chip: {
      id: chip.id,
      key: chip.key,
      name: chip.name,
      kind: chip.kind,
      version: chip.version,
      definition: {
        key: chip.key,
        name: chip.name,
        kind: chip.kind,
        ...chip.params,
        ...(chip.when === null ? {} : { when: chip.when }),
      },
    },
    deal: deal === null ? null : dealSnapshot(deal),
    steps,
    explanation,
  };
}

/** Appends the single rounding of the line to the computation's steps and sentences; returns the target. */
function roundInto(computation: Computation, steps: TraceStep[], explanation: string[], decimals: number): bigint {
  const rounded = roundExactCents(computation.exact);
  steps.push(...computation.steps, {
    type: 'rounding',
    exact_cents: exactCentsString(computation.exact),
    rounded_cents: centsAsNumber(rounded),
    rule: 'half away from zero',
  });
  explanation.push(...computation.explanation);
  const parts = computation.addends ?? [];
  explanation.push(
    parts.length > 1
      ? `${parts.map((part) => formatExactMoney(part, decimals)).join(' + ')} = ${formatExactMoney(computation.exact, decimals)}, rounded half away from zero to ${formatMoney(rounded, decimals)}`
      : `${formatExactMoney(computation.exact, decimals)} rounded half away from zero is ${formatMoney(rounded, decimals)}`,
  );
  return rounded;
}

function conditionSentences(outcome: ConditionOutcome): string[] {
  const verdict = outcome.result ? 'so the chip applies.' : 'so the chip does not apply.';
  const [only, ...others] = outcome.sentences;
  if (only !== undefined && others.length === 0) return [`${only}, ${verdict}`];
  return [
    ...outcome.sentences.map((sentence) => `${sentence}.`),
    `The chip's condition ${outcome.result ? 'holds' : 'does not hold'}, ${verdict}`,
  ];
}

function whereDealCounts(deal: DealSnapshot, periodId: PeriodId): string {
  const name = `Deal ${deal.external_id}`;
  if (deal.status === 'won') {
    if (deal.close_date !== null)
      return `${name} was won with close date ${deal.close_date}, so it counts in period ${periodId}.`;
    if (deal.won_at !== null) {
      return `${name} was won on ${calendarDateOfInstant(deal.won_at)} and has no close date, so it counts in period ${periodId}.`;
    }
    return `${name} was won but has neither a close date nor a won time, so it counts in the current period, ${periodId}.`;
  }
  if (deal.status === 'open') {
    return deal.close_date !== null
      ? `${name} is open with close date ${deal.close_date}, so it is projected in period ${periodId}.`
      : `${name} is open without a close date, so it is projected in the current period, ${periodId}.`;
  }
  return `${name} is ${deal.status}, so it earns nothing.`;
}

/** A period's won deals for one chip, in counting order, with each deal's running total before it. */
interface PeriodStanding {
  prior_by_deal: Map<string, bigint>;
  total_cents: bigint;
  /** The deals counted, in order, with the running total after each: what the traces name. */
  counted: TraceCountedDeal[];
  /** Won deals left out of the count because no exchange rate converts them (external ids). */
  unpriced: string[];
}

/** The trace step that says a line's target is 0, and why. */
function zeroTarget(reason: ZeroTargetReason): TraceStep {
  return { type: 'zero_target', reason, earned_cents: 0 };
}

/** The computation with the deals that make up its running total named on its cumulative or threshold step. */
function namingCountedDeals(computation: Computation, counted: readonly TraceCountedDeal[]): Computation {
  return {
    ...computation,
    steps: computation.steps.map((step) =>
      step.type === 'cumulative' || step.type === 'threshold' ? { ...step, counted_deals: [...counted] } : step,
    ),
  };
}

function amountOf(deal: DealSnapshot): bigint {
  return BigInt(deal.amount_cents ?? 0);
}

/**
 * How a plan prices deals (issue 16, item 5): the currency it pays in and the org's rates. A deal in another
 * currency has its credited amount converted at the rate in force on its date; without one it is unpriced.
 */
interface Pricing {
  plan_currency: string;
  default_currency: string;
  rates: readonly ExchangeRate[];
  today: CalendarDate;
}

/** An amount of the deal in the plan's currency, with the step and sentence of its conversion when there was one. */
type Priced =
  | { priced: true; cents: bigint; step: TraceStep | null; sentence: string | null }
  | { priced: false; step: TraceStep; sentence: string };

function dealCurrencyOf(deal: DealSnapshot, pricing: Pricing): string {
  return deal.currency ?? pricing.default_currency;
}

/** The deal's amount `cents` (minor units of the deal's currency) in the plan's currency. */
function priceIn(pricing: Pricing, deal: DealSnapshot, cents: bigint): Priced {
  const from = dealCurrencyOf(deal, pricing);
  const to = pricing.plan_currency;
  if (from === to) return { priced: true, cents, step: null, sentence: null };
  const day = dealDate(deal, pricing.today);
  const used = rateInForce(pricing.rates, from, to, day);
  if (used === null) return { priced: false, ...missingRateTrace(from, to, day) };
  const conversion = convertMinorUnits(cents, from, to, used);
  return { priced: true, cents: conversion.converted, ...conversionTrace(cents, from, to, used, conversion, day) };
}

/** Whether the deal's amounts can be counted in the plan's currency. */
function isPriced(pricing: Pricing, deal: DealSnapshot): boolean {
  return priceIn(pricing, deal, 0n).priced;
}

/**
 * What tiers, quotas and attainment count of a deal for a rep: the rep's credited part of its amount, in the
 * plan's currency; null when no rate converts it.
 */
function creditedAmountOf(deal: DealSnapshot, repExternalId: string, pricing: Pricing): bigint | null {
  const priced = priceIn(pricing, deal, creditedPart(deal, repExternalId, amountOf(deal), 'the amount').cents);
  return priced.priced ? priced.cents : null;
}

/** How `plan` prices deals with the org's money settings; without them, a deal is taken to be in the plan's currency. */
function pricingOf(
  plan: Pick<EnginePlanVersion, 'currency'>,
  money: EvaluationRequest['money'],
  today: CalendarDate,
): Pricing {
  const defaultCurrency = money?.default_currency ?? plan.currency ?? DEFAULT_CURRENCY;
  return {
    plan_currency: plan.currency ?? defaultCurrency,
    default_currency: money ? defaultCurrency : (plan.currency ?? defaultCurrency),
    rates: money?.rates ?? [],
    today,
  };
}

/**
 * How many of the period's days the rep's windows cover, when they cover only part of it (what prorates its quota
 * and draw); null when they cover all of it or none.
 */
function partialCover(
  windows: readonly AssignmentWindow[],
  periodId: PeriodId,
): { covered: number; days: number } | null {
  const cover = coveredDays(windows, periodId);
  return cover.covered > 0 && cover.covered < cover.days ? cover : null;
}

/** A quota prorated by the days of the period a rep's windows cover: rounded half away from zero, at least 1. */
function proratedQuota(quota: bigint, covered: number, days: number): bigint {
  const exact = roundHalfAwayFromZero(quota * BigInt(covered), BigInt(days));
  return exact > 0n ? exact : 1n;
}

export interface AttainmentRequest {
  plan: Pick<EnginePlanVersion, 'assignees' | 'period' | 'quota_cents' | 'currency'>;
  repExternalId: string;
  /** The rep's deals: those it owns and the split deals that credit it (others count nothing). */
  deals: readonly DealSnapshot[];
  periodId: PeriodId;
  today: CalendarDate;
  money?: EvaluationRequest['money'];
}

/**
 * A rep's attainment under a plan in a period, counted as the plan's tiers and attainment bonuses count it: the
 * rep's credited part of each won deal of the period dated in the rep's assignment windows, in the plan's currency
 * (a deal no rate converts is left out, as the running totals leave it out), against the quota, prorated when the
 * windows cover only part of the period. A period of another kind than the plan's counts nothing.
 */
export function attainmentIn(request: AttainmentRequest): { won_cents: bigint; quota_cents: bigint | null } {
  const { plan, repExternalId, periodId, today } = request;
  const windows = assignmentWindows(plan, repExternalId);
  const quota = plan.quota_cents === null || plan.quota_cents === undefined ? null : BigInt(plan.quota_cents);
  const cover = partialCover(windows, periodId);
  const quotaCents = quota !== null && cover ? proratedQuota(quota, cover.covered, cover.days) : quota;
  if (periodKindOf(periodId) !== plan.period) return { won_cents: 0n, quota_cents: quotaCents };
  const pricing = pricingOf(plan, request.money, today);
  let won = 0n;
  for (const deal of request.deals) {
    if (deal.status !== 'won' || dealPeriodId(deal, plan.period, today) !== periodId) continue;
    if (!windows.some((window) => windowCovers(window, dealDate(deal, today)))) continue;
    won += creditedAmountOf(deal, repExternalId, pricing) ?? 0n;
  }
  return { won_cents: won, quota_cents: quotaCents };
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
  /**
   * The org's default currency (of deals and plans that name none) and its exchange rates. Absent: every deal is
   * in the plan's currency.
   */
  money?: { default_currency: string; rates: readonly ExchangeRate[] };
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

/** Whether a chip's result depends on the quota: an attainment bonus, or tiers in percent of quota. */
function chipReadsQuota(chip: EngineChip): boolean {
  if (chip.kind === 'attainment_bonus') return true;
  if (chip.kind !== 'tiered_commission') return false;
  const tiers = (chip.params as { tiers?: unknown }).tiers;
  return Array.isArray(tiers) && tiers.some((tier) => typeof tier === 'object' && tier !== null && 'up_to_pct' in tier);
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
