import { assignmentWindows, windowsOverlapPeriod } from './earnings/assignments.ts';
import { type CalendarDate, type PeriodId, type PeriodKind, periodBounds, periodKindOf } from './periods.ts';
import type { Assignee } from './plans/types.ts';

// Which periods a manual adjustment may go into (docs/pay-workflow.md#manual-adjustments): a period of a plan the rep
// is on, so that an org paying monthly is not sent a quarter and a month long before anything was booked is not
// opened for one. Pure: the service reads the plans, the rep's rows and the org's first booked period.

export interface AdjustmentPeriodPlan {
  key: string;
  status: string;
  period: PeriodKind;
  assignees: 'all' | readonly Assignee[];
}

function windowsOf(plan: AdjustmentPeriodPlan, rep: string) {
  return assignmentWindows({ assignees: plan.assignees === 'all' ? 'all' : [...plan.assignees] }, rep);
}

const KIND_WORD: Record<PeriodKind, string> = { monthly: 'a month (YYYY-MM)', quarterly: 'a quarter (YYYY-Qn)' };

/**
 * Why the rep's adjustment may not go into the period, or null when it may. It may when the rep has earnings rows in
 * it; else the period must be of a plan the rep is on (an active plan of the period's kind that has the rep assigned
 * during it), or, for a rep on no plan, of a kind the org's active plans pay by; and it must not end before the org's
 * first period with earnings (`firstBookedOn`, its first day; null while nothing is booked).
 */
export function adjustmentPeriodProblem(request: {
  periodId: PeriodId;
  repExternalId: string;
  plans: readonly AdjustmentPeriodPlan[];
  repHasRowsInPeriod: boolean;
  firstBookedOn: CalendarDate | null;
}): string | null {
  const { periodId, repExternalId: rep } = request;
  if (request.repHasRowsInPeriod) return null;
  const kind = periodKindOf(periodId);
  const active = request.plans.filter((plan) => plan.status === 'active');
  const own = active.filter((plan) => windowsOf(plan, rep).length > 0);
  if (own.length > 0) {
    const covering = own.filter((plan) => plan.period === kind && windowsOverlapPeriod(windowsOf(plan, rep), periodId));
    if (covering.length === 0) {
      const ofKind = own.filter((plan) => plan.period === kind);
      if (ofKind.length > 0) {
        return `period_id: ${rep} is not assigned to ${ofKind.map((plan) => plan.key).join(', ')} during ${periodId} and has no earnings in it; an adjustment goes into a period of a plan the rep is on`;
      }
      return kindProblem(periodId, kind, `no plan ${rep} is on`, own);
    }
  } else if (active.length > 0 && !active.some((plan) => plan.period === kind)) {
    return kindProblem(periodId, kind, `${rep} is on no plan, and none of the org's plans`, active);
  }
  const { ends_on } = periodBounds(periodId);
  if (request.firstBookedOn !== null && ends_on < request.firstBookedOn) {
    return `period_id: ${periodId} ended before the org's first period with earnings (which starts on ${request.firstBookedOn}), and ${rep} has no earnings in it; an adjustment goes into a period the rep was paid in or is paid in now`;
  }
  return null;
}

function kindProblem(
  periodId: PeriodId,
  kind: PeriodKind,
  who: string,
  plans: readonly AdjustmentPeriodPlan[],
): string {
  const kinds = [...new Set(plans.map((plan) => plan.period))];
  return `period_id: ${periodId} is ${kind === 'monthly' ? 'a month' : 'a quarter'}, and ${who} pays by ${kind === 'monthly' ? 'month' : 'quarter'} (${plans.map((plan) => `${plan.key} pays ${plan.period}`).join(', ')}); use ${kinds.map((each) => KIND_WORD[each]).join(' or ')}`;
}
