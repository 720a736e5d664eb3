import type { PeriodId } from '../periods.ts';
import { type AssignmentWindow, coveredDays } from './assignments.ts';
import { roundHalfAwayFromZero } from './money.ts';
import type { EngineChip } from './types.ts';

// Quota proration for a rep assigned for only part of a period.

/**
 * How many of the period's days the rep's windows cover, when they cover only part of it (what prorates its quota
 * and draw); null when they cover all of it or none.
 */
export function partialCover(
  windows: readonly AssignmentWindow[],
  periodId: PeriodId,
): { covered: number; days: number } | null {
  const cover = coveredDays(windows, periodId);
  return cover.covered > 0 && cover.covered < cover.days ? cover : null;
}

/**
 * A quota prorated by the days of the period a rep's windows cover: rounded half away from zero, at least 1; a quota
 * of 0 stays 0 (0% attainment, not a quota of one cent).
 */
export function proratedQuota(quota: bigint, covered: number, days: number): bigint {
  const exact = roundHalfAwayFromZero(quota * BigInt(covered), BigInt(days));
  return exact > 0n || quota === 0n ? exact : 1n;
}

/** Whether a chip's result depends on the quota: an attainment bonus, or tiers in percent of quota. */
export function chipReadsQuota(chip: EngineChip): boolean {
  if (chip.kind === 'attainment_bonus') return true;
  if (chip.kind !== 'tiered_commission') return false;
  const tiers = (chip.params as { tiers?: unknown }).tiers;
  return Array.isArray(tiers) && tiers.some((tier) => typeof tier === 'object' && tier !== null && 'up_to_pct' in tier);
}
