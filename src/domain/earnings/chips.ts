import { MAX_AMOUNT_CENTS } from '../deals/event.ts';
import { conditionProblems } from '../plans/conditionRules.ts';
import { MAX_OVERRIDE_DEPTH } from '../plans/types.ts';
import { readDealField } from './conditions.ts';
import { creditedPart, creditsOf, isSplit } from './credit.ts';
import type { RepHierarchy } from './hierarchy.ts';
import { managersOn } from './hierarchy.ts';
import {
  type AmountDecimals,
  centsAsNumber,
  type ExactCents,
  exactCentsString,
  exactFromCents,
  exactRate,
  formatExactMoney,
  formatMoney,
  formatPercent,
  formatRate,
  formatRatioAsPercent,
  fractionOfDecimal,
  isBeyondNumberRange,
  roundHalfAwayFromZero,
  runningTotalOnWire,
  TWO_DECIMALS,
} from './money.ts';
import type { DealSnapshot, EngineChip, EnginePlanVersion, PlanProblem, TraceStep } from './types.ts';

// The chip kinds (commission, tiered_commission, flat, attainment_bonus, override): reading their parameters (with every problem named by
// its path in the plan file) and computing one line's exact, unrounded amount with the trace steps and
// sentences that let a person redo the sum. Rounding and the ledger happen after, once per line.

export interface Band {
  /** 1 for the first band, as the trace numbers them. */
  position: number;
  from_cents: bigint;
  /** Exclusive; `null` for the open last band. */
  to_cents: bigint | null;
  rate_bps: bigint;
  /** The band's bound as the plan gave it in percent of quota, for the explanation. */
  up_to_pct: number | null;
  /**
   * For a bound in percent of quota that rounds to no more than the previous band's bound (a tiny quota): the cents
   * it rounds to. Such a band is empty (`to_cents` = `from_cents`): it takes nothing, and what reaches its bound
   * belongs to the next band that is not empty.
   */
  collapsed_to_cents?: bigint;
  /**
   * Bands in percent of a quota of 0: attainment is read as 0%, no bound in percent of quota is ever passed, so the
   * first band is the only one and takes every amount.
   */
  zero_quota?: true;
}

/** A deal-level chip's caps: per rep and period, and per deal; null when not set. */
export interface ChipCaps {
  period_cents: bigint | null;
  deal_cents: bigint | null;
  /** The chip's floor per rep and period: the least its won lines of a period pay, when it applies to any. */
  floor_cents: bigint | null;
}

export type ChipRules =
  | { kind: 'commission'; rate_bps: bigint; base_field: string; caps: ChipCaps }
  | {
      kind: 'tiered_commission';
      mode: 'marginal' | 'retroactive';
      /** What climbs the bands: the rep's running total of the period, or each deal's own amount from zero. */
      basis: 'cumulative' | 'per_deal';
      bands: Band[];
      caps: ChipCaps;
    }
  | { kind: 'flat'; amount_cents: bigint; caps: ChipCaps }
  | { kind: 'attainment_bonus'; threshold_pct: number; amount_cents: bigint }
  | { kind: 'override'; rate_bps: bigint; depth: number; caps: ChipCaps };

export type ChipReading = { rules: ChipRules; problems: [] } | { rules: null; problems: PlanProblem[] };

const BASE_FIELD = /^(amount_cents|custom\..+)$/;

function isWholeCents(value: unknown, minimum: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum;
}

/** The chip's parameters, checked; `path` is the chip's path in the plan file, e.g. `chips[2]`. */
export function readChipRules(chip: EngineChip, plan: EnginePlanVersion, path: string): ChipReading {
  const problems: PlanProblem[] = chip.when === null ? [] : conditionProblems(chip.when, `${path}.when`);
  // Typed by the plan module, but read back from a JSON column: every member is checked here again.
  const params: Record<string, unknown> = { ...chip.params };
  const needsQuota = (where: string, what: string) => {
    if (!isWholeCents(plan.quota_cents, 0)) {
      problems.push({ path: where, message: `${what} needs the plan's quota_cents, a number of cents ≥ 0` });
    }
  };
  let rules: ChipRules | null = null;
  const readCap = (name: 'cap_cents' | 'deal_cap_cents' | 'floor_cents'): bigint | null => {
    const value = params[name];
    if (value === undefined || value === null) return null;
    if (isWholeCents(value, 0)) return BigInt(value);
    problems.push({ path: `${path}.${name}`, message: 'must be an integer ≥ 0' });
    return null;
  };
  const caps: ChipCaps = { period_cents: null, deal_cents: null, floor_cents: null };
  if (chip.kind !== 'attainment_bonus') {
    caps.period_cents = readCap('cap_cents');
    caps.deal_cents = readCap('deal_cap_cents');
    caps.floor_cents = readCap('floor_cents');
  }

  switch (chip.kind) {
    case 'commission': {
      const { rate_bps, base = 'amount_cents' } = params;
      if (!isWholeCents(rate_bps, 0)) problems.push({ path: `${path}.rate_bps`, message: 'must be an integer ≥ 0' });
      if (typeof base !== 'string' || !BASE_FIELD.test(base)) {
        problems.push({ path: `${path}.base`, message: 'must be amount_cents or custom.<name>' });
      }
      if (isWholeCents(rate_bps, 0) && typeof base === 'string') {
        rules = { kind: 'commission', rate_bps: BigInt(rate_bps), base_field: base, caps };
      }
      break;
    }
    case 'flat': {
      const { amount_cents } = params;
      if (!isWholeCents(amount_cents, 0))
        problems.push({ path: `${path}.amount_cents`, message: 'must be an integer ≥ 0' });
      else rules = { kind: 'flat', amount_cents: BigInt(amount_cents), caps };
      break;
    }
    case 'override': {
      const { rate_bps, depth = 1 } = params;
      if (!isWholeCents(rate_bps, 0)) problems.push({ path: `${path}.rate_bps`, message: 'must be an integer ≥ 0' });
      const depthOk = isWholeCents(depth, 1) && depth <= MAX_OVERRIDE_DEPTH;
      if (!depthOk) {
        problems.push({ path: `${path}.depth`, message: `must be an integer from 1 to ${MAX_OVERRIDE_DEPTH}` });
      }
      if (isWholeCents(rate_bps, 0) && depthOk) {
        rules = { kind: 'override', rate_bps: BigInt(rate_bps), depth: depth as number, caps };
      }
      break;
    }
    case 'attainment_bonus': {
      const { threshold_pct, amount_cents } = params;
      if (typeof threshold_pct !== 'number' || !Number.isFinite(threshold_pct) || threshold_pct < 0) {
        problems.push({ path: `${path}.threshold_pct`, message: 'must be a number ≥ 0' });
      }
      if (!isWholeCents(amount_cents, 0))
        problems.push({ path: `${path}.amount_cents`, message: 'must be an integer ≥ 0' });
      needsQuota(path, 'an attainment_bonus');
      if (typeof threshold_pct === 'number' && isWholeCents(amount_cents, 0)) {
        rules = { kind: 'attainment_bonus', threshold_pct, amount_cents: BigInt(amount_cents) };
      }
      break;
    }
    case 'tiered_commission': {
      const { mode, tiers, basis = 'cumulative' } = params;
      if (mode !== 'marginal' && mode !== 'retroactive') {
        problems.push({ path: `${path}.mode`, message: 'must be marginal or retroactive' });
      }
      if (basis !== 'cumulative' && basis !== 'per_deal') {
        problems.push({ path: `${path}.basis`, message: 'must be cumulative or per_deal' });
      }
      const bands = readBands(tiers, plan, `${path}.tiers`, problems, needsQuota);
      if (
        (mode === 'marginal' || mode === 'retroactive') &&
        (basis === 'cumulative' || basis === 'per_deal') &&
        bands
      ) {
        rules = { kind: 'tiered_commission', mode, basis, bands, caps };
      }
      break;
    }
    default:
      problems.push({
        path: `${path}.kind`,
        message: 'must be commission, tiered_commission, flat, attainment_bonus or override',
      });
  }
  return problems.length === 0 && rules ? { rules, problems: [] } : { rules: null, problems };
}

function readBands(
  tiers: unknown,
  plan: EnginePlanVersion,
  path: string,
  problems: PlanProblem[],
  needsQuota: (where: string, what: string) => void,
): Band[] | null {
  if (!Array.isArray(tiers) || tiers.length === 0) {
    problems.push({ path, message: 'must be a non-empty list of bands' });
    return null;
  }
  const before = problems.length;
  const bands: Band[] = [];
  let from = 0n;
  tiers.forEach((tier: unknown, index) => {
    const where = `${path}[${index}]`;
    const last = index === tiers.length - 1;
    if (tier === null || typeof tier !== 'object') {
      problems.push({ path: where, message: 'must be a band object' });
      return;
    }
    const { rate_bps, up_to_cents = null, up_to_pct = null } = tier as Record<string, unknown>;
    if (!isWholeCents(rate_bps, 0)) problems.push({ path: `${where}.rate_bps`, message: 'must be an integer ≥ 0' });
    const rate = isWholeCents(rate_bps, 0) ? BigInt(rate_bps) : 0n;
    if (up_to_cents !== null && up_to_pct !== null) {
      problems.push({ path: where, message: 'give up_to_cents or up_to_pct, not both' });
      return;
    }
    if (last) {
      if (up_to_cents !== null || up_to_pct !== null) {
        problems.push({ path: where, message: 'the last band is open: its up_to_cents or up_to_pct must be null' });
      }
      bands.push({ position: index + 1, from_cents: from, to_cents: null, rate_bps: rate, up_to_pct: null });
      return;
    }
    let to: bigint | null = null;
    if (up_to_pct !== null) {
      if (typeof up_to_pct !== 'number' || !Number.isFinite(up_to_pct) || up_to_pct <= 0) {
        problems.push({ path: `${where}.up_to_pct`, message: 'must be a number > 0' });
      } else {
        needsQuota(`${where}.up_to_pct`, 'a band in percent of quota');
      }
      if (
        typeof up_to_pct === 'number' &&
        Number.isFinite(up_to_pct) &&
        up_to_pct > 0 &&
        isWholeCents(plan.quota_cents, 0)
      ) {
        // A percentage of quota can fall between two cents; the bound is that amount rounded half away
        // from zero, and the trace shows the bound in cents so the sum can be redone from it.
        const pct = fractionOfDecimal(up_to_pct);
        to = roundHalfAwayFromZero(BigInt(plan.quota_cents) * pct.numerator, 100n * pct.denominator);
      }
    } else if (isWholeCents(up_to_cents, 1)) {
      to = BigInt(up_to_cents);
    } else {
      problems.push({
        path: `${where}.up_to_cents`,
        message: 'a band other than the last needs up_to_cents > 0 or up_to_pct',
      });
    }
    if (to !== null && to <= from && typeof up_to_pct === 'number') {
      // The plan file's percentages rise (plans/ruleProblems.ts); only the rounding to cents of a small quota
      // brings a bound down to the previous one, and the band is then empty rather than the chip unusable.
      bands.push({
        position: index + 1,
        from_cents: from,
        to_cents: from,
        rate_bps: rate,
        up_to_pct,
        collapsed_to_cents: to,
      });
      return;
    }
    if (to !== null && to <= from) {
      problems.push({ path: where, message: 'bands must rise: this bound is not above the previous one' });
    }
    if (to !== null) {
      bands.push({
        position: index + 1,
        from_cents: from,
        to_cents: to,
        rate_bps: rate,
        up_to_pct: typeof up_to_pct === 'number' ? up_to_pct : null,
      });
      from = to;
    }
  });
  if (problems.length !== before) return null;
  const first = bands[0];
  if (plan.quota_cents === 0 && first?.up_to_pct != null) {
    return [
      {
        position: 1,
        from_cents: 0n,
        to_cents: null,
        rate_bps: first.rate_bps,
        up_to_pct: first.up_to_pct,
        zero_quota: true,
      },
    ];
  }
  return bands;
}

/** The plan's cap per rep and period over all chips; null when it has none. */
export function readPlanCap(plan: EnginePlanVersion): { cap: bigint | null; problems: PlanProblem[] } {
  const value = plan.cap_cents;
  if (value === undefined || value === null) return { cap: null, problems: [] };
  if (isWholeCents(value, 0)) return { cap: BigInt(value), problems: [] };
  return { cap: null, problems: [{ path: 'cap_cents', message: 'must be an integer ≥ 0' }] };
}

/** Everything about a plan version the engine cannot evaluate; empty when every chip is usable. */
export function checkPlanForEngine(plan: EnginePlanVersion): PlanProblem[] {
  return [
    ...readPlanCap(plan).problems,
    ...plan.chips.flatMap((chip, index) => readChipRules(chip, plan, `chips[${index}]`).problems),
  ];
}

/** A chip's exact amount for one line, before the single rounding, with the steps that produced it. */
export interface Computation {
  exact: ExactCents;
  /** The amounts `exact` sums, when there is more than one (a deal spanning tier bands). */
  addends?: ExactCents[];
  steps: TraceStep[];
  explanation: string[];
}

const BEYOND_RANGE =
  'The total passes 9,007,199,254,740,991 cents, past what a JSON number holds exactly, so the trace gives it as an exact decimal string.';

/**
 * The chip's base for a commission: a whole number of cents up to the largest deal amount, or `null` when the
 * deal has none (a custom field can hold any number; one above the bound is not taken as an amount).
 */
function baseOf(deal: DealSnapshot, baseField: string): bigint | null {
  const value = readDealField(deal, baseField);
  return typeof value === 'number' && Number.isSafeInteger(value) && Math.abs(value) <= MAX_AMOUNT_CENTS
    ? BigInt(value)
    : null;
}

/** The rep's credited amount in the plan's currency, with the conversion's step and sentence when it was converted. */
export type ToPlanCurrency = (credited: bigint) => { cents: bigint; step: TraceStep | null; sentence: string | null };

const SAME_CURRENCY: ToPlanCurrency = (cents) => ({ cents, step: null, sentence: null });

/** `10.00% of 60,000.00 = 6,000.00`: a rate applied to a base, both amounts in the plan currency's decimals. */
function rateSentence(rateBps: bigint, base: bigint, exact: ExactCents, decimals: number): string {
  return `${formatRate(rateBps)} of ${formatMoney(base, decimals)} = ${formatExactMoney(exact, decimals)}`;
}

/**
 * `rate_bps` of the rep's credited part of the base: the whole base for the owner of a deal without splits,
 * the rep's share of it for a split deal; converted to the plan's currency first when the deal is in another.
 */
export function computeCommission(
  deal: DealSnapshot,
  rules: ChipRules & { kind: 'commission' },
  repExternalId: string,
  toPlanCurrency: ToPlanCurrency = SAME_CURRENCY,
  decimals: AmountDecimals = TWO_DECIMALS,
): Computation {
  const explanation: string[] = [];
  const found = baseOf(deal, rules.base_field);
  const whole = found ?? 0n;
  if (found === null) {
    explanation.push(
      `The deal has no ${rules.base_field} in whole cents, so the base is ${formatMoney(0n, decimals.deal)}.`,
    );
  } else if (rules.base_field !== 'amount_cents') {
    explanation.push(`The base is ${rules.base_field}, ${formatMoney(whole, decimals.deal)}.`);
  }
  const part = creditedPart(deal, repExternalId, whole, rules.base_field, decimals.deal);
  explanation.push(...part.explanation);
  const converted = toPlanCurrency(part.cents);
  if (converted.sentence) explanation.push(converted.sentence);
  const base = converted.cents;
  const exact = exactRate(base, rules.rate_bps);
  explanation.push(rateSentence(rules.rate_bps, base, exact, decimals.plan));
  return {
    exact,
    steps: [
      { type: 'base', field: rules.base_field, amount_cents: centsAsNumber(whole) },
      ...(part.step ? [part.step] : []),
      ...(converted.step ? [converted.step] : []),
      {
        type: 'rate',
        rate_bps: centsAsNumber(rules.rate_bps),
        base_cents: centsAsNumber(base),
        exact_cents: exactCentsString(exact),
      },
    ],
    explanation,
  };
}

/** The flat amount per matching deal; of a split deal, the rep's share of it, so the deal pays it once in all. */
export function computeFlat(
  rules: ChipRules & { kind: 'flat' },
  deal: DealSnapshot,
  repExternalId: string,
  decimals: AmountDecimals = TWO_DECIMALS,
): Computation {
  const part = creditedPart(deal, repExternalId, rules.amount_cents, 'the flat amount', decimals.plan);
  return {
    exact: exactFromCents(part.cents),
    steps: [{ type: 'flat', amount_cents: centsAsNumber(rules.amount_cents) }, ...(part.step ? [part.step] : [])],
    explanation: [
      `The chip pays a flat ${formatMoney(rules.amount_cents, decimals.plan)} per matching deal.`,
      ...part.explanation,
    ],
  };
}

/** Where a deal stands among the rep's won deals of the period, as tiered commissions count them. */
export interface Cumulative {
  /** Won amount of the deals counted before this one. */
  prior_cents: bigint;
  /** Won amount of all the period's deals, this one included (for a projection: as if won next). */
  period_cents: bigint;
  /** For the explanation: who, in which period, and whether the deal is a projection. */
  rep_external_id: string;
  period_id: string;
  projected: boolean;
}

function describeBand(band: Band, quotaCents: number | null, decimals: number): string {
  const from = formatMoney(band.from_cents, decimals);
  if (band.to_cents === null) return `Band ${band.position} (from ${from})`;
  const ofQuota =
    band.up_to_pct === null
      ? ''
      : `, ${formatPercent(band.up_to_pct)} of quota ${formatMoney(BigInt(quotaCents ?? 0), decimals)}`;
  return `Band ${band.position} (${from} to ${formatMoney(band.to_cents, decimals)}${ofQuota})`;
}

export function bandContains(band: Band, cents: bigint): boolean {
  return cents >= band.from_cents && (band.to_cents === null || cents < band.to_cents);
}

/**
 * `amountCents` is the rep's credited amount of the deal; `credit` shows how it came from the whole amount
 * of a split deal (absent for a deal credited whole to its owner).
 */
export function computeTiered(
  amountCents: bigint,
  cumulative: Cumulative,
  rules: ChipRules & { kind: 'tiered_commission' },
  quotaCents: number | null,
  credit?: { whole_cents: bigint; step: TraceStep; explanation: string[] },
  conversion?: { step: TraceStep & { type: 'conversion' }; sentence: string },
  decimals = 2,
): Computation {
  const money = (cents: bigint) => formatMoney(cents, decimals);
  const perDeal = rules.basis === 'per_deal';
  // Per deal, the deal climbs the bands from zero on its own amount, whatever else the rep won in the period.
  const prior = perDeal ? 0n : cumulative.prior_cents;
  const periodTotal = perDeal ? amountCents : cumulative.period_cents;
  const { rep_external_id: rep, period_id: period } = cumulative;
  const original = conversion ? BigInt(conversion.step.original_cents) : amountCents;
  const steps: TraceStep[] = [
    { type: 'base', field: 'amount_cents', amount_cents: centsAsNumber(credit?.whole_cents ?? original) },
    ...(credit ? [credit.step] : []),
    ...(conversion ? [conversion.step] : []),
  ];
  if (!perDeal) {
    steps.push({
      type: 'cumulative',
      prior_won_cents: runningTotalOnWire(prior),
      period_won_cents: runningTotalOnWire(periodTotal),
    });
  }
  const explanation = [
    ...(credit?.explanation ?? []),
    ...(conversion ? [conversion.sentence] : []),
    perDeal
      ? `Per deal: this deal climbs the bands from zero on its own amount, ${money(amountCents)}; the rep's other deals do not count.`
      : cumulative.projected
        ? `Won by ${rep} in ${period} so far, ${money(prior)}; counting this open deal as won next adds ${money(amountCents)}, reaching ${money(prior + amountCents)}.`
        : `Won by ${rep} in ${period} before this deal, ${money(prior)}; this deal adds ${money(amountCents)}, reaching ${money(prior + amountCents)}.`,
  ];
  if (isBeyondNumberRange(prior + amountCents) || isBeyondNumberRange(periodTotal)) explanation.push(BEYOND_RANGE);
  if (rules.bands[0]?.zero_quota) {
    explanation.push(
      'The quota is 0.00, read as 0% attainment: no bound in percent of quota is ever passed, so band 1 is the only band and takes the whole amount.',
    );
  }
  for (const band of rules.bands) {
    if (band.collapsed_to_cents === undefined) continue;
    explanation.push(
      `Band ${band.position} ends at ${formatPercent(band.up_to_pct ?? 0)} of quota ${money(BigInt(quotaCents ?? 0))}, which rounds to ${money(band.collapsed_to_cents)}, not above the band before it (${money(band.from_cents)}): the band is empty and takes nothing, and amounts from ${money(band.from_cents)} belong to the next band.`,
    );
  }
  const addends: ExactCents[] = [];
  const addBand = (band: Band, slice: bigint, takes: string) => {
    const amount = exactRate(slice, band.rate_bps);
    addends.push(amount);
    steps.push({
      type: 'tier',
      band: band.position,
      from_cents: runningTotalOnWire(band.from_cents),
      to_cents: band.to_cents === null ? null : runningTotalOnWire(band.to_cents),
      slice_cents: centsAsNumber(slice),
      rate_bps: centsAsNumber(band.rate_bps),
      exact_cents: exactCentsString(amount),
    });
    explanation.push(
      `${describeBand(band, quotaCents, decimals)} takes ${takes}${money(slice)} at ${formatRate(band.rate_bps)} = ${formatExactMoney(amount, decimals)}`,
    );
  };

  if (rules.mode === 'marginal') {
    const end = prior + amountCents;
    for (const band of rules.bands) {
      const low = prior > band.from_cents ? prior : band.from_cents;
      const high = band.to_cents === null || end < band.to_cents ? end : band.to_cents;
      if (high > low) addBand(band, high - low, '');
    }
    if (amountCents === 0n) explanation.push('The deal adds nothing, so no band takes any of it.');
  } else {
    const reached = rules.bands.find((band) => bandContains(band, periodTotal)) ?? rules.bands[0];
    if (reached) {
      explanation.push(
        perDeal
          ? `The whole deal at one rate: its amount, ${money(periodTotal)}, is in band ${reached.position}.`
          : `Retroactive: ${cumulative.projected ? 'with this deal, the period would reach' : 'the period reached'} ${money(periodTotal)}, in band ${reached.position}, so every deal of the period earns its rate.`,
      );
      addBand(reached, amountCents, 'the whole deal, ');
    }
  }
  const exact = addends.reduce((sum, amount) => sum + amount, 0n);
  return { exact, addends, steps, explanation };
}

export function computeAttainmentBonus(
  attainedCents: bigint,
  quotaCents: bigint,
  rules: ChipRules & { kind: 'attainment_bonus' },
  repExternalId: string,
  periodId: string,
  decimals = 2,
): Computation {
  const pct = fractionOfDecimal(rules.threshold_pct);
  // attained ≥ quota × pct / 100, kept in integers: attained × 100 × denominator ≥ quota × numerator.
  // A quota of 0 is read as 0% attainment, which reaches only a threshold of 0%.
  const reached =
    quotaCents === 0n ? pct.numerator === 0n : attainedCents * 100n * pct.denominator >= quotaCents * pct.numerator;
  const threshold = formatPercent(rules.threshold_pct);
  const steps: TraceStep[] = [
    {
      type: 'threshold',
      attained_cents: runningTotalOnWire(attainedCents),
      quota_cents: centsAsNumber(quotaCents),
      threshold_pct: rules.threshold_pct,
      reached,
    },
  ];
  const explanation = [
    `Won by ${repExternalId} in ${periodId}, ${formatMoney(attainedCents, decimals)}, which is ${formatRatioAsPercent(attainedCents, quotaCents)} of quota ${formatMoney(quotaCents, decimals)}${quotaCents === 0n ? ' (a quota of 0 is read as 0% attainment)' : ''}; the threshold of ${threshold} is ${reached ? 'reached' : 'not reached'}.`,
  ];
  if (isBeyondNumberRange(attainedCents)) explanation.push(BEYOND_RANGE);
  if (!reached) return { exact: 0n, steps, explanation: [...explanation, 'So there is no bonus.'] };
  steps.push({ type: 'flat', amount_cents: centsAsNumber(rules.amount_cents) });
  explanation.push(`The bonus is ${formatMoney(rules.amount_cents, decimals)}`);
  return { exact: exactFromCents(rules.amount_cents), steps, explanation };
}

/** A report of the manager that a deal credits, with the report's part of the amount and the path up to the manager. */
export interface OverrideReport {
  owner_external_id: string;
  share_bps: number;
  credited_cents: bigint;
  /** From the report up to the manager, both included. */
  path: string[];
}

/**
 * The manager's reports (down to `depth` levels, on `day`) that the deal credits, each once, in the order of the
 * deal's credits. The manager's own credit is not an override: it is the manager's own deal.
 */
export function overrideReportsOf(
  deal: DealSnapshot,
  managerExternalId: string,
  hierarchy: RepHierarchy,
  day: string,
  depth: number,
): OverrideReport[] {
  const amount = BigInt(deal.amount_cents ?? 0);
  return creditsOf(deal).flatMap((credit) => {
    if (credit.owner_external_id === managerExternalId) return [];
    const chain = managersOn(hierarchy, credit.owner_external_id, day, depth);
    const level = chain.indexOf(managerExternalId);
    if (level < 0) return [];
    return [
      {
        owner_external_id: credit.owner_external_id,
        share_bps: credit.share_bps,
        credited_cents: creditedPart(deal, credit.owner_external_id, amount, 'the amount').cents,
        path: [credit.owner_external_id, ...chain.slice(0, level + 1)],
      },
    ];
  });
}

/**
 * `rate_bps` of the sum of the reports' credited parts of the deal: one line per manager and deal, so a deal two
 * of the manager's reports split is counted once, on the sum of their shares.
 */
export function computeOverride(
  deal: DealSnapshot,
  rules: ChipRules & { kind: 'override' },
  managerExternalId: string,
  reports: readonly OverrideReport[],
  day: string,
  toPlanCurrency: ToPlanCurrency = SAME_CURRENCY,
  decimals: AmountDecimals = TWO_DECIMALS,
): Computation {
  const dealMoney = (cents: bigint) => formatMoney(cents, decimals.deal);
  const credited = reports.reduce((sum, report) => sum + report.credited_cents, 0n);
  const amount = BigInt(deal.amount_cents ?? 0);
  const explanation = reports.map((report) => {
    const relation =
      report.path.length === 2 ? 'reports directly to' : `reports, ${report.path.length - 1} levels down, to`;
    const part = isSplit(deal)
      ? `credited ${formatRate(BigInt(report.share_bps))} of the amount ${dealMoney(amount)} = ${dealMoney(report.credited_cents)}`
      : `credited the whole amount, ${dealMoney(report.credited_cents)}`;
    return `On ${day}, ${report.owner_external_id} ${relation} ${managerExternalId} (${report.path.join(' → ')}), ${part}.`;
  });
  if (reports.length > 1) {
    explanation.push(
      `The deal counts once for ${managerExternalId}: ${reports.map((report) => dealMoney(report.credited_cents)).join(' + ')} = ${dealMoney(credited)}.`,
    );
  }
  // The reports' credited amounts are in the deal's currency; the override pays in the plan's, like a commission.
  const converted = toPlanCurrency(credited);
  if (converted.sentence) explanation.push(converted.sentence);
  const base = converted.cents;
  const exact = exactRate(base, rules.rate_bps);
  explanation.push(rateSentence(rules.rate_bps, base, exact, decimals.plan));
  return {
    exact,
    steps: [
      { type: 'base', field: 'amount_cents', amount_cents: centsAsNumber(amount) },
      {
        type: 'override',
        manager_external_id: managerExternalId,
        depth: rules.depth,
        as_of: day,
        reports: reports.map((report) => ({
          owner_external_id: report.owner_external_id,
          share_bps: report.share_bps,
          credited_cents: centsAsNumber(report.credited_cents),
          level: report.path.length - 1,
          path: report.path,
        })),
        base_cents: centsAsNumber(credited),
      },
      ...(converted.step ? [converted.step] : []),
      {
        type: 'rate',
        rate_bps: centsAsNumber(rules.rate_bps),
        base_cents: centsAsNumber(base),
        exact_cents: exactCentsString(exact),
      },
    ],
    explanation,
  };
}
