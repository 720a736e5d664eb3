import { canonicalDigest } from '../json.ts';
import type { ChipDefinition, PlanDefinition } from './types.ts';

// Digests of plan content. Stored plan versions and chips keep them, so the encoding (SHA-256 of the canonical
// JSON, src/domain/json.ts) must never change: a change would make every unchanged file look changed on its
// next apply.

/** SHA-256 of the canonical JSON of the normalised plan: the same digest means the same content (a no-op apply). */
export function planContentDigest(plan: PlanDefinition): string {
  return canonicalDigest(plan);
}

/**
 * SHA-256 of what a chip computes: its kind, condition and parameters, plus the plan settings it reads (the
 * quota, and the ramp when there is one, for `up_to_pct` bands and attainment bonuses; the period length for the period-cumulative kinds). A chip's
 * `version` rises exactly when this changes; renaming a chip or editing another chip leaves it alone.
 */
export function chipDefinitionDigest(
  plan: Pick<
    PlanDefinition,
    'period' | 'quota_cents' | 'ramp' | 'cap_cents' | 'currency' | 'leaver_rule' | 'plan_year' | 'chips'
  >,
  chip: ChipDefinition,
): string {
  // A replaced chip reads the conditions of the chips that replace it (only when there are, so others keep theirs).
  const replacedBy = plan.chips.flatMap((other) =>
    'replaces' in other.params && other.params.replaces?.includes(chip.key)
      ? [{ key: other.key, when: other.when }]
      : [],
  );
  const reads = planInputsOf(plan, chip);
  return canonicalDigest({
    kind: chip.kind,
    when: chip.when,
    params: chip.params,
    reads: replacedBy.length === 0 ? reads : { ...reads, replaced_by: replacedBy },
  });
}

/**
 * The plan settings a chip's result depends on. Caps add theirs only when set, so that the digests
 * of chips without caps stay what they were: a chip cap or floor per period reads the period length, the plan's cap
 * reads itself and the period length.
 */
function planInputsOf(
  plan: Pick<
    PlanDefinition,
    'period' | 'quota_cents' | 'ramp' | 'cap_cents' | 'currency' | 'leaver_rule' | 'plan_year'
  >,
  chip: ChipDefinition,
) {
  // A plan's currency and leaver rule are read only when the file names them, so plans without keep their digests.
  const kind =
    plan.leaver_rule === undefined
      ? kindInputsOf(plan, chip)
      : { ...kindInputsOf(plan, chip), leaver_rule: plan.leaver_rule };
  const priced = plan.currency === undefined ? kind : { ...kind, currency: plan.currency };
  // A plan year moves what a tiered chip counts (the year to date) and against which quota (the annual one).
  const reads =
    plan.plan_year !== undefined && chip.kind === 'tiered_commission'
      ? { ...priced, plan_year: plan.plan_year }
      : priced;
  const chipCap =
    chip.kind !== 'attainment_bonus' && (chip.params.cap_cents !== undefined || chip.params.floor_cents !== undefined);
  if (plan.cap_cents !== undefined) return { ...reads, period: plan.period, plan_cap_cents: plan.cap_cents };
  return chipCap ? { ...reads, period: plan.period } : reads;
}

function kindInputsOf(plan: Pick<PlanDefinition, 'period' | 'quota_cents' | 'ramp'>, chip: ChipDefinition) {
  // A ramp is read by the chips that read the quota, and only when the file has one, so other plans keep their digests.
  const quota =
    plan.ramp === undefined ? { quota_cents: plan.quota_cents } : { quota_cents: plan.quota_cents, ramp: plan.ramp };
  switch (chip.kind) {
    case 'commission':
    case 'flat':
    case 'override':
      return {};
    case 'tiered_commission':
      return chip.params.tiers.some((tier) => 'up_to_pct' in tier)
        ? { period: plan.period, ...quota }
        : { period: plan.period };
    case 'attainment_bonus':
      return { period: plan.period, ...quota };
  }
}
