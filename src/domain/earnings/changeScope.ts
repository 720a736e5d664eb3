import type { CalendarDate, PeriodId } from '../periods.ts';
import { creditedReps } from './credit.ts';
import { dealPeriodId } from './dealPeriods.ts';
import { EMPTY_HIERARCHY, managersEver, type RepHierarchy, reportsEver } from './hierarchy.ts';
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
 * The lines a deal change can affect under one plan version: for each rep it credits before and after (its
 * owner, or the reps of its splits) and, when the plan has override chips, their managers in `hierarchy` (on
 * any day, within the chips' depth), the deal's own lines, and when the plan has tiered or attainment chips, every line of that rep in the period the
 * deal was in and the period it is in now (a change there moves the cumulative amounts other deals and
 * the bonus depend on). Evaluate each with `evaluateLines`, passing the rep's deals of those periods
 * plus the changed deal, and the result equals evaluating everything.
 *
 * `formerlyCredited`: reps the deal credited once but credits neither before nor after, whose rows of it still
 * stand (a clawback after a split rep was removed, say). Their lines of the deal earn nothing, but they are dated
 * by the deal: when the deal's period moves (dealPeriodMoved), they move with it, so pass them then.
 */
export function scopeOfDealChange(
  plan: EnginePlanVersion,
  before: DealSnapshot | null,
  after: DealSnapshot,
  today: CalendarDate,
  formerlyCredited: readonly string[] = [],
  hierarchy: RepHierarchy = EMPTY_HIERARCHY,
): EvaluationScope[] {
  const countsPeriods = plan.chips.some((chip) => countsPeriod(plan, chip));
  const depth = overrideDepthOf(plan);
  const periodsByRep = new Map<string, Set<PeriodId>>();
  for (const deal of before === null ? [after] : [before, after]) {
    const credited = creditedReps(deal);
    // The managers whose overrides can count the deal: anyone above a credited rep, on any day, within the depth.
    const managers = depth === 0 ? [] : credited.flatMap((rep) => [...managersEver(hierarchy, rep, depth)]);
    for (const affected of [...credited, ...formerlyCredited, ...managers]) {
      const periods = periodsByRep.get(affected) ?? new Set();
      if (countsPeriods) periods.add(dealPeriodId(deal, plan.period, today));
      periodsByRep.set(affected, periods);
    }
  }
  return [...periodsByRep].map(([rep, periods]) => ({ rep_external_id: rep, periods: [...periods] }));
}
