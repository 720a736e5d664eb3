import type { EarningTrace } from '../domain/earnings/types.ts';
import { Refusal } from '../domain/refusal.ts';
import { hasPrefix } from '../lib/ids.ts';
import type { RepEarningRow, RepPeriodTotal } from '../repositories/earningsOverview.ts';
import * as earningsOverview from '../repositories/earningsOverview.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import type { RepRecord } from '../repositories/users.ts';
import * as users from '../repositories/users.ts';
import { withServedTraces } from './earnings/servedTraces.ts';

/** A rep with, per period, the count and sum of its standing earnings rows. */
export interface RepWithTotals extends RepRecord {
  periods: Array<{ period_id: string; rows: number; amount_cents: number }>;
}

function withTotals(rep: RepRecord, totals: readonly RepPeriodTotal[]): RepWithTotals {
  return {
    id: rep.id,
    external_id: rep.external_id,
    display_name: rep.display_name,
    display_name_source: rep.display_name_source,
    leaving_date: rep.leaving_date,
    deactivated_at: rep.deactivated_at,
    periods: totals
      .filter((total) => total.user_id === rep.id)
      .map((total) => ({ period_id: total.period_id, rows: total.rows, amount_cents: total.amount_cents })),
  };
}

/** The org's reps and their earnings, as the console reads them. */
export class RepReader {
  readonly #statements: Transaction;

  constructor(db: Transactor) {
    this.#statements = db.statements;
  }

  async list(orgId: string): Promise<RepWithTotals[]> {
    const [list, totals] = await Promise.all([
      users.listReps(this.#statements, orgId),
      earningsOverview.repPeriodTotals(this.#statements, orgId),
    ]);
    return list.map((rep) => withTotals(rep, totals));
  }

  /** An unknown rep is `not_found`. */
  async find(orgId: string, repId: string): Promise<RepRecord> {
    const rep = await users.findRep(this.#statements, orgId, repId);
    if (!rep) throw new Refusal('not_found', `no rep ${repId}`);
    return rep;
  }

  /** The rep named by their id (`user_…`) or else by their external id, as the admin commands take them; else `not_found`. */
  async findByIdOrExternalId(orgId: string, rep: string): Promise<RepRecord> {
    const byId = hasPrefix(rep, 'user') ? await users.findRep(this.#statements, orgId, rep) : null;
    const found = byId ?? (await users.findRepByExternalIdForAdmin(this.#statements, orgId, rep));
    if (!found) throw new Refusal('not_found', `org ${orgId} has no rep ${rep}`);
    return found;
  }

  /** The rep's (by id or external id) earnings rows in one period; an unknown rep is `not_found`. */
  async earningsOfPeriod(
    orgId: string,
    repId: string,
    periodId: string,
  ): Promise<{ rep: RepWithTotals; earnings: RepEarningRow[] }> {
    const rep = await this.findByIdOrExternalId(orgId, repId);
    const [stored, totals] = await Promise.all([
      earningsOverview.repRowsOfPeriod(this.#statements, orgId, rep.id, periodId),
      earningsOverview.repPeriodTotals(this.#statements, orgId),
    ]);
    const rows = (await withServedTraces(this.#statements, orgId, stored)).map(
      ({ trace, plan_version_id: _version, rule_version: _chipVersion, ...row }): RepEarningRow => {
        // A trace without a chip or explanation (rows written by hand) shows the chip's id and no sentences.
        const shown = trace as Partial<EarningTrace>;
        return { ...row, chip_name: shown.chip?.name ?? row.rule_chip_id, explanation: shown.explanation ?? [] };
      },
    );
    return { rep: withTotals(rep, totals), earnings: rows };
  }
}
