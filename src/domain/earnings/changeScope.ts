import type { CalendarDate, PeriodId } from '../periods.ts';
import { creditedReps } from './credit.ts';
import { dealPeriodId } from './dealPeriods.ts';
import { EMPTY_HIERARCHY, managersEver, type RepHierarchy, reportsEver } from './hierarchy.ts';
import { planYearOf } from './planYear.ts';
import type { DealSnapshot, EngineChip, EnginePlanVersion } from './types.ts';

// Change scoping: which lines a deal change can move, so that evaluating only those gives what evaluating
// everything would give.

/**
 * Whether a chip's lines of one rep and period move together, so that a change to one deal must evaluate the
 * rep's whole period: tiered and attainment chips count the period's won deals, a chip capped per period
 * shares its cap (or tops up to its floor) among them, and a plan cap shares one cap among every chip's lines.
 */
export function countsPeriod(plan: EnginePlanVersion, chip: EngineChip): boolean {
  if (plan.cap_cents !== undefined && plan.cap_cents !== null) return true;
  if (chip.kind === 'tiered_commission' || chip.kind === 'attainment_bonus') return true;
  const { cap_cents, floor_cents } = chip.params as { cap_cents?: unknown; floor_cents?: unknown };
  return (cap_cents !== undefined && cap_cents !== null) || (floor_cents !== undefined && floor_cents !== null);
}

/** The deepest `depth` of the plan's override chips; 0 when it has none (no line reads the hierarchy). */
export function overrideDepthOf(plan: EnginePlanVersion): number {
  return plan.chips.reduce((deepest, chip) => {
    if (chip.kind !== 'override') return deepest;
    const depth = (chip.params as { depth?: unknown }).depth ?? 1;
    return typeof depth === 'number' && Number.isSafeInteger(depth) && depth > deepest ? depth : deepest;
  }, 0);
}

/**
 * The reps whose deals a rep's lines read under the plan: the rep's own, and with override chips those of everyone
 * who reports to the rep, on any day, within the chips' depth.
 */
export function repsReadBy(plan: EnginePlanVersion, repExternalId: string, hierarchy: RepHierarchy): Set<string> {
  const depth = overrideDepthOf(plan);
  return new Set([repExternalId, ...(depth === 0 ? [] : reportsEver(hierarchy, repExternalId, depth))]);
}

/** What to evaluate for one rep after a deal changed: some of the deal's lines, and whole periods when needed. */
export interface EvaluationScope {
  rep_external_id: string;
  /** The chips (ids) whose line of the changed deal is evaluated on its own: no other line moves with it. */
  deal_chips: string[];
  /**
   * The chips (ids) whose lines of the rep move together per period (see countsPeriod): every line of them in
   * `periods` is evaluated, the changed deal's included.
   */
  period_chips: string[];
  /** The periods the deal was in and is in now, when there are period chips; else empty. */
  periods: PeriodId[];
}

/** How a deal change reaches a rep: the deal credits the rep (before or after it), did once, or a report of the rep. */
interface Reach {
  credited: boolean;
  formerly: boolean;
  manager: boolean;
}

/**
 * The chips a deal change evaluates for a rep. A rep the deal credits: every chip, the ones that count the period
 * over the rep's whole periods. A rep it credited once: every chip's line of the deal alone, which earns nothing now
 * but is dated by the deal; the rep's periods do not count the deal before or after. A manager above a credited
 * rep: the override chips' lines of the deal, since no other line of the manager reads a report's deal; and over
 * the manager's whole periods only what shares a cap with an override (the override chip's own period cap, or the
 * plan cap over every chip).
 */
function chipsInScope(plan: EnginePlanVersion, reach: Reach): Pick<EvaluationScope, 'deal_chips' | 'period_chips'> {
  if (reach.credited) {
    return {
      deal_chips: plan.chips.filter((chip) => !countsPeriod(plan, chip)).map((chip) => chip.id),
      period_chips: plan.chips.filter((chip) => countsPeriod(plan, chip)).map((chip) => chip.id),
    };
  }
  const overrides = reach.manager ? plan.chips.filter((chip) => chip.kind === 'override') : [];
  const cappedOverrides = overrides.filter((chip) => countsPeriod(plan, chip));
  const planCap = plan.cap_cents !== undefined && plan.cap_cents !== null;
  const periodChips = new Set(cappedOverrides.length > 0 && planCap ? plan.chips : cappedOverrides);
  const dealChips = new Set([...(reach.formerly ? plan.chips : []), ...overrides]);
  return {
    deal_chips: plan.chips.filter((chip) => dealChips.has(chip) && !periodChips.has(chip)).map((chip) => chip.id),
    period_chips: plan.chips.filter((chip) => periodChips.has(chip)).map((chip) => chip.id),
  };
}

/**
 * The lines a deal change can affect under one plan version (docs/plans-and-earnings.md, When lines are
 * evaluated), and no others: for each rep it credits before and after (its owner, or the reps of its splits), the
 * deal's lines, and for the chips that count the period (tiered, attainment, capped), every line of that rep in
 * the period the deal was in and the period it is in now (a change there moves the running totals, bonuses and
 * caps other lines depend on); when the plan has override chips, for each manager above those reps in `hierarchy`
 * (on any day, within the chips' depth), the deal's override lines, and the manager's lines that share a cap with
 * them in those periods. Evaluate each with `evaluateScope`, and the result equals evaluating everything.
 *
 * `formerlyCredited`: reps with standing rows of the deal (a clawback after a split rep was removed, say; a
 * manager's override) that it credits neither before nor after. Their lines of the deal earn nothing, but they are
 * dated by the deal: when the deal's period moves (dealPeriodMoved), they move with it, so pass them then.
 */
export function scopeOfDealChange(
  plan: EnginePlanVersion,
  before: DealSnapshot | null,
  after: DealSnapshot,
  today: CalendarDate,
  formerlyCredited: readonly string[] = [],
  hierarchy: RepHierarchy = EMPTY_HIERARCHY,
): EvaluationScope[] {
  const depth = overrideDepthOf(plan);
  const deals = before === null ? [after] : [before, after];
  const credited = new Set(deals.flatMap((deal) => creditedReps(deal)));
  const managers = new Set<string>();
  // Each rep reached, with the periods of the deal (before and after) in which the deal reaches it.
  const periodsByRep = new Map<string, Set<PeriodId>>();
  const reach = (rep: string, periodId: PeriodId | null) => {
    const periods = periodsByRep.get(rep) ?? new Set();
    if (periodId !== null) periods.add(periodId);
    periodsByRep.set(rep, periods);
  };
  // In a plan year, the running totals of every month of the deal's year count it: the scope is the whole year.
  const periodsOf = (periodId: PeriodId) =>
    plan.plan_year && plan.period === 'monthly' ? planYearOf(plan.plan_year, periodId).months : [periodId];
  for (const deal of deals) {
    const periodId = dealPeriodId(deal, plan.period, today);
    for (const rep of creditedReps(deal)) {
      for (const month of periodsOf(periodId)) reach(rep, month);
      // The managers whose overrides can count the deal: anyone above a credited rep, on any day, within the depth.
      for (const manager of depth === 0 ? [] : managersEver(hierarchy, rep, depth)) {
        managers.add(manager);
        reach(manager, periodId);
      }
    }
  }
  const formerly = new Set(formerlyCredited.filter((rep) => !credited.has(rep)));
  for (const rep of formerly) reach(rep, null);
  return [...periodsByRep].map(([rep, periods]) => {
    const chips = chipsInScope(plan, {
      credited: credited.has(rep),
      formerly: formerly.has(rep),
      manager: managers.has(rep),
    });
    return { rep_external_id: rep, ...chips, periods: chips.period_chips.length === 0 ? [] : [...periods] };
  });
}
