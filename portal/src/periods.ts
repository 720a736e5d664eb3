// Period ids as the API names them: `2026-04` for a month, `2026-Q2` for a quarter.

export type PeriodKind = 'monthly' | 'quarterly';

export function periodOfDate(date: string, kind: PeriodKind): string {
  const year = date.slice(0, 4);
  const month = Number(date.slice(5, 7));
  return kind === 'monthly' ? `${year}-${String(month).padStart(2, '0')}` : `${year}-Q${Math.ceil(month / 3)}`;
}

export function kindOf(periodId: string): PeriodKind {
  return periodId.includes('Q') ? 'quarterly' : 'monthly';
}

export function previousPeriod(periodId: string): string {
  const year = Number(periodId.slice(0, 4));
  if (kindOf(periodId) === 'quarterly') {
    const quarter = Number(periodId.slice(6));
    return quarter === 1 ? `${year - 1}-Q4` : `${year}-Q${quarter - 1}`;
  }
  const month = Number(periodId.slice(5));
  return month === 1 ? `${year - 1}-12` : `${year}-${String(month - 1).padStart(2, '0')}`;
}

export function nextPeriod(periodId: string): string {
  const year = Number(periodId.slice(0, 4));
  if (kindOf(periodId) === 'quarterly') {
    const quarter = Number(periodId.slice(6));
    return quarter === 4 ? `${year + 1}-Q1` : `${year}-Q${quarter + 1}`;
  }
  const month = Number(periodId.slice(5));
  return month === 12 ? `${year + 1}-01` : `${year}-${String(month + 1).padStart(2, '0')}`;
}

/** The last `count` periods up to and including `periodId`, oldest first. */
export function periodsUpTo(periodId: string, count: number): string[] {
  const periods = [periodId];
  while (periods.length < count) periods.unshift(previousPeriod(periods[0] as string));
  return periods;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Apr 2026`, `Q2 2026`. */
export function periodLabel(periodId: string): string {
  if (kindOf(periodId) === 'quarterly') return `${periodId.slice(5)} ${periodId.slice(0, 4)}`;
  return `${MONTHS[Number(periodId.slice(5)) - 1]} ${periodId.slice(0, 4)}`;
}

export function today(): string {
  return new Date().toISOString().slice(0, 10);
}
