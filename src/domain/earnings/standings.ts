import { decimalsOf } from '../currencies.ts';
import { type CalendarDate, type PeriodId, periodIdOf } from '../periods.ts';
import { assignmentWindows, isDated, windowsOverlapPeriod } from './assignments.ts';
import { type AttainmentCredit, creditPeriods, creditsIn } from './attainmentCredits.ts';
import { applyChipCaps } from './caps.ts';
import { withCashTerms } from './cashTerms.ts';
import { dealLine, type PeriodStanding } from './chipLines.ts';
import { type ChipRules, type CountTierRules, readChipRules, readPlanCap } from './chipRules.ts';
import { computeAttainmentBonus } from './chips.ts';
import { evaluateCondition } from './conditions.ts';
import { creditedReps } from './credit.ts';
import { compareKeys, dealPeriodId, wonOrderKey } from './dealPeriods.ts';
import { EMPTY_HIERARCHY } from './hierarchy.ts';
import { repWindows } from './leavers.ts';
import { centsAsNumber, runningTotalOnWire } from './money.ts';
import { withPrecedence } from './precedence.ts';
import { creditedAmountOf, type OrgMoney, type Pricing, pricingOf } from './pricing.ts';
import { chipReadsQuota } from './proration.ts';
import type { RepQuotas } from './quotas.ts';
import { periodQuota, withQuotaSentences } from './targets.ts';
import { bandContains, countBandOf } from './tieredChip.ts';
import type { DealSnapshot, EngineChip, EnginePlanVersion, LineTarget, Rep, TraceCountedDeal } from './types.ts';

// Running totals (docs/plans-and-earnings.md, "What one deal event costs"): for each tiered or attainment chip, rep
// and period, the won amount counted so far, the deal counted last and the open deals projected there. With them,
// a deal event that appends a deal to the period's count, changes the last deal counted without moving it, or
// changes a deal the count does not hold, is evaluated from the totals alone when no other line of the period can
// move (see movesNoOtherLine). Anything else asks for the period's deals, and a full evaluation.

/** A tiered or attainment chip's count of one rep's won deals in one period. */
export interface ChipStanding {
  chip_id: string;
  period_id: PeriodId;
  /** The won amount counted, in the plan's currency. */
  total_cents: bigint;
  /** How many deals are counted. */
  counted: number;
  /** Won deals left out of the count because no exchange rate converts them. */
  unpriced: number;
  /** The deal counted last, with its counting order key and the running total once it is counted. */
  last: { order: string[]; deal: TraceCountedDeal } | null;
  /**
   * Open deals the chip would count once won (crediting the rep, meeting its condition) that are projected in the
   * period: each projection starts at the period's won total. For `UNDATED`, the rep's open deals without a close
   * date, projected in whichever period is the current one.
   */
  open: number;
}

/** The standing that counts a rep's open deals without a close date (not a period's). */
export const UNDATED: PeriodId = 'undated';

/** Where a deal stands in a chip's count for a rep: counted in a period, left out for want of a rate, or neither. */
type CountEntry =
  | { kind: 'counted'; period_id: PeriodId; order: string[]; cents: bigint }
  | { kind: 'unpriced'; period_id: PeriodId }
  | { kind: 'none' };

/** The tiered and attainment chips of the plan, with their rules; null when one cannot be read. */
function countingChips(plan: EnginePlanVersion): Array<{ chip: EngineChip; rules: ChipRules }> | null {
  const counting: Array<{ chip: EngineChip; rules: ChipRules }> = [];
  for (const [index, chip] of plan.chips.entries()) {
    if (chip.kind !== 'tiered_commission' && chip.kind !== 'attainment_bonus') continue;
    const reading = readChipRules(chip, plan, `chips[${index}]`);
    if (reading.rules === null) return null;
    counting.push({ chip, rules: reading.rules });
  }
  return counting;
}

/**
 * How a deal counts for a chip of a rep, as targets.ts counts it: won, crediting the rep, dated inside the
 * rep's assignment windows (only undated windows are handled here) and meeting the chip's condition.
 */
function countEntry(
  chip: EngineChip,
  plan: EnginePlanVersion,
  rep: Rep,
  assigned: boolean,
  deal: DealSnapshot | null,
  pricing: Pricing,
  today: CalendarDate,
): CountEntry {
  if (deal === null || !assigned || deal.status !== 'won') return { kind: 'none' };
  if (!creditedReps(deal).includes(rep.external_id)) return { kind: 'none' };
  if (chip.when !== null && !evaluateCondition(chip.when, deal).result) return { kind: 'none' };
  const period_id = dealPeriodId(deal, plan.period, today);
  const cents = creditedAmountOf(deal, rep.external_id, pricing);
  if (cents === null) return { kind: 'unpriced', period_id };
  return { kind: 'counted', period_id, order: wonOrderKey(deal), cents };
}

/** The standing an open deal is counted open in for a chip of a rep (its period, or UNDATED); null for any other. */
function openKey(
  chip: EngineChip,
  plan: EnginePlanVersion,
  rep: Rep,
  assigned: boolean,
  deal: DealSnapshot | null,
  today: CalendarDate,
): PeriodId | null {
  if (deal === null || !assigned || deal.status !== 'open') return null;
  if (!creditedReps(deal).includes(rep.external_id)) return null;
  if (chip.when !== null && !evaluateCondition(chip.when, deal).result) return null;
  // Projected where dealPeriodId puts it: by its close date, else its won time; with neither, in today's period.
  return deal.close_date === null && deal.won_at === null ? UNDATED : dealPeriodId(deal, plan.period, today);
}

/**
 * The running totals of the rep's deals as a full evaluation counts them, for each period listed and UNDATED:
 * `deals` must hold all of the rep's deals in those periods and all of its deals without a close date.
 */
export function standingsOf(request: {
  plan: EnginePlanVersion;
  rep: Rep;
  deals: readonly DealSnapshot[];
  periods: readonly PeriodId[];
  today: CalendarDate;
  money?: OrgMoney;
  /** The rep's adjustments that count toward attainment: they start their periods' totals (chips without `when`). */
  credits?: readonly AttainmentCredit[];
}): ChipStanding[] {
  const { rep, today } = request;
  const plan = withPrecedence(request.plan);
  const counting = countingChips(plan) ?? [];
  const pricing = pricingOf(plan, request.money, today);
  const windows = assignmentWindows(plan, rep.external_id);
  const assigned = windows.length > 0;
  const standings: ChipStanding[] = [];
  const creditOf = (chip: EngineChip, periodId: PeriodId): bigint =>
    chip.when === null && periodId !== UNDATED && windowsOverlapPeriod(windows, periodId)
      ? creditsIn(request.credits, plan.period, pricing, periodId).total_cents
      : 0n;
  for (const { chip } of counting) {
    const entries = request.deals
      .map((deal) => ({ deal, entry: countEntry(chip, plan, rep, assigned, deal, pricing, today) }))
      .filter(({ entry }) => entry.kind !== 'none');
    const open = request.deals.map((deal) => openKey(chip, plan, rep, assigned, deal, today));
    for (const period_id of [...new Set(request.periods), UNDATED]) {
      const standing: ChipStanding = {
        chip_id: chip.id,
        period_id,
        total_cents: creditOf(chip, period_id),
        counted: 0,
        unpriced: 0,
        last: null,
        open: open.filter((key) => key === period_id).length,
      };
      // Each deal's counting key taken once, not once per comparison.
      const inPeriod = entries
        .filter(({ entry }) => entry.kind !== 'none' && entry.period_id === period_id)
        .map((member) => ({ member, key: wonOrderKey(member.deal) }))
        .sort((a, b) => compareKeys(a.key, b.key))
        .map(({ member }) => member);
      for (const { deal, entry } of inPeriod) {
        if (entry.kind !== 'counted') {
          standing.unpriced += 1;
          continue;
        }
        standing.total_cents += entry.cents;
        standing.counted += 1;
        standing.last = { order: entry.order, deal: countedDeal(deal, entry.cents, standing.total_cents) };
      }
      standings.push(standing);
    }
  }
  return standings;
}

function countedDeal(deal: DealSnapshot, cents: bigint, runningTotal: bigint): TraceCountedDeal {
  return {
    id: deal.id,
    external_id: deal.external_id,
    amount_cents: centsAsNumber(cents),
    close_date: deal.close_date,
    running_total_cents: runningTotalOnWire(runningTotal),
  };
}

/** What a deal change does to the lines of one rep under one plan, judged from the running totals. */
export interface StandingEvaluation {
  /** The changed deal's lines of the plan's tiered chips; every other line of the rep's periods stays. */
  targets: LineTarget[];
  /** The running totals after the change, to store. */
  standings: ChipStanding[];
}

/**
 * The lines of `chips` a deal change moves for one rep (the changed deal's tiered lines), from the stored running
 * totals of the period the deal is in (`standings`, keyed by chip id and period), when the change moves no other
 * line of the rep's periods; null when it may, when one of `chips` is not a tiered or attainment chip without a
 * cap or floor per period, or when a total it needs is not given: the caller then evaluates the periods in full.
 * The changed deal's lines of the plan's other chips do not depend on the period and are the caller's to evaluate.
 */
export function evaluateFromStandings(request: {
  plan: EnginePlanVersion;
  rep: Rep;
  /** The chips (ids) whose lines of the rep's periods the change can move (the scope's period chips). */
  chips: readonly string[];
  before: DealSnapshot | null;
  after: DealSnapshot;
  standings: ReadonlyMap<string, ChipStanding>;
  today: CalendarDate;
  money?: OrgMoney;
  /** The rep's quota table under the plan and start date, as evaluateLines reads them. */
  quotas?: RepQuotas;
  /** The rep's adjustments that count toward attainment, as evaluateLines reads them. */
  credits?: readonly AttainmentCredit[];
}): StandingEvaluation | null {
  const { rep, before, after, today } = request;
  const evaluated = withPrecedence(request.plan);
  if (readPlanCap(evaluated).cap !== null) return null;
  // A plan year's running totals count from the year's first day: a change moves the later months' lines too.
  if (evaluated.plan_year) return null;
  const windows = repWindows(evaluated, rep.external_id, request.quotas);
  if (isDated(windows)) return null;
  const periodOfAfter = dealPeriodId(after, evaluated.period, today);
  // A period with adjustments counting toward attainment is evaluated in full: its lines name them in their traces.
  if (creditPeriods(request.credits, evaluated.period).includes(periodOfAfter)) return null;
  // The rep's own quota for the deal's period, as a full evaluation reads it (targets.ts, periodQuota).
  const decimals = decimalsOf(pricingOf(evaluated, request.money, today).plan_currency);
  const quota = periodQuota(evaluated, rep, windows, request.quotas, periodOfAfter, decimals);
  const plan = quota.sentences.length === 0 ? evaluated : { ...evaluated, quota_cents: quota.quota };
  const readsQuota = new Set(plan.chips.filter(chipReadsQuota).map((chip) => chip.id));
  const counting = countingChips(plan)?.filter(({ chip }) => request.chips.includes(chip.id));
  // A chip that counts the period for a cap or a floor shares it among the period's lines: not decided here.
  if (!counting || counting.length !== new Set(request.chips).size) return null;
  const pricing = pricingOf(plan, request.money, today);
  const assigned = windows.length > 0;
  const targets: LineTarget[] = [];
  const standings: ChipStanding[] = [];
  for (const { chip, rules } of counting) {
    if (rules.kind !== 'tiered_commission' && rules.kind !== 'attainment_bonus') return null;
    if (rules.kind === 'tiered_commission' && (rules.caps.period_cents !== null || rules.caps.floor_cents !== null))
      return null;
    const was = countEntry(chip, plan, rep, assigned, before, pricing, today);
    const is = countEntry(chip, plan, rep, assigned, after, pricing, today);
    if (was.kind === 'unpriced' || is.kind === 'unpriced') return null;
    // The chip's standings this change touches, copied to be moved: the period of the deal now, and those its
    // open count leaves or joins.
    const touched = new Map<PeriodId, ChipStanding>();
    const take = (periodId: PeriodId): ChipStanding | null => {
      const found = touched.get(periodId) ?? request.standings.get(`${chip.id}/${periodId}`);
      if (!found) return null;
      const copy = { ...found };
      touched.set(periodId, copy);
      return copy;
    };
    const wasOpen = openKey(chip, plan, rep, assigned, before, today);
    const isOpen = openKey(chip, plan, rep, assigned, after, today);
    if (wasOpen !== isOpen) {
      const left = wasOpen === null ? null : take(wasOpen);
      const joined = isOpen === null ? null : take(isOpen);
      if ((wasOpen !== null && !left) || (isOpen !== null && !joined)) return null;
      if (left) left.open -= 1;
      if (joined) joined.open += 1;
    }
    const next = take(periodOfAfter);
    if (!next || next.unpriced > 0) return null;
    const from = next.total_cents;
    const fromCount = next.counted;
    if (was.kind === 'counted') {
      // Only the deal counted last can change without moving the deals after it: there are none.
      if (is.kind !== 'counted' || was.period_id !== is.period_id) return null;
      if (next.last === null || compareKeys(next.last.order, was.order) !== 0) return null;
      if (compareKeys(is.order, was.order) < 0) return null;
      next.total_cents = from - was.cents + is.cents;
      next.last = { order: is.order, deal: countedDeal(after, is.cents, next.total_cents) };
    } else if (is.kind === 'counted') {
      if (next.last !== null && compareKeys(is.order, next.last.order) <= 0) return null;
      next.total_cents = from + is.cents;
      next.counted += 1;
      next.last = { order: is.order, deal: countedDeal(after, is.cents, next.total_cents) };
    }
    // The other open deals projected in the period: its own, and the undated ones when it is the current period.
    let othersOpen: number | null = next.open - (isOpen === null ? 0 : 1);
    if (periodOfAfter === periodIdOf(today, plan.period)) {
      const undated = touched.get(UNDATED) ?? request.standings.get(`${chip.id}/${UNDATED}`);
      othersOpen = undated ? othersOpen + undated.open : null;
    }
    // Bands in deals move with the count of deals, bands in money with the amount won.
    const moved =
      rules.kind === 'tiered_commission' && rules.basis === 'deal_count'
        ? countMovesNoOtherLine(rules, fromCount, next.counted, othersOpen)
        : movesNoOtherLine(rules, plan, from, next.total_cents, othersOpen, periodOfAfter);
    if (!moved) return null;
    standings.push(...touched.values());
    if (rules.kind !== 'tiered_commission') continue;
    // The deal's own line: counted, it adds to the total before it; open, it is projected after every won deal.
    const prior = is.kind === 'counted' ? next.total_cents - is.cents : next.total_cents;
    const predecessor =
      is.kind === 'counted' && was.kind !== 'counted'
        ? (request.standings.get(`${chip.id}/${periodOfAfter}`)?.last ?? null)
        : was.kind === 'counted'
          ? null
          : next.last;
    const counted = [
      ...(predecessor ? [predecessor.deal] : []),
      ...(is.kind === 'counted' && next.last ? [next.last.deal] : []),
    ];
    const standing: PeriodStanding = {
      prior_by_deal: new Map([[after.id, prior]]),
      total_cents: next.total_cents,
      counted,
      unpriced: [],
      positions: new Map(is.kind === 'counted' ? [[after.id, next.counted]] : []),
      deal_count: next.counted,
    };
    const line = dealLine(
      {
        plan,
        chip,
        rep,
        windows,
        today,
        standings: new Map([[periodOfAfter, standing]]),
        conditionOf: (deal) => (chip.when === null ? null : evaluateCondition(chip.when, deal)),
        pricing,
        hierarchy: EMPTY_HIERARCHY,
      },
      rules,
      { deal: after, period_id: periodOfAfter, owned: creditedReps(after).includes(rep.external_id) },
    );
    targets.push(
      ...withCashTerms(plan, withQuotaSentences(applyChipCaps([line], rules.caps), readsQuota, quota.sentences)),
    );
  }
  return { targets, standings };
}

/**
 * Whether moving a period's won total from `from` to `to` leaves every other line of the chip as it was. A tiered
 * chip per deal: always. A cumulative tiered chip: when both totals are in its last band, every further amount earns the one rate, so no deal's amount and no
 * open deal's projection moves; otherwise, when no other open deal is projected in the period (`othersOpen` 0;
 * null when unknown), the won deals counted before the changed one keep their amounts in marginal mode, and in
 * retroactive mode while the total stays in its band. An attainment bonus: when it is reached at both, or at neither.
 */
function movesNoOtherLine(
  rules: ChipRules,
  plan: EnginePlanVersion,
  from: bigint,
  to: bigint,
  othersOpen: number | null,
  periodId: PeriodId,
): boolean {
  if (from === to) return true;
  if (rules.kind === 'tiered_commission' && rules.basis !== 'deal_count') {
    // Per deal, a line climbs the bands on its own deal's amount: the period's total moves none.
    if (rules.basis === 'per_deal') return true;
    // In an open last band every further deal, and every projection, earns at its rate; a table's last band is
    // bounded (nothing is paid above it), so a projection after a larger total fills less of it.
    const last = rules.bands.at(-1);
    if (last !== undefined && last.to_cents === null && from >= last.from_cents && to >= last.from_cents) return true;
    if (othersOpen !== 0) return false;
    const band = (total: bigint) => rules.bands.findIndex((each) => bandContains(each, total));
    return rules.mode === 'marginal' || band(from) === band(to);
  }
  if (rules.kind === 'attainment_bonus') {
    const quota = BigInt(plan.quota_cents ?? 0);
    const bonus = (total: bigint) => computeAttainmentBonus(total, quota, rules, '', periodId).exact;
    return bonus(from) === bonus(to);
  }
  return false;
}

/**
 * Whether moving a period's count of won deals from `from` to `to` leaves every other line of a chip with bands in
 * deals as it was: when both counts are in the last band (every further deal, and every projection, is in it); else,
 * when no other open deal is projected in the period (a projection is numbered after the count), in marginal mode
 * (the deals counted before keep their numbers) and in retroactive mode while the count stays in its band.
 */
function countMovesNoOtherLine(rules: CountTierRules, from: number, to: number, othersOpen: number | null): boolean {
  if (from === to) return true;
  const last = rules.bands.at(-1);
  if (last !== undefined && last.to_deal === null && from >= last.from_deal && to >= last.from_deal) return true;
  if (othersOpen !== 0) return false;
  return rules.mode === 'marginal' || countBandOf(rules.bands, from) === countBandOf(rules.bands, to);
}
