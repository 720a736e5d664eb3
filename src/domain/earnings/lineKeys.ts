import { isPeriodId, type PeriodId } from '../periods.ts';
import type { EngineChip, EnginePlanVersion, LineRef, Rep } from './types.ts';

/**
 * A line's key, `plan:chip:user:deal-or-period`, or `plan:chip:user:deal:period` for a deal's line of one period (the
 * release line of a chip paid on cash, cashTerms.ts). No part holds a `:` (TypeIDs are lowercase letters, `_` and
 * base32 digits; period ids are `2026-04` or `2026-Q2`), and no deal id looks like a period id.
 */
export function lineKeyOf(line: Omit<LineRef, 'line_key'>): string {
  const last =
    line.deal_id !== null && line.period_id !== null
      ? [line.deal_id, line.period_id]
      : [line.deal_id ?? line.period_id];
  return [line.plan_id, line.chip_id, line.user_id, ...last].join(':');
}

/** The parts of a key made by `lineKeyOf`: a period-level line ends in its period id, a deal-level one in its deal. */
export function parseLineKey(lineKey: string): Omit<LineRef, 'line_key'> {
  const [plan_id, chip_id, user_id, last, period, ...rest] = lineKey.split(':');
  if (!plan_id || !chip_id || !user_id || !last || rest.length > 0 || (period !== undefined && !isPeriodId(period))) {
    throw new Error(`Not a line key: ${JSON.stringify(lineKey)}`);
  }
  if (period !== undefined) return { plan_id, chip_id, user_id, deal_id: last, period_id: period };
  const periodLevel = isPeriodId(last);
  return { plan_id, chip_id, user_id, deal_id: periodLevel ? null : last, period_id: periodLevel ? last : null };
}

export function lineRef(
  plan: EnginePlanVersion,
  chip: EngineChip,
  rep: Rep,
  dealId: string | null,
  periodId: PeriodId | null,
) {
  const ref = { user_id: rep.user_id, plan_id: plan.plan_id, chip_id: chip.id, deal_id: dealId, period_id: periodId };
  return { line_key: lineKeyOf(ref), ...ref };
}
