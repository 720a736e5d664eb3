import type { components } from '../../../generated/openapi.ts';
import type { PeriodId } from '../periods.ts';
import type { ChipDefinition, PlanDefinition } from '../plans/types.ts';
import type { LeaverRule } from './leavers.ts';
import type { Replacement } from './precedence.ts';

// The engine's inputs and outputs are plain data: what the plan and ingestion code load from the
// database goes in as is, and what comes out is written back as is. The trace types are the contract's
// own, so a trace that type-checks here has the shape `GET /v1/earnings/{id}` promises.

type Schemas = components['schemas'];

export type Condition = Schemas['Condition'];
export type FieldCondition = Schemas['FieldCondition'];
export type DealStatus = Schemas['DealStatus'];
export type EarningStatus = Schemas['EarningStatus'];
export type EarningTrace = Schemas['EarningTrace'];
export type TraceStep = Schemas['TraceStep'];
export type TracePeriod = Schemas['Period'];
export type TraceCountedDeal = Schemas['TraceCountedDeal'];
export type TraceCountedAdjustment = Schemas['TraceCountedAdjustment'];
export type TraceCause = Schemas['TraceCause'];
export type TraceReplacement = Schemas['TraceReplacement'];
export type ZeroTargetReason = Schemas['TraceZeroTargetStep']['reason'];
export type PeriodStatus = TracePeriod['status'];

/** A deal as the engine reads it: the projection's fields, `won_at` included. Same shape as the trace's deal. */
export type DealSnapshot = Schemas['TraceDeal'];

/**
 * A rule chip of a plan version: the plan file's chip as `src/domain/plans` normalises it, plus the id
 * and `rule_version` the database gives it. The engine checks `params` again before using them (see
 * `checkPlanForEngine`), since they come back from a JSON column.
 */
export type EngineChip = ChipDefinition & {
  id: string;
  /** The chip's `rule_version`, a decimal integer as a string. */
  version: string;
  /** The chips that replace this one on the deals they match (precedence.ts); their exclusion is in `when`. */
  replaced_by?: Replacement[];
};

/** One version of a plan, normalised: everything the engine needs and nothing it does not. */
export interface EnginePlanVersion {
  plan_id: string;
  plan_key: string;
  version_id: string;
  version_number: number;
  period: PlanDefinition['period'];
  /** Per rep per period; needed by `up_to_pct` bands and `attainment_bonus`. */
  quota_cents: PlanDefinition['quota_cents'];
  /** A plan year paid monthly (planYear.ts): tiers count from the year's start against the annual quota. */
  plan_year?: PlanDefinition['plan_year'] | null;
  /** `all`, or the `owner_external_id` values of the reps the plan applies to. */
  assignees: PlanDefinition['assignees'];
  /**
   * Percent of the full quota by month since the rep's start date (quotas.ts); absent or null when the plan has no
   * ramp.
   */
  ramp?: readonly number[] | null;
  /** At most this much per rep and period over all chips; absent or null when the plan has no cap. */
  cap_cents?: number | null;
  /** ISO 4217: the currency the plan pays in; absent or null pays in the org's default currency. */
  currency?: string | null;
  /** The plan's draw per rep and period; absent or null when the plan has none. */
  draw?: PlanDefinition['draw'] | null;
  /** What the plan pays a rep after their leaving date (leavers.ts); absent or null: `pay_through_leaving_date`. */
  leaver_rule?: LeaverRule | null;
  /** In plan-file order. */
  chips: EngineChip[];
}

/** A rep: the internal user id that earnings carry, and the external id that deals name as owner. */
export interface Rep {
  user_id: string;
  external_id: string;
}

/**
 * A line is (user, plan, chip, deal or period). `line_key` identifies it across plan versions (chip ids
 * are stable by key), so the ledger can find its rows.
 */
export interface LineRef {
  line_key: string;
  user_id: string;
  plan_id: string;
  chip_id: string;
  /** The deal of a deal-level line; `null` for a period-level line (attainment bonus). */
  deal_id: string | null;
  /** The period of a period-level line; `null` for a deal-level line, whose period follows the deal. */
  period_id: PeriodId | null;
}

/**
 * The trace of a line's target as the engine computed it. The ledger completes it for the row it
 * writes: the period the row is booked in, the locked total, the result and the superseded row.
 */
export type TargetTrace = Omit<EarningTrace, 'period' | 'result' | 'superseded'>;

export interface LineTarget {
  line: LineRef;
  plan_version_id: string;
  rule_version: string;
  /** E: what the line has earned (a won deal the chip applies to, or a reached attainment bonus). */
  earned_cents: number;
  /** F: what the line is projected to earn (an open deal the chip applies to). */
  projected_cents: number;
  /** The period E or F belongs to: of `close_date`, else of `won_at` (won) or the current period (open). */
  period_id: PeriodId;
  trace: TargetTrace;
  /** ISO 4217: the plan's currency, which the amounts are in (minor units). Absent: the org's default. */
  currency?: string;
  /**
   * `missing_exchange_rate`: the deal is in another currency and no rate converts it, so the amount is unknown;
   * the ledger keeps a 0 row in the line's place, saying so, until a rate is set. Absent: priced.
   */
  pricing?: LinePricing;
}

export type LinePricing = 'priced' | 'missing_exchange_rate';

/** A plan that cannot be evaluated as written; the chip it names yields no lines until it is fixed. */
export interface PlanProblem {
  /** Where, as a path into the plan file: `chips[1].tiers[0].up_to_pct`. */
  path: string;
  message: string;
}
