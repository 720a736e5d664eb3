import type { LeaverRule } from '../earnings/leavers.ts';
// A plan as Quotient stores and evaluates it: the normalised form of a plan file (docs/plans-and-earnings.md).
// Member names are the plan file's and the wire's (snake_case). Amounts are integer cents as JS numbers (safe
// integers, checked when the file is read); rates are basis points; percentages are whole percent of quota.

export type PeriodKind = 'monthly' | 'quarterly';

export const CONDITION_OPS = ['eq', 'ne', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'exists', 'contains'] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

/** Deal fields a condition can read; `custom.<name>` reads a member of the deal's custom fields. */
export type ConditionField =
  | 'amount_cents'
  | 'stage'
  | 'close_date'
  | 'owner_external_id'
  | 'status'
  | `custom.${string}`;

export type ConditionScalar = string | number | boolean;

export interface FieldCondition {
  field: ConditionField;
  op: ConditionOp;
  /** Absent for `exists`; a non-empty list for `in` and `nin`; a scalar otherwise. */
  value?: ConditionScalar | ConditionScalar[];
}

export type Condition = { all: Condition[] } | { any: Condition[] } | { not: Condition } | FieldCondition;

/**
 * Optional caps of a deal-level chip (docs/plan-features.md, Caps): at most `deal_cap_cents` on one deal, at most
 * `cap_cents` per rep and period. Present only when the file sets them, so that plans without caps keep their digests.
 */
export interface CapParams {
  cap_cents?: number;
  deal_cap_cents?: number;
  /** At least this much per rep and period from the chip, in a period where it pays on a won deal. */
  floor_cents?: number;
}

/**
 * Rule precedence (docs/plan-features.md, Rule precedence): the keys of the plan's other deal chips this chip replaces
 * for the deals its `when` matches. Absent when it replaces none.
 */
export interface PrecedenceParams {
  replaces?: string[];
}

/** How a chip paid on cash releases what it holds (docs/plan-features.md, Pay on cash). */
export type CashRelease = 'pro_rata' | 'first_payment' | 'full_payment';

/**
 * Pay on cash (docs/plan-features.md, Pay on cash): `held_pct` percent of the line's commission waits for the customer's
 * payments (the deal snapshot's `payments`) and is released by `release`. Absent (the default, `payable_on: booking`): the whole
 * commission is payable on booking; present only when the file says `payable_on: cash`, so other chips keep their
 * digests.
 */
export interface CashParams {
  payable_on?: 'cash';
  cash?: { held_pct: number; release: CashRelease };
}

export interface CommissionParams extends CapParams, PrecedenceParams, CashParams {
  rate_bps: number;
  /** `amount_cents` (the default, filled in when the file leaves it out) or `custom.<field>`. */
  base: 'amount_cents' | `custom.${string}`;
}

/** A band's upper bound; `null` for the open last band. All bands of a chip use the same unit. */
export type TierBound =
  | { up_to_cents: number | null }
  | { up_to_pct: number | null }
  /** In won deals of the rep's period, counted in order: the band holds deals up to this number. */
  | { up_to_deals: number | null };

/**
 * What a band pays: `rate_bps` of the slice of the amount in it, or (a proportional, interpolated table) `amount_cents`
 * for filling the band, paid in proportion to the part of the band filled. All bands of a chip pay the same way.
 */
export type TierPays = { rate_bps: number } | { amount_cents: number };

export type Tier = TierBound & TierPays;

/** A band's bound as the file gives it, whatever it pays. */
export function boundOf(tier: Tier): TierBound {
  if ('up_to_pct' in tier) return { up_to_pct: tier.up_to_pct };
  if ('up_to_deals' in tier) return { up_to_deals: tier.up_to_deals };
  return { up_to_cents: tier.up_to_cents };
}

/** What a band pays, as the file gives it. */
export function paysOf(tier: Tier): TierPays {
  return 'amount_cents' in tier ? { amount_cents: tier.amount_cents } : { rate_bps: tier.rate_bps };
}

export interface TieredCommissionParams extends CapParams, PrecedenceParams, CashParams {
  mode: 'marginal' | 'retroactive';
  /**
   * What climbs the bands: absent, the rep's running total of won deals in the period (cumulative, the default,
   * which a file may also write out); `per_deal`, each deal's own amount from zero.
   */
  basis?: 'per_deal';
  /** Strictly increasing bounds; only the last is null. */
  tiers: Tier[];
}

export interface FlatParams extends CapParams, PrecedenceParams, CashParams {
  amount_cents: number;
}

/** The most levels of reports an override reaches (1 = direct reports). */
export const MAX_OVERRIDE_DEPTH = 3;

/**
 * A manager override (docs/plan-features.md, Manager overrides): `rate_bps` of the credited amounts of the deals of the
 * manager's reports, down to `depth` levels of the hierarchy in effect on the deal's date (its close date, else the day
 * it was won, else, for an open deal, today); `depth` 1, the default, filled in, is direct reports.
 */
export interface OverrideParams extends CapParams {
  rate_bps: number;
  depth: number;
}

export interface AttainmentBonusParams {
  threshold_pct: number;
  amount_cents: number;
}

interface ChipOf<Kind extends string, Params> {
  key: string;
  name: string;
  kind: Kind;
  /** `null`: the chip applies to every deal of an assignee. */
  when: Condition | null;
  params: Params;
}

export type ChipDefinition =
  | ChipOf<'commission', CommissionParams>
  | ChipOf<'tiered_commission', TieredCommissionParams>
  | ChipOf<'flat', FlatParams>
  | ChipOf<'attainment_bonus', AttainmentBonusParams>
  | ChipOf<'override', OverrideParams>;

export type ChipKind = ChipDefinition['kind'];

/**
 * A dated assignment (docs/plan-features.md, Dated assignments): the plan applies to the rep's deals dated from `from`
 * to `until`, both inclusive; a missing bound is open. A rep assigned without dates is a plain `owner_external_id`
 * string.
 */
export interface DatedAssignee {
  owner_external_id: string;
  from?: string;
  until?: string;
}

export type Assignee = string | DatedAssignee;

/** Whether the assignees name the rep at all (with or without dates). */
export function namesAssignee(assignees: 'all' | readonly Assignee[], externalId: string): boolean {
  if (assignees === 'all') return true;
  return assignees.some((entry) => (typeof entry === 'string' ? entry : entry.owner_external_id) === externalId);
}

/**
 * A draw (docs/plan-features.md, Draws): when a rep's earnings under the plan in a period are below `amount_cents`, the
 * plan pays the difference. Recoverable, the payment is an advance that later periods' earnings above the draw pay
 * back.
 */
export interface PlanDraw {
  amount_cents: number;
  recoverable: boolean;
  /**
   * `in_advance` (docs/plan-features.md, A draw paid in advance): the whole draw is paid at the period's start and
   * repaid from its earnings at the lock. Absent: `at_lock`, the shortfall paid at the lock (kept out of the
   * normalised form so that existing plans keep their digests).
   */
  paid?: 'in_advance';
}

/**
 * A plan year paid monthly (docs/plan-features.md, A plan year paid monthly): on a monthly plan, tiered chips count the
 * rep's won deals from the first day of the plan year (the 1st of `starts_month`) against the annual `quota_cents`,
 * blended by days when the rep's quota changes during the year; each month pays the year to date's earnings less what
 * the year's earlier months paid (the true-up), which the ledger's late-change rule books.
 */
export interface PlanYear {
  /** The month the plan year starts in, 1 (January) to 12. */
  starts_month: number;
}

/** The normalised plan file: defaults filled in, members in a stable order. Stored as a plan version's definition. */
export interface PlanDefinition {
  key: string;
  name: string;
  period: PeriodKind;
  /** Per rep per period (per plan year with `plan_year`); `null` when the plan has none. */
  quota_cents: number | null;
  /** A plan year paid monthly; absent: tiers count one period. */
  plan_year?: PlanYear;
  /** `all`, or the reps the plan applies to (owner_external_id values or dated assignments), sorted. */
  assignees: 'all' | Assignee[];
  /**
   * The ramp of new reps (docs/quotas.md): percent of the full quota in each month since the rep's start date, month
   * 1 being the month of the start date; absent when the plan has none.
   */
  ramp?: number[];
  /** What the plan pays a rep after their leaving date (docs/reps-and-payroll.md); absent: `pay_through_leaving_date`. */
  leaver_rule?: LeaverRule;
  /** At most this much per rep and period over all chips; absent when the plan has no cap. */
  cap_cents?: number;
  /** ISO 4217: the currency the plan pays in; absent pays in the org's default currency. */
  currency?: string;
  /** The rep's guaranteed (or advanced, when recoverable) earnings per period; absent when the plan has none. */
  draw?: PlanDraw;
  /** In evaluation order. */
  chips: ChipDefinition[];
}

/** One problem of a plan file: `path` like `chips[1].tiers[0].rate_bps` (empty for the whole file). */
export interface PlanFileProblem {
  path: string;
  message: string;
  /** The line in a YAML file (a missing member: its parent's line). */
  line?: number;
}
