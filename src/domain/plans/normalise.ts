import type { LeaverRule } from '../earnings/leavers.ts';
import {
  type Assignee,
  boundOf,
  type CapParams,
  type CashParams,
  type CashRelease,
  type ChipDefinition,
  type Condition,
  type FieldCondition,
  type PlanDefinition,
  paysOf,
  type Tier,
} from './types.ts';

// Normalisation of a valid document: defaults filled in, members in one order, assignees sorted.

export interface RawPlan {
  key: string;
  name: string;
  period?: PlanDefinition['period'];
  quota_cents?: number | null;
  plan_year?: { starts_month: number } | null;
  ramp?: number[] | null;
  leaver_rule?: LeaverRule | null;
  cap_cents?: number | null;
  currency?: string | null;
  draw?: { amount_cents: number; recoverable: boolean; paid?: 'at_lock' | 'in_advance' } | null;
  assignees: 'all' | Array<string | Record<string, unknown>>;
  chips: Array<Record<string, unknown> & { key: string; name: string; kind: ChipDefinition['kind'] }>;
}

export function normalisePlan(raw: RawPlan): PlanDefinition {
  return {
    key: raw.key,
    name: raw.name,
    period: raw.period ?? 'monthly',
    quota_cents: raw.quota_cents ?? null,
    ...(raw.plan_year ? { plan_year: { starts_month: raw.plan_year.starts_month } } : {}),
    assignees: raw.assignees === 'all' ? 'all' : normaliseAssignees(raw.assignees),
    ...(Array.isArray(raw.ramp) ? { ramp: [...raw.ramp] } : {}),
    ...(typeof raw.leaver_rule === 'string' ? { leaver_rule: raw.leaver_rule } : {}),
    ...(typeof raw.cap_cents === 'number' ? { cap_cents: raw.cap_cents } : {}),
    ...(typeof raw.currency === 'string' ? { currency: raw.currency } : {}),
    ...(raw.draw
      ? {
          draw: {
            amount_cents: raw.draw.amount_cents,
            recoverable: raw.draw.recoverable,
            ...(raw.draw.paid === 'in_advance' ? { paid: 'in_advance' as const } : {}),
          },
        }
      : {}),
    chips: raw.chips.map((chip) =>
      normaliseChip({
        key: chip.key,
        name: chip.name,
        kind: chip.kind,
        when: (chip.when as Condition | null | undefined) ?? null,
        params: chip,
      }),
    ),
  };
}

/**
 * A chip in its normal form: members in one order, defaults filled in. Also puts a stored chip (JSON columns
 * whose member order the database does not keep) back into that order.
 */
export function normaliseChip(chip: {
  key: string;
  name: string;
  kind: ChipDefinition['kind'];
  when: Condition | null;
  params: Record<string, unknown>;
}): ChipDefinition {
  const head = { key: chip.key, name: chip.name };
  const when = chip.when === null ? null : normaliseCondition(chip.when);
  const p = chip.params;
  switch (chip.kind) {
    case 'commission':
      return {
        ...head,
        kind: chip.kind,
        when,
        params: {
          rate_bps: p.rate_bps as number,
          base: (p.base as 'amount_cents' | undefined) ?? 'amount_cents',
          ...capsOf(p),
          ...replacesOf(p),
          ...cashOf(p),
        },
      };
    case 'tiered_commission':
      return {
        ...head,
        kind: chip.kind,
        when,
        params: {
          mode: p.mode as 'marginal' | 'retroactive',
          // The default is left out, so that a file that writes it out is the same plan as one that does not.
          ...(p.basis === 'per_deal' ? { basis: 'per_deal' as const } : {}),
          tiers: (p.tiers as Tier[]).map(normaliseTier),
          ...capsOf(p),
          ...replacesOf(p),
          ...cashOf(p),
        },
      };
    case 'flat':
      return {
        ...head,
        kind: chip.kind,
        when,
        params: { amount_cents: p.amount_cents as number, ...capsOf(p), ...replacesOf(p), ...cashOf(p) },
      };
    case 'override':
      return {
        ...head,
        kind: chip.kind,
        when,
        params: { rate_bps: p.rate_bps as number, depth: (p.depth as number | undefined) ?? 1, ...capsOf(p) },
      };
    case 'attainment_bonus':
      return {
        ...head,
        kind: chip.kind,
        when,
        params: { threshold_pct: p.threshold_pct as number, amount_cents: p.amount_cents as number },
      };
  }
}

/**
 * Assignees sorted by rep, then by window start. A dated assignment keeps only the bounds it gives, and one
 * without either bound is the plain rep id, so plans without dates keep their digests.
 */
function normaliseAssignees(assignees: ReadonlyArray<string | Record<string, unknown>>): Assignee[] {
  const normalised = assignees.map((entry): Assignee => {
    if (typeof entry === 'string') return entry;
    const owner = entry.owner_external_id as string;
    const from = typeof entry.from === 'string' ? entry.from : undefined;
    const until = typeof entry.until === 'string' ? entry.until : undefined;
    if (from === undefined && until === undefined) return owner;
    return {
      owner_external_id: owner,
      ...(from === undefined ? {} : { from }),
      ...(until === undefined ? {} : { until }),
    };
  });
  const sortKey = (entry: Assignee) =>
    typeof entry === 'string' ? `${entry}\u0000` : `${entry.owner_external_id}\u0000${entry.from ?? ''}`;
  return normalised.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
}

/** The caps and floor a chip sets; none (not null members) when it sets none, so uncapped chips keep their digests. */
function capsOf(params: Record<string, unknown>): CapParams {
  return {
    ...(typeof params.cap_cents === 'number' ? { cap_cents: params.cap_cents } : {}),
    ...(typeof params.deal_cap_cents === 'number' ? { deal_cap_cents: params.deal_cap_cents } : {}),
    ...(typeof params.floor_cents === 'number' ? { floor_cents: params.floor_cents } : {}),
  };
}

/**
 * Pay on cash with its defaults filled in (`held_pct` 100, `release` `pro_rata`); nothing for `payable_on: booking`, the
 * default, written out or not, so that chips paid on booking keep their digests.
 */
function cashOf(params: Record<string, unknown>): CashParams {
  if (params.payable_on !== 'cash') return {};
  const cash = (params.cash ?? {}) as { held_pct?: number; release?: CashRelease };
  return { payable_on: 'cash', cash: { held_pct: cash.held_pct ?? 100, release: cash.release ?? 'pro_rata' } };
}

/** The chips a chip replaces, in the file's order; none (no member) when it replaces none, so other chips keep their digests. */
function replacesOf(params: Record<string, unknown>): { replaces?: string[] } {
  return Array.isArray(params.replaces) ? { replaces: params.replaces.map(String) } : {};
}

function normaliseTier(tier: Tier): Tier {
  return { ...boundOf(tier), ...paysOf(tier) };
}

function normaliseCondition(condition: Condition): Condition {
  if ('all' in condition) return { all: condition.all.map(normaliseCondition) };
  if ('any' in condition) return { any: condition.any.map(normaliseCondition) };
  if ('not' in condition) return { not: normaliseCondition(condition.not) };
  const comparison: FieldCondition = { field: condition.field, op: condition.op };
  if (condition.value !== undefined) comparison.value = condition.value;
  return comparison;
}
