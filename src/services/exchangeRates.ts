import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { currencyProblem } from '../domain/currencies.ts';
import { normaliseRate, rateProblem } from '../domain/earnings/exchange.ts';
import { isCalendarDate } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import * as audit from '../repositories/audit.ts';
import type { StoredExchangeRate } from '../repositories/exchangeRates.ts';
import * as exchangeRates from '../repositories/exchangeRates.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';

// Exchange rates and the org's default currency (docs/currencies.md), as admins set them. Setting a rate changes
// what deals in other currencies than their plans are worth: ExchangeRateChange then recomputes the org's earnings
// with the reason `exchange_rate_set` (see `quotient fx set`), which prices unpriced lines and re-converts the deals
// dated on or after the rate's day, under the ledger rules (rows superseded; locked periods adjusted in the next
// open one).

export interface SetRateInput {
  orgId: string;
  from: string;
  to: string;
  rate: string;
  effectiveOn: string;
}

export class ExchangeRateService {
  readonly #db: Transactor;
  readonly #statements: Transaction;

  constructor(db: Transactor) {
    this.#db = db;
    this.#statements = db.statements;
  }

  /** Refuses bad input with `invalid_body` naming it, an unknown org with `not_found`; changes nothing then. */
  async set(
    input: SetRateInput,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ rate: StoredExchangeRate; replaced: string | null }> {
    const from = checkCurrency(input.from, 'FROM');
    const to = checkCurrency(input.to, 'TO');
    if (from === to) throw new Refusal('invalid_body', `FROM and TO are both ${from}; a rate needs two currencies`);
    const problem = rateProblem(input.rate);
    if (problem) throw new Refusal('invalid_body', `RATE ${input.rate} ${problem}`);
    if (!isCalendarDate(input.effectiveOn)) {
      throw new Refusal('invalid_body', `--from ${input.effectiveOn} must be a day, YYYY-MM-DD`);
    }
    await this.requireOrg(input.orgId);
    const rate = normaliseRate(input.rate);
    const result = await this.#db.run((tx) =>
      exchangeRates.set(tx, input.orgId, {
        from_currency: from,
        to_currency: to,
        effective_on: input.effectiveOn,
        rate,
      }),
    );
    await audit.insertMany(this.#statements, [
      adminAuditEntry(
        input.orgId,
        'exchange_rate.set',
        { from_currency: from, to_currency: to, effective_on: input.effectiveOn, rate, replaced: result.replaced },
        actor,
      ),
    ]);
    return result;
  }

  async list(orgId: string, currency?: string): Promise<StoredExchangeRate[]> {
    const only = currency === undefined ? undefined : checkCurrency(currency, '--currency');
    await this.requireOrg(orgId);
    return exchangeRates.list(this.#statements, orgId, only);
  }

  /**
   * Sets the org's default currency while it has no deals and no plans: a plan without `currency` pays in it and
   * a deal without one was recorded in it, so changing it later would change what they mean.
   */
  async setDefaultCurrency(
    orgId: string,
    currency: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ currency: string; changed: boolean }> {
    const code = checkCurrency(currency, 'CURRENCY');
    await this.requireOrg(orgId);
    const outcome = await orgs.setDefaultCurrencyIfUnused(this.#statements, orgId, code);
    if (outcome === 'in_use') {
      throw new Refusal(
        'invalid_state',
        `org ${orgId} already has deals or plans recorded in its default currency; the default can only be set before either exists`,
      );
    }
    if (outcome === 'changed') {
      await audit.insertMany(this.#statements, [adminAuditEntry(orgId, 'org.currency_set', { currency: code }, actor)]);
    }
    return { currency: code, changed: outcome === 'changed' };
  }

  private async requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }
}

function checkCurrency(value: string, what: string): string {
  const code = value.trim().toUpperCase();
  const problem = currencyProblem(code);
  if (problem) throw new Refusal('invalid_body', `${what} ${value} ${problem.replace(`${code} `, '')}`);
  return code;
}
