import { type CalendarDate, calendarDateOfInstant, type PeriodId, type PeriodKind, periodIdOf } from '../periods.ts';
import {
  type ChipRules,
  type Computation,
  computeAttainmentBonus,
  computeCommission,
  computeFlat,
  computeTiered,
  readChipRules,
} from './chips.ts';
import { type ConditionOutcome, evaluateCondition } from './conditions.ts';
import {
  centsAsNumber,
  exactCentsString,
  formatExactMoney,
  formatMoney,
  roundExactCents,
  runningTotalOnWire,
} from './money.ts';
import type {
  DealSnapshot,
  EngineChip,
  EnginePlanVersion,
  LineRef,
  LineTarget,
  PlanProblem,
  Rep,
  TargetTrace,
  TraceCountedDeal,
  TraceStep,
  ZeroTargetReason,
} from './types.ts';

// Line targets (product.md section 5): for every line of a rep under a plan version, the earned target
// E and the projected target F with the trace that explains them. Pure: the caller loads the deals and
// writes the rows. A line's target depends only on its deal, and for tiered and attainment chips on the
// rep's won deals in the same period, so evaluating one rep-period gives exactly the answer that
// evaluating everything would give for its lines (see `scopeOfDealChange`).

export const ENGINE_VERSION = '1.0.0';

export function lineKeyOf(line: Omit<LineRef, 'line_key'>): string {
  return [line.plan_id, line.chip_id, line.user_id, line.deal_id ?? line.period_id].join(':');
}

function lineRef(
  plan: EnginePlanVersion,
  chip: EngineChip,
  rep: Rep,
  dealId: string | null,
  periodId: PeriodId | null,
) {
  const ref = { user_id: rep.user_id, plan_id: plan.plan_id, chip_id: chip.id, deal_id: dealId, period_id: periodId };
  return { line_key: lineKeyOf(ref), ...ref };
}

/**
 * The period a deal's lines fall in: that of its `close_date`; without one, that of `won_at` (a won
 * deal), else the current period, the one of `today` (an open deal's projection shows there).
 */
export function dealPeriodId(deal: DealSnapshot, kind: PeriodKind, today: CalendarDate): PeriodId {
  if (deal.close_date !== null) return periodIdOf(deal.close_date, kind);
  if (deal.won_at !== null) return periodIdOf(calendarDateOfInstant(deal.won_at), kind);
  return periodIdOf(today, kind);
}

/**
 * The order in which tiered commissions count a period's won deals: close date, then won time, then
 * id. A deal without a close date sorts by the day it was won; one without a won time sorts last.
 */
function wonOrderKey(deal: DealSnapshot): string[] {
  const wonAt = deal.won_at === null ? null : new Date(deal.won_at).toISOString();
  return [deal.close_date ?? wonAt?.slice(0, 10) ?? '', wonAt ?? '\uffff', deal.id];
}

function compareKeys(a: string[], b: string[]): number {
  for (let index = 0; index < a.length; index++) {
    const left = a[index] ?? '';
    const right = b[index] ?? '';
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}

function dealSnapshot(deal: DealSnapshot): DealSnapshot {
  const { id, external_id, amount_cents, stage, close_date, owner_external_id, status, custom, won_at } = deal;
  return { id, external_id, amount_cents, stage, close_date, owner_external_id, status, custom, won_at };
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
function roundInto(computation: Computation, steps: TraceStep[], explanation: string[]): bigint {
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
      ? `${parts.map(formatExactMoney).join(' + ')} = ${formatExactMoney(computation.exact)}, rounded half away from zero to ${formatMoney(rounded)}`
      : `${formatExactMoney(computation.exact)} rounded half away from zero is ${formatMoney(rounded)}`,
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

export interface EvaluationRequest {
  plan: EnginePlanVersion;
  rep: Rep;
  /**
   * The deals whose lines to evaluate, which are also what tiered and attainment chips count. For those
   * chips to be right, this must hold every deal of the rep whose period (`dealPeriodId`) is the period
   * of an evaluated deal or one of `periods`. A deal owned by someone else gets lines with zero targets,
   * which is how a deal's former owner loses its earnings.
   */
  deals: readonly DealSnapshot[];
  /** Periods whose period-level lines (attainment bonuses) to evaluate. */
  periods: readonly PeriodId[];
  /** Today's UTC date: open deals without a close date are projected in its period. */
  today: CalendarDate;
}

export interface Evaluation {
  targets: LineTarget[];
  /** Chips that cannot be evaluated as written yield no lines; their rows should be left alone. */
  problems: PlanProblem[];
}

interface PlacedDeal {
  deal: DealSnapshot;
  period_id: PeriodId;
  owned: boolean;
}

export function evaluateLines(request: EvaluationRequest): Evaluation {
  const { plan, rep, today } = request;
  const assigned = plan.assignees === 'all' || plan.assignees.includes(rep.external_id);
  const dealsById = new Map(request.deals.map((deal) => [deal.id, deal]));
  const placed: PlacedDeal[] = [...dealsById.values()].map((deal) => ({
    deal,
    period_id: dealPeriodId(deal, plan.period, today),
    owned: deal.owner_external_id === rep.external_id,
  }));
  const problems: PlanProblem[] = [];
  const targets: LineTarget[] = [];

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
        .filter(({ deal, owned }) => owned && deal.status === 'won' && matches(deal))
        .map((entry) => ({ ...entry, order: wonOrderKey(entry.deal) }))
        .sort((a, b) => compareKeys(a.order, b.order));
      for (const { deal, period_id } of counted) {
        const standing: PeriodStanding = standings.get(period_id) ?? {
          prior_by_deal: new Map(),
          total_cents: 0n,
          counted: [],
        };
        standing.prior_by_deal.set(deal.id, standing.total_cents);
        standing.total_cents += amountOf(deal);
        standing.counted.push({
          id: deal.id,
          external_id: deal.external_id,
          amount_cents: centsAsNumber(amountOf(deal)),
          close_date: deal.close_date,
          running_total_cents: runningTotalOnWire(standing.total_cents),
        });
        standings.set(period_id, standing);
      }
    }
    const evaluation = { plan, chip, rules, rep, assigned, standings, conditionOf };

    if (rules.kind === 'attainment_bonus') {
      for (const periodId of new Set(request.periods)) targets.push(periodLine(evaluation, rules, periodId));
    } else {
      for (const dealInPeriod of placed) targets.push(dealLine(evaluation, rules, dealInPeriod));
    }
  });
  return { targets, problems };
}

interface ChipEvaluation {
  plan: EnginePlanVersion;
  chip: EngineChip;
  rep: Rep;
  assigned: boolean;
  standings: Map<PeriodId, PeriodStanding>;
  conditionOf: (deal: DealSnapshot) => ConditionOutcome | null;
}

function dealLine(evaluation: ChipEvaluation, rules: ChipRules, { deal, period_id, owned }: PlacedDeal): LineTarget {
  const { plan, chip, rep, assigned } = evaluation;
  const steps: TraceStep[] = [];
  const explanation: string[] = [];
  let target = 0n;

  if (!owned) {
    const owner = deal.owner_external_id === null ? 'has no owner' : `is owned by ${deal.owner_external_id}`;
    steps.push(zeroTarget('not_owner'));
    explanation.push(`Deal ${deal.external_id} ${owner}, not by ${rep.external_id}, so this line earns nothing.`);
  } else if (!assigned) {
    steps.push(zeroTarget('not_assigned'));
    explanation.push(`${rep.external_id} is not assigned to plan ${plan.plan_key}, so this line earns nothing.`);
  } else {
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
    } else {
      target = roundInto(computeDealChip(evaluation, rules, deal, period_id), steps, explanation);
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
  };
}

function computeDealChip(
  evaluation: ChipEvaluation,
  rules: ChipRules,
  deal: DealSnapshot,
  periodId: PeriodId,
): Computation {
  switch (rules.kind) {
    case 'commission':
      return computeCommission(deal, rules);
    case 'flat':
      return computeFlat(rules);
    case 'tiered_commission': {
      const standing = evaluation.standings.get(periodId);
      const wonTotal = standing?.total_cents ?? 0n;
      const projected = deal.status !== 'won';
      // A projection counts the open deal as if it were won next, after every deal already won.
      const prior = projected ? wonTotal : (standing?.prior_by_deal.get(deal.id) ?? 0n);
      const periodTotal = projected ? wonTotal + amountOf(deal) : wonTotal;
      const cumulative = {
        prior_cents: prior,
        period_cents: periodTotal,
        rep_external_id: evaluation.rep.external_id,
        period_id: periodId,
        projected,
      };
      const computation = computeTiered(amountOf(deal), cumulative, rules, evaluation.plan.quota_cents);
      return namingCountedDeals(computation, standing?.counted ?? []);
    }
    case 'attainment_bonus':
      throw new TypeError('an attainment bonus is a period-level line');
  }
}

function periodLine(
  evaluation: ChipEvaluation,
  rules: ChipRules & { kind: 'attainment_bonus' },
  periodId: PeriodId,
): LineTarget {
  const { plan, chip, rep, assigned } = evaluation;
  const steps: TraceStep[] = [];
  const explanation: string[] = [];
  let target = 0n;
  if (!assigned) {
    steps.push(zeroTarget('not_assigned'));
    explanation.push(`${rep.external_id} is not assigned to plan ${plan.plan_key}, so this line earns nothing.`);
  } else {
    if (chip.when !== null) explanation.push("Only won deals that meet the chip's condition count toward attainment.");
    const standing = evaluation.standings.get(periodId);
    const attained = standing?.total_cents ?? 0n;
    const computed = computeAttainmentBonus(attained, BigInt(plan.quota_cents ?? 0), rules, rep.external_id, periodId);
    target = roundInto(namingCountedDeals(computed, standing?.counted ?? []), steps, explanation);
  }
  return {
    line: lineRef(plan, chip, rep, null, periodId),
    plan_version_id: plan.version_id,
    rule_version: chip.version,
    earned_cents: centsAsNumber(target),
    projected_cents: 0,
    period_id: periodId,
    trace: traceOf(plan, chip, null, steps, explanation),
  };
}

/** What to evaluate for one rep after a deal changed: the deal's lines, and whole periods when needed. */
export interface EvaluationScope {
  rep_external_id: string;
  /**
   * Periods whose deals (all of the rep's) and period lines to evaluate, because a tiered or attainment
   * chip of the plan counts the changed deal there; empty when only the changed deal's own lines can move.
   */
  periods: PeriodId[];
}

/**
 * The lines a deal change can affect under one plan version: for its owner before and after, the deal's
 * own lines, and when the plan has tiered or attainment chips, every line of that rep in the period the
 * deal was in and the period it is in now (a change there moves the cumulative amounts other deals and
 * the bonus depend on). Evaluate each with `evaluateLines`, passing the rep's deals of those periods
 * plus the changed deal, and the result equals evaluating everything.
 */
export function scopeOfDealChange(
  plan: EnginePlanVersion,
  before: DealSnapshot | null,
  after: DealSnapshot,
  today: CalendarDate,
): EvaluationScope[] {
  const countsPeriods = plan.chips.some(
    (chip) => chip.kind === 'tiered_commission' || chip.kind === 'attainment_bonus',
  );
  const periodsByRep = new Map<string, Set<PeriodId>>();
  for (const deal of before === null ? [after] : [before, after]) {
    if (deal.owner_external_id === null) continue;
    const periods = periodsByRep.get(deal.owner_external_id) ?? new Set();
    if (countsPeriods) periods.add(dealPeriodId(deal, plan.period, today));
    periodsByRep.set(deal.owner_external_id, periods);
  }
  return [...periodsByRep].map(([rep, periods]) => ({ rep_external_id: rep, periods: [...periods] }));
}
