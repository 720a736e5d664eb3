import type { Condition } from '../plans/types.ts';
import { evaluateCondition } from './conditions.ts';
import type { DealSnapshot, EngineChip, EnginePlanVersion } from './types.ts';

// Rule precedence (docs/plan-features.md, Rule precedence): a chip's `replaces` names general chips that it replaces
// for the deals its `when` matches. The engine reads a replaced chip as if its `when` excluded those deals, so every
// part of it (its lines, its running totals, the running totals kept between events) sees the same deals, and its
// trace names the chip that replaced it.

/** A chip that replaces this one on the deals its condition matches. */
export interface Replacement {
  key: string;
  name: string;
  when: Condition;
}

const evaluated = new WeakMap<EnginePlanVersion, EnginePlanVersion>();

/**
 * The plan as the engine evaluates it: each replaced chip's `when` is its own condition (if any) and, for each chip
 * replacing it, not that chip's condition; `replaced_by` lists those chips for the trace. A plan without `replaces`
 * is returned as it is.
 */
export function withPrecedence(plan: EnginePlanVersion): EnginePlanVersion {
  const known = evaluated.get(plan);
  if (known) return known;
  const replacing = new Map<string, Replacement[]>();
  for (const chip of plan.chips) {
    const keys = 'replaces' in chip.params ? chip.params.replaces : undefined;
    if (!keys || chip.when === null) continue;
    for (const key of keys) {
      replacing.set(key, [...(replacing.get(key) ?? []), { key: chip.key, name: chip.name, when: chip.when }]);
    }
  }
  const result =
    replacing.size === 0
      ? plan
      : {
          ...plan,
          chips: plan.chips.map((chip): EngineChip => {
            const by = replacing.get(chip.key);
            if (!by || chip.replaced_by) return chip;
            const exclusions: Condition[] = by.map((replacement) => ({ not: replacement.when }));
            const when: Condition = { all: [...(chip.when === null ? [] : [chip.when]), ...exclusions] };
            return { ...chip, when, replaced_by: by };
          }),
        };
  evaluated.set(plan, result);
  return result;
}

/** The sentences naming the chips that replace `chip` on `deal` (none when no replacing chip matches it). */
export function replacementSentences(chip: EngineChip, deal: DealSnapshot): string[] {
  return (chip.replaced_by ?? [])
    .filter((replacement) => evaluateCondition(replacement.when, deal).result)
    .map(
      (replacement) =>
        `Rule ${chip.name} (${chip.key}) is replaced by rule ${replacement.name} (${replacement.key}) for this deal: the deal meets ${replacement.key}'s condition, so ${chip.key} does not apply to it and does not count it.`,
    );
}
