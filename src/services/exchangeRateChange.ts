import { type AdminActor, CLI_ACTOR } from '../audit/adminEntries.ts';
import type { StoredExchangeRate } from '../repositories/exchangeRates.ts';
import type { EarningsRecompute } from './adminRecompute.ts';
import type { RecomputeSummary } from './earnings/planRecompute.ts';
import type { ExchangeRateService, SetRateInput } from './exchangeRates.ts';

export interface ExchangeRateSet {
  rate: StoredExchangeRate;
  /** The rate it replaced (same pair and day), or null. */
  replaced: string | null;
  recompute: RecomputeSummary;
}

/**
 * Setting a rate as `quotient fx set` does: the rate is stored with its audit entry, then the org's earnings are
 * recomputed with the reason `exchange_rate_set`, which prices unpriced lines and re-converts converted ones; a line
 * of a locked or paid period that the rate moves is booked as a top-up or clawback in the earliest open period.
 */
export class ExchangeRateChange {
  readonly #rates: ExchangeRateService;
  readonly #recompute: EarningsRecompute;

  constructor(rates: ExchangeRateService, recompute: EarningsRecompute) {
    this.#rates = rates;
    this.#recompute = recompute;
  }

  async set(input: SetRateInput, actor: AdminActor = CLI_ACTOR): Promise<ExchangeRateSet> {
    const { rate, replaced } = await this.#rates.set(input, actor);
    const recompute = await this.#recompute.run({
      orgId: input.orgId,
      reason: {
        code: 'exchange_rate_set',
        explanation: `The ${rate.from_currency}→${rate.to_currency} exchange rate from ${rate.effective_on} was set to ${rate.rate}, and the lines were evaluated again.`,
      },
      rateChange: {
        rate: {
          from_currency: rate.from_currency,
          to_currency: rate.to_currency,
          effective_on: rate.effective_on,
          rate: rate.rate,
        },
        replaced,
      },
    });
    return { rate, replaced, recompute };
  }
}
