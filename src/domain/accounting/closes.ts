import { addMonths, type Month } from './months.ts';
import type { AccountingClose } from './schedule.ts';

// Closing accounting months (docs/accounting.md, Closed months): months close in order, only once they have
// ended, and a closed month never opens again. Closing a month closes the open months before it with it.

export type CloseDecision = { ok: true; months: Month[] } | { ok: false; reason: string };

export function lastClosedMonth(closes: readonly AccountingClose[]): Month | null {
  return closes.reduce<Month | null>((last, close) => (last === null || close.month > last ? close.month : last), null);
}

/** The months that closing `month` closes, given the org's closes and today's month. */
export function monthsToClose(closes: readonly AccountingClose[], month: Month, currentMonth: Month): CloseDecision {
  if (month >= currentMonth) return { ok: false, reason: `month: ${month} has not ended yet` };
  const last = lastClosedMonth(closes);
  if (last !== null && month <= last)
    return { ok: false, reason: `month: ${month} is already closed (closed through ${last})` };
  const months: Month[] = [];
  for (let next = last === null ? month : addMonths(last, 1); next <= month; next = addMonths(next, 1))
    months.push(next);
  return { ok: true, months };
}
