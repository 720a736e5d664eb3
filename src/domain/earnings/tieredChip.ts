import type { Band, CountBand, CountTierRules, MoneyTierRules } from './chipRules.ts';
import { BEYOND_RANGE, type Computation } from './chips.ts';
import {
  centsAsNumber,
  EXACT_SCALE,
  type ExactCents,
  exactCentsString,
  exactRate,
  formatChipRate,
  formatExactMoney,
  formatMoney,
  formatPercent,
  isBeyondNumberRange,
  rateOnWire,
  roundHalfAwayFromZero,
  runningTotalOnWire,
} from './money.ts';
import type { TraceStep } from './types.ts';

// A tiered_commission line: where the deal stands in the bands (the rep's running total, or the deal alone per
// deal), the slice each band takes and at which rate, with the steps and sentences that let a person redo it.

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
  rules: MoneyTierRules,
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
    if (band.amount_cents !== undefined && band.to_cents !== null) {
      addends.push(addProportionalBand(band, band.amount_cents, band.to_cents, slice, steps, explanation, decimals));
      return;
    }
    const amount = exactRate(slice, band.rate);
    addends.push(amount);
    steps.push({
      type: 'tier',
      band: band.position,
      from_cents: runningTotalOnWire(band.from_cents),
      to_cents: band.to_cents === null ? null : runningTotalOnWire(band.to_cents),
      slice_cents: centsAsNumber(slice),
      rate_bps: rateOnWire(band.rate),
      exact_cents: exactCentsString(amount),
    });
    explanation.push(
      `${describeBand(band, quotaCents, decimals)} takes ${takes}${money(slice)} at ${formatChipRate(band.rate)} = ${formatExactMoney(amount, decimals)}`,
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
    const top = rules.bands.at(-1)?.to_cents ?? null;
    if (rules.bands[0]?.amount_cents !== undefined && top !== null && end > top) {
      const beyond = end - (prior > top ? prior : top);
      explanation.push(
        `The table ends at ${money(top)}: the ${money(beyond)} beyond it fills no band, so it earns nothing more.`,
      );
    }
    if (rules.bands[0]?.zero_quota && rules.bands[0].amount_cents !== undefined) {
      explanation.push(
        'A quota of 0 is read as 0% attainment, which fills no band of the table, so the table pays nothing.',
      );
    }
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

/**
 * A proportional (interpolated) band: it holds `amount` for being filled from its lower bound to `to`, and the slice
 * of it filled earns amount × slice / width, to a millionth of a cent (half away from zero), as the trace says.
 */
function addProportionalBand(
  band: Band,
  amount: bigint,
  to: bigint,
  slice: bigint,
  steps: TraceStep[],
  explanation: string[],
  decimals: number,
): ExactCents {
  const width = to - band.from_cents;
  const share = roundHalfAwayFromZero(amount * slice * EXACT_SCALE, width);
  steps.push({
    type: 'proportional_tier',
    band: band.position,
    from_cents: runningTotalOnWire(band.from_cents),
    to_cents: runningTotalOnWire(to),
    slice_cents: centsAsNumber(slice),
    band_amount_cents: centsAsNumber(amount),
    exact_cents: exactCentsString(share),
  });
  const money = (cents: bigint) => formatMoney(cents, decimals);
  const filled =
    slice === width
      ? 'fills it, so it earns its whole amount'
      : `fills ${money(slice)} of its ${money(width)}, so it earns that part of the amount`;
  explanation.push(
    `Band ${band.position} (${money(band.from_cents)} to ${money(to)}) pays ${money(amount)} for being filled; this deal ${filled}: ${money(amount)} × ${money(slice)} / ${money(width)} = ${formatExactMoney(share, decimals)}`,
  );
  return share;
}

/** Where a deal stands in the count of the rep's won deals of the period, for bands in `up_to_deals`. */
export interface DealCount {
  /** The deal's number in the count (a projection: the count plus one, as if won next). */
  position: number;
  /** Deals counted in the period, this one included. */
  period_deals: number;
  rep_external_id: string;
  period_id: string;
  projected: boolean;
}

export function countBandOf(bands: readonly CountBand[], deals: number): CountBand | undefined {
  return bands.find((band) => deals >= band.from_deal && (band.to_deal === null || deals <= band.to_deal));
}

function describeCountBand(band: CountBand): string {
  return band.to_deal === null
    ? `Band ${band.position} (deal ${band.from_deal} on)`
    : `Band ${band.position} (deals ${band.from_deal} to ${band.to_deal})`;
}

/**
 * A tier line counted in deals: the rate of the band the deal's number falls in (marginal) or the band the period's
 * count reaches (retroactive), of the rep's credited amount of the deal in the plan's currency (`amountCents`).
 */
export function computeCountTiered(
  amountCents: bigint,
  count: DealCount,
  rules: CountTierRules,
  credit?: { whole_cents: bigint; step: TraceStep; explanation: string[] },
  conversion?: { step: TraceStep & { type: 'conversion' }; sentence: string },
  decimals = 2,
): Computation {
  const money = (cents: bigint) => formatMoney(cents, decimals);
  const original = conversion ? BigInt(conversion.step.original_cents) : amountCents;
  const picking = rules.mode === 'marginal' ? count.position : count.period_deals;
  const band = countBandOf(rules.bands, picking) ?? (rules.bands[0] as CountBand);
  const exact = exactRate(amountCents, band.rate);
  const explanation = [
    ...(credit?.explanation ?? []),
    ...(conversion ? [conversion.sentence] : []),
    count.projected
      ? `Counting this open deal as won next, it would be deal ${count.position} won by ${count.rep_external_id} in ${count.period_id}, counted in order of close date, then won time, then id.`
      : `This is deal ${count.position} of the ${count.period_deals} won by ${count.rep_external_id} in ${count.period_id}, counted in order of close date, then won time, then id.`,
    rules.mode === 'marginal'
      ? `${describeCountBand(band)} holds deal ${count.position}, so the deal earns its rate.`
      : `Whole count: the period ${count.projected ? 'would count' : 'counts'} ${count.period_deals} deals, in ${describeCountBand(band).toLowerCase()}, so every deal of the period earns its rate.`,
    `${formatChipRate(band.rate)} of ${money(amountCents)} = ${formatExactMoney(exact, decimals)}`,
  ];
  return {
    exact,
    steps: [
      { type: 'base', field: 'amount_cents', amount_cents: centsAsNumber(credit?.whole_cents ?? original) },
      ...(credit ? [credit.step] : []),
      ...(conversion ? [conversion.step] : []),
      {
        type: 'deal_count',
        position: count.position,
        period_deals: count.period_deals,
        band: band.position,
        from_deal: band.from_deal,
        to_deal: band.to_deal,
      },
      {
        type: 'rate',
        rate_bps: rateOnWire(band.rate),
        base_cents: centsAsNumber(amountCents),
        exact_cents: exactCentsString(exact),
      },
    ],
    explanation,
  };
}
