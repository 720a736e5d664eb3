import { currencyProblem } from '../domain/currencies.ts';
import { Refusal } from '../domain/refusal.ts';
import type { OrgRecord } from '../repositories/orgs.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';

/**
 * A new org's name and default currency (ISO 4217, any case), checked: refused with `invalid_body` naming the
 * problem. The CLI checks them before it opens the database, and `OrgAdmin.create` again.
 */
export function checkNewOrg(input: { name: string; currency: string }): { name: string; currency: string } {
  const name = input.name.trim();
  if (!name) throw new Refusal('invalid_body', 'the org needs a non-empty --name');
  const currency = input.currency.trim().toUpperCase();
  const problem = currencyProblem(currency);
  if (problem) throw new Refusal('invalid_body', `--currency ${input.currency} ${problem}`);
  return { name, currency };
}

/** Organisations, as `quotient orgs` creates and lists them. */
export class OrgAdmin {
  readonly #statements: Transaction;

  constructor(db: Transactor) {
    this.#statements = db.statements;
  }

  /** A new org; `currency` (ISO 4217, any case) is the default of its deals and plans that name none. */
  create(input: { name: string; currency: string }): Promise<OrgRecord> {
    const { name, currency } = checkNewOrg(input);
    return orgs.create(this.#statements, name, currency);
  }

  list(): Promise<OrgRecord[]> {
    return orgs.list(this.#statements);
  }
}
