import { conditionProblems } from '../plans/conditionRules.ts';
import { MAX_OVERRIDE_DEPTH } from '../plans/types.ts';
import { cashTermProblems } from './cashTerms.ts';
import { fractionOfDecimal, type Rate, rateOfBps, roundHalfAwayFromZero } from './money.ts';
import type { EngineChip, EnginePlanVersion, PlanProblem } from './types.ts';

// Reading a plan's chips for the engine: each kind's parameters checked, every problem named by its path in the
// plan file, and tier bands turned into bounds in cents. The computations read the rules this produces.

export interface Band {
  /** 1 for the first band, as the trace numbers them. */
  position: number;
  from_cents: bigint;
  /** Exclusive; `null` for the open last band. */
  to_cents: bigint | null;
  rate: Rate;
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
  /**
   * A proportional (interpolated) table's band: it pays this for being filled from `from_cents` to `to_cents`, and
   * the part of it filled pays that part of the amount (`rate` is then 0).
   */
  amount_cents?: bigint;
}

/** A band of a tiered chip counted in won deals (`up_to_deals`): deal numbers `from_deal` to `to_deal`, both included. */
export interface CountBand {
  position: number;
  from_deal: number;
  /** `null` for the open last band. */
  to_deal: number | null;
  rate: Rate;
}

/** A deal-level chip's caps: per rep and period, and per deal; null when not set. */
export interface ChipCaps {
  period_cents: bigint | null;
  deal_cents: bigint | null;
  /** The chip's floor per rep and period: the least its won lines of a period pay, when it applies to any. */
  floor_cents: bigint | null;
}

export type ChipRules =
  | { kind: 'commission'; rate: Rate; base_field: string; caps: ChipCaps }
  | {
      kind: 'tiered_commission';
      mode: 'marginal' | 'retroactive';
      /** What climbs the bands: the rep's running total of the period, or each deal's own amount from zero. */
      basis: 'cumulative' | 'per_deal';
      bands: Band[];
      caps: ChipCaps;
    }
  | {
      kind: 'tiered_commission';
      mode: 'marginal' | 'retroactive';
      /** Bands in won deals of the period: the rate is picked by the deal's number (marginal) or the count (retroactive). */
      basis: 'deal_count';
      bands: CountBand[];
      caps: ChipCaps;
    }
  | { kind: 'flat'; amount_cents: bigint; caps: ChipCaps }
  | { kind: 'attainment_bonus'; threshold_pct: number; amount_cents: bigint }
  | { kind: 'override'; rate: Rate; depth: number; caps: ChipCaps };

/** A tiered chip whose bands are in money (cents or percent of quota). */
export type MoneyTierRules = Extract<ChipRules, { kind: 'tiered_commission'; basis: 'cumulative' | 'per_deal' }>;
/** A tiered chip whose bands are in won deals of the period. */
export type CountTierRules = Extract<ChipRules, { kind: 'tiered_commission'; basis: 'deal_count' }>;

export type ChipReading = { rules: ChipRules; problems: [] } | { rules: null; problems: PlanProblem[] };

const BASE_FIELD = /^(amount_cents|custom\..+)$/;

function isWholeCents(value: unknown, minimum: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum;
}

const RATE_PROBLEM = 'must be a number ≥ 0 with at most two decimals (hundredths of a basis point)';

/** A `rate_bps` as the engine's rate; `null` (and a problem at `where`) when it is not one. */
function readRate(value: unknown, where: string, problems: PlanProblem[]): Rate | null {
  const rate = typeof value === 'number' ? rateOfBps(value) : null;
  if (rate === null) problems.push({ path: where, message: RATE_PROBLEM });
  return rate;
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
  if (chip.kind === 'commission' || chip.kind === 'tiered_commission' || chip.kind === 'flat') {
    problems.push(...cashTermProblems(params, path));
  }
  if (chip.kind !== 'attainment_bonus') {
    caps.period_cents = readCap('cap_cents');
    caps.deal_cents = readCap('deal_cap_cents');
    caps.floor_cents = readCap('floor_cents');
  }

  switch (chip.kind) {
    case 'commission': {
      const { rate_bps, base = 'amount_cents' } = params;
      const rate = readRate(rate_bps, `${path}.rate_bps`, problems);
      if (typeof base !== 'string' || !BASE_FIELD.test(base)) {
        problems.push({ path: `${path}.base`, message: 'must be amount_cents or custom.<name>' });
      }
      if (rate !== null && typeof base === 'string') {
        rules = { kind: 'commission', rate, base_field: base, caps };
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
      const rate = readRate(rate_bps, `${path}.rate_bps`, problems);
      const depthOk = isWholeCents(depth, 1) && depth <= MAX_OVERRIDE_DEPTH;
      if (!depthOk) {
        problems.push({ path: `${path}.depth`, message: `must be an integer from 1 to ${MAX_OVERRIDE_DEPTH}` });
      }
      if (rate !== null && depthOk) {
        rules = { kind: 'override', rate, depth: depth as number, caps };
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
      if (
        Array.isArray(tiers) &&
        tiers.some((tier) => tier !== null && typeof tier === 'object' && 'up_to_deals' in tier)
      ) {
        if (basis === 'per_deal') {
          problems.push({ path: `${path}.basis`, message: 'per_deal does not apply to bands in up_to_deals' });
        }
        if (tiers.some((tier) => tier !== null && typeof tier === 'object' && 'amount_cents' in tier)) {
          problems.push({ path: `${path}.tiers`, message: 'bands in up_to_deals pay rate_bps, not amount_cents' });
        }
        const counted = readCountBands(tiers, `${path}.tiers`, problems);
        if ((mode === 'marginal' || mode === 'retroactive') && basis === 'cumulative' && counted) {
          rules = { kind: 'tiered_commission', mode, basis: 'deal_count', bands: counted, caps };
        }
        break;
      }
      const proportional =
        Array.isArray(tiers) &&
        tiers.some((tier) => tier !== null && typeof tier === 'object' && 'amount_cents' in tier);
      if (proportional && mode === 'retroactive') {
        problems.push({
          path: `${path}.mode`,
          message: 'a table of amounts (amount_cents) is proportional within each band: its mode is marginal',
        });
      }
      const bands = readBands(tiers, plan, `${path}.tiers`, problems, needsQuota, proportional);
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
  proportional: boolean,
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
    const { rate_bps, amount_cents, up_to_cents = null, up_to_pct = null } = tier as Record<string, unknown>;
    let rate = 0n;
    let pays: { amount_cents?: bigint } = {};
    if (!proportional) {
      rate = readRate(rate_bps, `${where}.rate_bps`, problems) ?? 0n;
    } else if (!isWholeCents(amount_cents, 0) || rate_bps !== undefined) {
      problems.push({
        path: `${where}.amount_cents`,
        message: 'every band of a table of amounts gives amount_cents, an integer ≥ 0, and no rate_bps',
      });
    } else {
      pays = { amount_cents: BigInt(amount_cents) };
    }
    if (up_to_cents !== null && up_to_pct !== null) {
      problems.push({ path: where, message: 'give up_to_cents or up_to_pct, not both' });
      return;
    }
    if (last && !proportional) {
      if (up_to_cents !== null || up_to_pct !== null) {
        problems.push({ path: where, message: 'the last band is open: its up_to_cents or up_to_pct must be null' });
      }
      bands.push({ position: index + 1, from_cents: from, to_cents: null, rate, up_to_pct: null });
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
        message: proportional
          ? 'every band of a table of amounts needs up_to_cents > 0 or up_to_pct: an amount fills a bounded band'
          : 'a band other than the last needs up_to_cents > 0 or up_to_pct',
      });
    }
    if (to !== null && to <= from && typeof up_to_pct === 'number') {
      // The plan file's percentages rise (plans/ruleProblems.ts); only the rounding to cents of a small quota
      // brings a bound down to the previous one, and the band is then empty rather than the chip unusable.
      bands.push({
        position: index + 1,
        from_cents: from,
        to_cents: from,
        rate,
        up_to_pct,
        collapsed_to_cents: to,
        ...pays,
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
        rate,
        up_to_pct: typeof up_to_pct === 'number' ? up_to_pct : null,
        ...pays,
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
        rate: first.rate,
        up_to_pct: first.up_to_pct,
        zero_quota: true,
        // 0% attainment fills no band of a table of amounts.
        ...(proportional ? { amount_cents: 0n } : {}),
      },
    ];
  }
  return bands;
}

/** Bands in won deals: every band gives `up_to_deals`, rising whole numbers ≥ 1, the last one null. */
function readCountBands(tiers: unknown[], path: string, problems: PlanProblem[]): CountBand[] | null {
  const before = problems.length;
  const bands: CountBand[] = [];
  let from = 1;
  tiers.forEach((tier: unknown, index) => {
    const where = `${path}[${index}]`;
    const last = index === tiers.length - 1;
    if (tier === null || typeof tier !== 'object' || !('up_to_deals' in tier)) {
      problems.push({ path: where, message: 'every band of a chip uses the same unit: give up_to_deals' });
      return;
    }
    const { rate_bps, up_to_deals } = tier as Record<string, unknown>;
    const rate = readRate(rate_bps, `${where}.rate_bps`, problems) ?? 0n;
    if (last) {
      if (up_to_deals !== null) {
        problems.push({ path: `${where}.up_to_deals`, message: 'the last band is open: its up_to_deals must be null' });
      }
      bands.push({ position: index + 1, from_deal: from, to_deal: null, rate });
      return;
    }
    if (!isWholeCents(up_to_deals, from)) {
      problems.push({ path: `${where}.up_to_deals`, message: `must be a whole number of deals ≥ ${from}` });
      return;
    }
    bands.push({ position: index + 1, from_deal: from, to_deal: up_to_deals, rate });
    from = up_to_deals + 1;
  });
  return problems.length === before ? bands : null;
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
