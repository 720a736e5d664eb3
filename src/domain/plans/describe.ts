import { formatMinorUnits } from '../currencies.ts';
import { formatChipRate, rateOfBps } from '../earnings/money.ts';
import type { ChipDefinition, Condition, Tier } from './types.ts';

// Rule chips in words, for people reading a plan in the console: "10.00% of the deal amount",
// "when stage is closed_won and amount_cents is at least 1,000,000". Pure: no I/O.

const OPERATORS: Record<string, string> = {
  eq: 'is',
  ne: 'is not',
  in: 'is one of',
  nin: 'is none of',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  exists: 'is set',
  contains: 'contains',
};

/** A plan file's `rate_bps` as a percentage, exact from its decimal digits: 1000 → `10.00%`, 133.33 → `1.3333%`. */
export function percentOfBps(bps: number): string {
  const rate = rateOfBps(bps);
  return rate === null ? `${bps} bps` : formatChipRate(rate);
}

/** What a band pays, in words: its rate, or the amount a proportional table's band holds for filling it. */
export function tierPays(tier: Tier, money: (cents: number) => string): string {
  return 'amount_cents' in tier
    ? `${money(tier.amount_cents)} for the whole band, in proportion`
    : percentOfBps(tier.rate_bps);
}

function scalar(value: unknown): string {
  if (Array.isArray(value)) return value.map(scalar).join(', ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A condition in words; `name` words each field (the console shows paths, a plan document "the deal's region"). */
export function describeCondition(condition: Condition, name: (field: string) => string = (field) => field): string {
  if ('all' in condition) return condition.all.map((part) => describeNested(part, name)).join(' and ');
  if ('any' in condition) return condition.any.map((part) => describeNested(part, name)).join(' or ');
  if ('not' in condition) return `not (${describeCondition(condition.not, name)})`;
  const operator = OPERATORS[condition.op] ?? condition.op;
  return condition.op === 'exists'
    ? `${name(condition.field)} ${operator}`
    : `${name(condition.field)} ${operator} ${scalar(condition.value)}`;
}

function describeNested(condition: Condition, name: (field: string) => string): string {
  return 'all' in condition || 'any' in condition
    ? `(${describeCondition(condition, name)})`
    : describeCondition(condition, name);
}

function describeTier(tier: Tier, index: number, tiers: readonly Tier[], currency: string): string {
  const previous = index === 0 ? null : tiers[index - 1];
  const bound = (t: Tier | null | undefined) =>
    !t
      ? null
      : 'up_to_cents' in t
        ? t.up_to_cents === null
          ? null
          : formatMinorUnits(t.up_to_cents, currency)
        : 'up_to_deals' in t
          ? t.up_to_deals === null
            ? null
            : `deal ${t.up_to_deals}`
          : t.up_to_pct === null
            ? null
            : `${t.up_to_pct}% of quota`;
  const from = bound(previous);
  const to = bound(tier);
  const range =
    to === null ? (from === null ? 'everything' : `above ${from}`) : from === null ? `up to ${to}` : `${from} to ${to}`;
  return `${tierPays(tier, (cents) => formatMinorUnits(cents, currency))} ${range}`;
}

/** What the chip pays, in words, amounts in the plan's currency. */
export function describeChip(chip: ChipDefinition, currency: string): string {
  switch (chip.kind) {
    case 'commission': {
      const base = chip.params.base === 'amount_cents' ? 'the deal amount' : `the deal's ${chip.params.base}`;
      return `Commission: ${percentOfBps(chip.params.rate_bps)} of ${base}`;
    }
    case 'tiered_commission': {
      const tiers = chip.params.tiers.map((tier, index, all) => describeTier(tier, index, all, currency)).join('; ');
      return `Tiered commission (${chip.params.mode}${chip.params.basis === 'per_deal' ? ', per deal' : ''}): ${tiers}`;
    }
    case 'flat':
      return `Flat amount: ${formatMinorUnits(chip.params.amount_cents, currency)} per deal`;
    case 'override': {
      const reach = chip.params.depth === 1 ? 'direct reports' : `reports down to ${chip.params.depth} levels`;
      return `Manager override: ${percentOfBps(chip.params.rate_bps)} of the credited amounts of the deals of ${reach}`;
    }
    case 'attainment_bonus':
      return `Attainment bonus: ${formatMinorUnits(chip.params.amount_cents, currency)} once attainment reaches ${chip.params.threshold_pct}% of quota`;
  }
}
