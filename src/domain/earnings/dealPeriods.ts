import { type CalendarDate, calendarDateOfInstant, type PeriodId, type PeriodKind, periodIdOf } from '../periods.ts';
import type { DealSnapshot } from './types.ts';

// Where a deal's lines fall and in what order a period's won deals count.

/**
 * The period a deal's lines fall in: that of its `close_date`; without one, that of `won_at` (a won
 * deal), else the current period, the one of `today` (an open deal's projection shows there).
 */
export function dealPeriodId(deal: DealSnapshot, kind: PeriodKind, today: CalendarDate): PeriodId {
  if (deal.close_date !== null) return periodIdOf(deal.close_date, kind);
  if (deal.won_at !== null) return periodIdOf(calendarDateOfInstant(deal.won_at), kind);
  return periodIdOf(today, kind);
}

/** Whether a change moved the deal to another period (of either kind): the lines dated by it move too. */
export function dealPeriodMoved(before: DealSnapshot | null, after: DealSnapshot, today: CalendarDate): boolean {
  if (before === null) return false;
  return (['monthly', 'quarterly'] as const).some(
    (kind) => dealPeriodId(before, kind, today) !== dealPeriodId(after, kind, today),
  );
}

/**
 * The order in which tiered commissions count a period's won deals: close date, then won time, then
 * id. A deal without a close date sorts by the day it was won; one without a won time sorts last.
 */
export function wonOrderKey(deal: DealSnapshot): string[] {
  const wonAt = deal.won_at === null ? null : new Date(deal.won_at).toISOString();
  return [deal.close_date ?? wonAt?.slice(0, 10) ?? '', wonAt ?? '\uffff', deal.id];
}

export function compareKeys(a: string[], b: string[]): number {
  for (let index = 0; index < a.length; index++) {
    const left = a[index] ?? '';
    const right = b[index] ?? '';
    if (left !== right) return left < right ? -1 : 1;
  }
  return 0;
}
