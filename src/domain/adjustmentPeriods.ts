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
 * Why the rep's adjustment may not go into the period, or null when it may: the rep has earnings rows in it, or an
 * active plan of the period's kind has the rep assigned during it and the period does not end before the org's
 * first period with earnings (`firstBookedOn`, its first day; the org's creation when nothing is booked yet).
 */
export function adjustmentPeriodProblem(request: {
  periodId: PeriodId;
  repExternalId: string;
  plans: readonly AdjustmentPeriodPlan[];
  repHasRowsInPeriod: boolean;
  firstBookedOn: CalendarDate;
}): string | null {
  const { periodId, repExternalId: rep } = request;
  if (request.repHasRowsInPeriod) return null;
  const kind = periodKindOf(periodId);
  const own = request.plans.filter((plan) => plan.status === 'active' && windowsOf(plan, rep).length > 0);
  if (own.length === 0) {
    return `period_id: ${rep} is on no active plan and has no earnings in ${periodId}; an adjustment goes into a period of a plan the rep is on`;
  }
  const covering = own.filter((plan) => plan.period === kind && windowsOverlapPeriod(windowsOf(plan, rep), periodId));
  if (covering.length === 0) {
    const ofKind = own.filter((plan) => plan.period === kind);
    if (ofKind.length > 0) {
      return `period_id: ${rep} is not assigned to ${ofKind.map((plan) => plan.key).join(', ')} during ${periodId} and has no earnings in it; an adjustment goes into a period of a plan the rep is on`;
    }
    const kinds = [...new Set(own.map((plan) => plan.period))];
    return `period_id: ${periodId} is ${kind === 'monthly' ? 'a month' : 'a quarter'}, and no plan ${rep} is on pays by ${kind === 'monthly' ? 'month' : 'quarter'} (${own.map((plan) => `${plan.key} pays ${plan.period}`).join(', ')}); use ${kinds.map((each) => KIND_WORD[each]).join(' or ')}`;
  }
  const { ends_on } = periodBounds(periodId);
  if (ends_on < request.firstBookedOn) {
    return `period_id: ${periodId} ended before anything was booked for the org (its first period starts on ${request.firstBookedOn}) and ${rep} has no earnings in it; an adjustment goes into a period the rep was paid in or is paid in now`;
  }
  return null;
}
