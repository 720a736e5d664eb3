import type { EvaluationScope } from './changeScope.ts';
import { dealPeriodId } from './dealPeriods.ts';
import { withPrecedence } from './precedence.ts';
import { type Evaluation, type EvaluationRequest, evaluateLines } from './targets.ts';
import type { DealSnapshot } from './types.ts';

// Evaluating what a deal change can move (scopeOfDealChange) for one rep, and nothing else: the changed deal's
// lines of the scope's deal chips on their own, and every line of its period chips in its periods.

export interface ScopeRequest extends Omit<EvaluationRequest, 'deals' | 'periods'> {
  scope: EvaluationScope;
  /** The deal as the change left it. */
  changed: DealSnapshot;
  /**
   * Other deals changed with it (several events evaluated together): each counts in the period chips' lines as the
   * changes left it, in the scope's periods or not, as `changed` does (a deal that left the rep or its periods then
   * has its line there brought to nothing).
   */
  alsoChanged?: readonly DealSnapshot[];
  /**
   * The deals the rep's lines read (see repsReadBy) in the scope's periods; others are left out. The changed deal
   * may be among them, as it is now or as it was: `changed` wins.
   */
  deals: readonly DealSnapshot[];
}

/** The scope's lines for the rep, in the plan's chip order (the order rows written together are numbered in). */
export function evaluateScope(request: ScopeRequest): Evaluation {
  const { scope, changed, today } = request;
  // Precedence first: a replaced chip evaluated without the chip that replaces it still excludes its deals.
  const plan = withPrecedence(request.plan);
  const common = { rep: request.rep, today, ...pick(request) };
  const only = (chipIds: readonly string[]) => ({
    ...plan,
    chips: plan.chips.filter((chip) => chipIds.includes(chip.id)),
  });
  const inPeriods = request.deals.filter((deal) => scope.periods.includes(dealPeriodId(deal, plan.period, today)));
  const evaluations = [
    scope.deal_chips.length === 0
      ? null
      : evaluateLines({ ...common, plan: only(scope.deal_chips), deals: [changed], periods: [] }),
    scope.period_chips.length === 0
      ? null
      : evaluateLines({
          ...common,
          plan: only(scope.period_chips),
          deals: [...inPeriods, ...(request.alsoChanged ?? []), changed],
          periods: scope.periods,
        }),
  ].flatMap((evaluation) => (evaluation ? [evaluation] : []));
  const position = new Map(plan.chips.map((chip, index) => [chip.id, index]));
  return {
    targets: evaluations
      .flatMap((evaluation) => evaluation.targets)
      .sort((a, b) => (position.get(a.line.chip_id) ?? 0) - (position.get(b.line.chip_id) ?? 0)),
    problems: evaluations.flatMap((evaluation) => evaluation.problems),
  };
}

/** The request's optional settings, present only when given. */
function pick(request: ScopeRequest): Pick<EvaluationRequest, 'hierarchy' | 'money' | 'quotas' | 'credits'> {
  return {
    ...(request.credits ? { credits: request.credits } : {}),
    ...(request.quotas ? { quotas: request.quotas } : {}),
    ...(request.hierarchy ? { hierarchy: request.hierarchy } : {}),
    ...(request.money ? { money: request.money } : {}),
  };
}
