import { type CalendarDate, periodBounds, periodIdOf } from '../periods.ts';
import { type AssignmentWindow, assignmentWindows } from './assignments.ts';
import type { RepQuotas } from './quotas.ts';
import type { EnginePlanVersion } from './types.ts';

// Leavers (docs/reps-and-payroll.md, "Pay after the leaving date"): what a plan pays a rep after their leaving date
// follows the plan's `leaver_rule`, applied by cutting the rep's assignment windows at the last day the rule pays
// for. Everything else follows from the windows: deals dated after that day earn nothing, a period the day falls
// inside has its quota prorated by the days before it, and a line whose row stands in a locked period is taken back
// in the next open one, as any late change is. Pure: the caller reads the leaving date and the periods paid.

/** `pay_through_leaving_date` (the default): deals dated up to the leaving date are paid. */
export type LeaverRule = 'stop' | 'pay_through_leaving_date' | 'claw_back_unpaid';

export const DEFAULT_LEAVER_RULE: LeaverRule = 'pay_through_leaving_date';

/** A rep who has left: their last day, and the last day of the latest period paid when they were deactivated. */
export interface RepLeaving {
  date: CalendarDate;
  /** The last day of the latest period already paid when the rep was deactivated; null: none was. */
  paid_through: CalendarDate | null;
}

export function leaverRuleOf(plan: Pick<EnginePlanVersion, 'leaver_rule'>): LeaverRule {
  return plan.leaver_rule ?? DEFAULT_LEAVER_RULE;
}

function dayBefore(date: CalendarDate): CalendarDate {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) - 86_400_000).toISOString().slice(0, 10);
}

/**
 * The last day whose deals the plan pays a leaver for:
 * - `pay_through_leaving_date`: the leaving date;
 * - `stop`: the last day of the last plan period the rep finished (a leaving date inside a period forfeits it);
 * - `claw_back_unpaid`: the last day of the latest period paid when the rep was deactivated, at most the leaving
 *   date; null when nothing was paid (the plan then pays them nothing, and takes back what it had booked).
 */
export function lastPaidDay(plan: Pick<EnginePlanVersion, 'period' | 'leaver_rule'>, leaving: RepLeaving) {
  const rule = leaverRuleOf(plan);
  if (rule === 'pay_through_leaving_date') return leaving.date;
  if (rule === 'stop') {
    const { starts_on, ends_on } = periodBounds(periodIdOf(leaving.date, plan.period));
    return ends_on === leaving.date ? leaving.date : dayBefore(starts_on);
  }
  if (leaving.paid_through === null) return null;
  return leaving.paid_through < leaving.date ? leaving.paid_through : leaving.date;
}

/** The rep's windows under the plan, cut at the last day the leaver rule pays for; unchanged for a rep who stays. */
export function leaverWindows(
  windows: readonly AssignmentWindow[],
  plan: Pick<EnginePlanVersion, 'period' | 'leaver_rule'>,
  leaving: RepLeaving | null | undefined,
): AssignmentWindow[] {
  if (!leaving || windows.length === 0) return [...windows];
  const last = lastPaidDay(plan, leaving);
  if (last === null) return [];
  return windows
    .filter((window) => window.from === null || window.from <= last)
    .map((window) => ({
      from: window.from,
      until: window.until !== null && window.until < last ? window.until : last,
    }));
}

const RULE_WORDS: Record<LeaverRule, string> = {
  pay_through_leaving_date: 'pays a leaver for deals dated up to their leaving date',
  stop: 'pays a leaver only for the periods they finished',
  claw_back_unpaid: 'takes back from a leaver what was not paid when they left',
};

/**
 * The trace's sentence: "rep-017 left on 2026-05-15; plan ae's leaver rule (stop) pays a leaver only for the periods
 * they finished, so deals dated after 2026-04-30 earn nothing."
 */
export function leaverSentence(
  plan: Pick<EnginePlanVersion, 'period' | 'leaver_rule' | 'plan_key'>,
  repExternalId: string,
  leaving: RepLeaving,
): string {
  const rule = leaverRuleOf(plan);
  const last = lastPaidDay(plan, leaving);
  const cut =
    last === null ? 'nothing earns (nothing was paid when they left)' : `deals dated after ${last} earn nothing`;
  return `${repExternalId} left on ${leaving.date}; plan ${plan.plan_key}'s leaver rule (${rule}) ${RULE_WORDS[rule]}, so ${cut}.`;
}

/** The rep's windows under the plan as the engine reads them: their assignments, cut by the leaver rule. */
export function repWindows(
  plan: Pick<EnginePlanVersion, 'assignees' | 'period' | 'leaver_rule'>,
  repExternalId: string,
  quotas: RepQuotas | undefined,
): AssignmentWindow[] {
  return leaverWindows(assignmentWindows(plan, repExternalId), plan, quotas?.leaving);
}
