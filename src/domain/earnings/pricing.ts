import { DEFAULT_CURRENCY } from '../currencies.ts';
import type { CalendarDate } from '../periods.ts';
import { dealDate } from './assignments.ts';
import { creditedPart } from './credit.ts';
import { conversionTrace, convertMinorUnits, type ExchangeRate, missingRateTrace, rateInForce } from './exchange.ts';
import type { DealSnapshot, EnginePlanVersion, TraceStep } from './types.ts';

/** The org's default currency (of deals and plans that name none) and its exchange rates. */
export interface OrgMoney {
  default_currency: string;
  rates: readonly ExchangeRate[];
}

export function amountOf(deal: DealSnapshot): bigint {
  return BigInt(deal.amount_cents ?? 0);
}

/**
 * How a plan prices deals (docs/currencies.md): the currency it pays in and the org's rates. A deal in another
 * currency has its credited amount converted at the rate in force on its date; without one it is unpriced.
 */
export interface Pricing {
  plan_currency: string;
  default_currency: string;
  rates: readonly ExchangeRate[];
  today: CalendarDate;
}

/** An amount of the deal in the plan's currency, with the step and sentence of its conversion when there was one. */
export type Priced =
  | { priced: true; cents: bigint; step: TraceStep | null; sentence: string | null }
  | { priced: false; step: TraceStep; sentence: string };

export function dealCurrencyOf(deal: DealSnapshot, pricing: Pricing): string {
  return deal.currency ?? pricing.default_currency;
}

/** The deal's amount `cents` (minor units of the deal's currency) in the plan's currency. */
export function priceIn(pricing: Pricing, deal: DealSnapshot, cents: bigint): Priced {
  const from = dealCurrencyOf(deal, pricing);
  const to = pricing.plan_currency;
  if (from === to) return { priced: true, cents, step: null, sentence: null };
  const day = dealDate(deal, pricing.today);
  const used = rateInForce(pricing.rates, from, to, day);
  if (used === null) return { priced: false, ...missingRateTrace(from, to, day) };
  const conversion = convertMinorUnits(cents, from, to, used);
  return { priced: true, cents: conversion.converted, ...conversionTrace(cents, from, to, used, conversion, day) };
}

/** Whether the deal's amounts can be counted in the plan's currency. */
export function isPriced(pricing: Pricing, deal: DealSnapshot): boolean {
  return priceIn(pricing, deal, 0n).priced;
}

/**
 * What tiers, quotas and attainment count of a deal for a rep: the rep's credited part of its amount, in the
 * plan's currency; null when no rate converts it.
 */
export function creditedAmountOf(deal: DealSnapshot, repExternalId: string, pricing: Pricing): bigint | null {
  const priced = priceIn(pricing, deal, creditedPart(deal, repExternalId, amountOf(deal), 'the amount').cents);
  return priced.priced ? priced.cents : null;
}

/** How `plan` prices deals with the org's money settings; without them, a deal is taken to be in the plan's currency. */
export function pricingOf(
  plan: Pick<EnginePlanVersion, 'currency'>,
  money: OrgMoney | undefined,
  today: CalendarDate,
): Pricing {
  const defaultCurrency = money?.default_currency ?? plan.currency ?? DEFAULT_CURRENCY;
  return {
    plan_currency: plan.currency ?? defaultCurrency,
    default_currency: money ? defaultCurrency : (plan.currency ?? defaultCurrency),
    rates: money?.rates ?? [],
    today,
  };
}
