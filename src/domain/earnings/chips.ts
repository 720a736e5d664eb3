import { MAX_AMOUNT_CENTS } from '../deals/event.ts';
import type { ChipRules } from './chipRules.ts';
import { readDealField } from './conditions.ts';
import { creditedPart } from './credit.ts';
import {
  type AmountDecimals,
  centsAsNumber,
  type ExactCents,
  exactCentsString,
  exactFromCents,
  exactRate,
  formatChipRate,
  formatExactMoney,
  formatMoney,
  formatPercent,
  formatRatioAsPercent,
  fractionOfDecimal,
  isBeyondNumberRange,
  type Rate,
  rateOnWire,
  runningTotalOnWire,
  TWO_DECIMALS,
} from './money.ts';
import type { DealSnapshot, TraceStep } from './types.ts';

// One line's exact, unrounded amount for the commission, flat and attainment_bonus chips, with the trace steps and
// sentences that let a person redo the sum (tiers in tieredChip.ts, overrides in overrideChip.ts). Rounding and
// the ledger happen after, once per line.

/** A chip's exact amount for one line, before the single rounding, with the steps that produced it. */
export interface Computation {
  exact: ExactCents;
  /** The amounts `exact` sums, when there is more than one (a deal spanning tier bands). */
  addends?: ExactCents[];
  steps: TraceStep[];
  explanation: string[];
}

export const BEYOND_RANGE =
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

export const SAME_CURRENCY: ToPlanCurrency = (cents) => ({ cents, step: null, sentence: null });

/** `10.00% of 60,000.00 = 6,000.00`: a rate applied to a base, both amounts in the plan currency's decimals. */
export function rateSentence(rate: Rate, base: bigint, exact: ExactCents, decimals: number): string {
  return `${formatChipRate(rate)} of ${formatMoney(base, decimals)} = ${formatExactMoney(exact, decimals)}`;
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
  const exact = exactRate(base, rules.rate);
  explanation.push(rateSentence(rules.rate, base, exact, decimals.plan));
  return {
    exact,
    steps: [
      { type: 'base', field: rules.base_field, amount_cents: centsAsNumber(whole) },
      ...(part.step ? [part.step] : []),
      ...(converted.step ? [converted.step] : []),
      {
        type: 'rate',
        rate_bps: rateOnWire(rules.rate),
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
