import { currencyProblem } from '../currencies.ts';
import { rateOfBps } from '../earnings/money.ts';
import { isCalendarDate } from '../periods.ts';
import { conditionProblems } from './conditionRules.ts';
import { formatPath, isObject, type Segment } from './paths.ts';
import type { PlanFileProblem } from './types.ts';

// Rules the schema cannot express. They read the raw document defensively: the schema reports wrong shapes, these
// report what is wrong among values of the right shape, so every problem of a file is listed in one go.

const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

export function ruleProblems(document: unknown): PlanFileProblem[] {
  if (!isObject(document)) return [];
  const problems: PlanFileProblem[] = [];
  const quota = document.quota_cents;
  const chips = Array.isArray(document.chips) ? document.chips : [];
  if (Array.isArray(document.assignees)) problems.push(...assigneeProblems(document.assignees));
  if (Array.isArray(document.ramp)) {
    const missing = quotaMissing(quota, 'a ramp is a percentage of quota');
    if (missing) problems.push({ path: 'ramp', message: missing });
  }
  if (typeof document.currency === 'string') {
    const problem = currencyProblem(document.currency);
    if (problem) problems.push({ path: 'currency', message: problem });
  }
  problems.push(...precedenceProblems(chips));
  if (isObject(document.plan_year)) problems.push(...planYearProblems(document, chips));
  const firstWithKey = new Map<string, number>();
  chips.forEach((chip, index) => {
    if (!isObject(chip)) return;
    const at = (...rest: Segment[]) => formatPath(['chips', index, ...rest]);
    if (typeof chip.key === 'string') {
      const first = firstWithKey.get(chip.key);
      if (first === undefined) firstWithKey.set(chip.key, index);
      else problems.push({ path: at('key'), message: `repeats the key of chips[${first}]; chip keys must be unique` });
    }
    if (chip.kind === 'commission' && typeof chip.base === 'string' && chip.base.startsWith('custom.')) {
      problems.push(...customNameProblems(chip.base, at('base')));
    }
    problems.push(...rateProblems(chip, at));
    if (chip.kind === 'tiered_commission' && Array.isArray(chip.tiers)) {
      problems.push(...tierProblems(chip.tiers, (...rest) => at('tiers', ...rest)));
      problems.push(...amountTableProblems(chip, (...rest) => at(...rest)));
      if (chip.tiers.some((tier) => isObject(tier) && 'up_to_pct' in tier)) {
        const missing = quotaMissing(quota, 'up_to_pct bands are percentages of quota');
        if (missing) problems.push({ path: at('tiers'), message: missing });
      }
      if (chip.basis === 'per_deal' && chip.tiers.some((tier) => isObject(tier) && 'up_to_deals' in tier)) {
        problems.push({
          path: at('basis'),
          message: 'per_deal does not apply to bands in up_to_deals: every deal would be the first of its own count',
        });
      }
    }
    if (chip.kind === 'attainment_bonus') {
      const missing = quotaMissing(quota, 'threshold_pct is a percentage of quota');
      if (missing) problems.push({ path: at('threshold_pct'), message: missing });
    }
    if (
      typeof chip.floor_cents === 'number' &&
      typeof chip.cap_cents === 'number' &&
      chip.floor_cents > chip.cap_cents
    ) {
      problems.push({ path: at('floor_cents'), message: `must not exceed cap_cents (${chip.cap_cents})` });
    }
    // Pay on cash: its terms say how a chip paid on cash holds and releases; on a chip paid on booking they mean nothing.
    if (chip.cash !== undefined && chip.payable_on !== 'cash') {
      problems.push({ path: at('cash'), message: 'applies only with payable_on: cash' });
    }
    if (chip.when !== undefined && chip.when !== null) {
      problems.push(...conditionProblems(chip.when, at('when'), { shapes: false }));
    }
  });
  return problems;
}

/**
 * A plan year paid monthly counts marginal tiers in money or percent of the annual quota from the year's start: what
 * it does not define is refused, each where the file says it.
 */
function planYearProblems(document: Record<string, unknown>, chips: unknown[]): PlanFileProblem[] {
  const problems: PlanFileProblem[] = [];
  const period = document.period ?? 'monthly';
  if (period !== 'monthly') {
    problems.push({ path: 'plan_year', message: 'a plan year is paid monthly: it needs period: monthly' });
  }
  if (Array.isArray(document.ramp)) {
    problems.push({ path: 'ramp', message: 'a ramp is not supported in a plan year: its quota is annual' });
  }
  if (isObject(document.draw)) {
    problems.push({ path: 'draw', message: 'a draw is not supported in a plan year' });
  }
  chips.forEach((chip, index) => {
    if (!isObject(chip)) return;
    const at = (...rest: Segment[]) => formatPath(['chips', index, ...rest]);
    if (chip.kind === 'attainment_bonus') {
      problems.push({ path: at('kind'), message: 'an attainment_bonus is not supported in a plan year' });
    }
    if (chip.kind !== 'tiered_commission') return;
    if (chip.mode === 'retroactive') {
      problems.push({ path: at('mode'), message: 'a plan year pays marginal tiers only: use mode: marginal' });
    }
    if (chip.basis === 'per_deal') {
      problems.push({ path: at('basis'), message: 'a plan year counts the year to date, not each deal alone' });
    }
    if (Array.isArray(chip.tiers) && chip.tiers.some((tier) => isObject(tier) && 'up_to_deals' in tier)) {
      problems.push({ path: at('tiers'), message: 'bands in up_to_deals are not supported in a plan year' });
    }
  });
  return problems;
}

/** Dated assignments: real days, `from` not after `until`, and one rep's windows in the plan never overlapping. */
function assigneeProblems(assignees: unknown[]): PlanFileProblem[] {
  const problems: PlanFileProblem[] = [];
  const windows = new Map<string, Array<{ from: string; until: string; index: number }>>();
  assignees.forEach((entry, index) => {
    const at = (...rest: Segment[]) => formatPath(['assignees', index, ...rest]);
    let owner: unknown = entry;
    let from = '';
    let until = '\uffff';
    if (isObject(entry)) {
      owner = entry.owner_external_id;
      for (const bound of ['from', 'until'] as const) {
        const value = entry[bound];
        if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !isCalendarDate(value)) {
          problems.push({ path: at(bound), message: 'must be a day that exists, YYYY-MM-DD' });
        }
      }
      if (typeof entry.from === 'string') from = entry.from;
      if (typeof entry.until === 'string') until = entry.until;
      if (from > until) problems.push({ path: at('until'), message: `must not be before from (${from})` });
    }
    if (typeof owner !== 'string') return;
    // A plain id given twice is the schema's `uniqueItems` problem, reported once there.
    if (typeof entry === 'string' && assignees.indexOf(entry) < index) return;
    const earlier = windows.get(owner) ?? [];
    const overlapping = earlier.find((window) => window.from <= until && from <= window.until);
    if (overlapping) {
      problems.push({
        path: at(),
        message: `overlaps assignees[${overlapping.index}] for ${owner}: one rep's windows in a plan must not overlap`,
      });
    }
    windows.set(owner, [...earlier, { from, until, index }]);
  });
  return problems;
}

function quotaMissing(quota: unknown, why: string): string | undefined {
  // A quota of 0 is a quota: it is read as 0% attainment.
  if (quota === undefined || quota === null) return `${why}: set quota_cents on the plan`;
  return undefined;
}

function tierProblems(tiers: unknown[], at: (...rest: Segment[]) => string): PlanFileProblem[] {
  const problems: PlanFileProblem[] = [];
  const bands = tiers.map((tier) => {
    if (!isObject(tier)) return undefined;
    const units = (['up_to_cents', 'up_to_pct', 'up_to_deals'] as const).filter((unit) => unit in tier);
    const unit = units.length === 1 ? units[0] : undefined;
    return unit === undefined ? undefined : { unit, bound: tier[unit] };
  });
  const firstUnit = bands.find((band) => band !== undefined)?.unit;
  let previous: { bound: number; index: number } | undefined;
  bands.forEach((band, index) => {
    if (band === undefined) return;
    if (band.unit !== firstUnit) {
      problems.push({
        path: at(index),
        message: `uses ${band.unit} but the first band uses ${firstUnit}: every band of a chip uses the same unit`,
      });
      return;
    }
    const last = index === tiers.length - 1;
    // A table of amounts fills bounded bands only (amountTableProblems); every other table ends with an open band.
    const amounts = tiers.some((tier) => isObject(tier) && 'amount_cents' in tier);
    if (band.bound === null && (!last || amounts)) {
      if (!amounts) problems.push({ path: at(index, band.unit), message: 'only the last band may be open (null)' });
    } else if (band.bound !== null && last && !amounts) {
      problems.push({ path: at(index, band.unit), message: 'must be null: the last band is open' });
    }
    if (typeof band.bound !== 'number') return;
    if (previous && band.bound <= previous.bound) {
      problems.push({
        path: at(index, band.unit),
        message: `must be greater than the previous band's bound (${previous.bound}): bands strictly increase`,
      });
    }
    previous = { bound: band.bound, index };
  });
  return problems;
}

/** Rates are basis points with at most two decimals (hundredths of a basis point), which the engine holds exactly. */
function rateProblems(chip: Record<string, unknown>, at: (...rest: Segment[]) => string): PlanFileProblem[] {
  const places: Array<[unknown, string]> = [[chip.rate_bps, at('rate_bps')]];
  if (Array.isArray(chip.tiers)) {
    chip.tiers.forEach((tier, index) => {
      if (isObject(tier)) places.push([tier.rate_bps, at('tiers', index, 'rate_bps')]);
    });
  }
  return places.flatMap(([value, path]) =>
    typeof value === 'number' && value >= 0 && rateOfBps(value) === null
      ? [{ path, message: 'must have at most two decimals: a rate is a whole number of hundredths of a basis point' }]
      : [],
  );
}

/**
 * A table of amounts (bands paying `amount_cents` for filling them, in proportion): every band pays an amount and is
 * bounded, in cents or percent of quota, and the table is marginal (proportional within a band).
 */
function amountTableProblems(chip: Record<string, unknown>, at: (...rest: Segment[]) => string): PlanFileProblem[] {
  const tiers = chip.tiers as unknown[];
  if (!tiers.some((tier) => isObject(tier) && 'amount_cents' in tier)) return [];
  const problems: PlanFileProblem[] = [];
  if (chip.mode === 'retroactive') {
    problems.push({
      path: at('mode'),
      message: 'must be marginal: a table of amounts pays each band in proportion to the part of it filled',
    });
  }
  tiers.forEach((tier, index) => {
    if (!isObject(tier)) return;
    if ('up_to_deals' in tier) {
      problems.push({ path: at('tiers', index, 'up_to_deals'), message: 'bands in deals pay rate_bps, not amounts' });
    } else if (!('amount_cents' in tier)) {
      problems.push({
        path: at('tiers', index),
        message: 'give amount_cents: every band of a table of amounts pays an amount for filling it',
      });
    } else if ('rate_bps' in tier) {
      problems.push({
        path: at('tiers', index, 'rate_bps'),
        message: 'a band pays amount_cents or rate_bps, not both',
      });
    }
    const bound = 'up_to_pct' in tier ? tier.up_to_pct : tier.up_to_cents;
    if (!('up_to_deals' in tier) && bound === null) {
      problems.push({
        path: at('tiers', index, 'up_to_pct' in tier ? 'up_to_pct' : 'up_to_cents'),
        message:
          'must be a bound: an amount is paid for filling a bounded band, the last one too (nothing is paid above it)',
      });
    }
  });
  return problems;
}

function customNameProblems(reference: string, path: string): PlanFileProblem[] {
  const name = reference.slice('custom.'.length);
  return RESERVED_NAMES.has(name) ? [{ path, message: `custom field name ${name} is reserved` }] : [];
}

const REPLACEABLE = new Set(['commission', 'tiered_commission', 'flat']);

/** `replaces` names other deal chips of the plan (commission, tiered_commission, flat), never a chip that replaces others. */
function precedenceProblems(chips: unknown[]): PlanFileProblem[] {
  const problems: PlanFileProblem[] = [];
  const kindOf = new Map<string, unknown>();
  const replacers = new Set<string>();
  for (const chip of chips) {
    if (!isObject(chip) || typeof chip.key !== 'string') continue;
    kindOf.set(chip.key, chip.kind);
    if (Array.isArray(chip.replaces) && chip.replaces.length > 0) replacers.add(chip.key);
  }
  chips.forEach((chip, index) => {
    if (!isObject(chip) || !Array.isArray(chip.replaces)) return;
    if (chip.when === undefined || chip.when === null) {
      problems.push({
        path: formatPath(['chips', index, 'replaces']),
        message: 'a chip that replaces others needs a when: the deals it takes over',
      });
    }
    chip.replaces.forEach((key, at) => {
      const path = formatPath(['chips', index, 'replaces', at]);
      if (key === chip.key) problems.push({ path, message: 'a chip cannot replace itself' });
      else if (!kindOf.has(String(key))) problems.push({ path, message: `names no chip of the plan (${String(key)})` });
      else if (!REPLACEABLE.has(String(kindOf.get(String(key)))))
        problems.push({ path, message: 'only a commission, tiered_commission or flat chip can be replaced' });
      else if (replacers.has(String(key)))
        problems.push({
          path,
          message: `${String(key)} replaces other chips itself; a replaced chip cannot replace others`,
        });
    });
  });
  return problems;
}
