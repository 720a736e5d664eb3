import type { Database } from '../db/prisma.ts';
import { Refusal } from '../domain/refusal.ts';
import { type RepEarningRow, type RepPeriodTotal, type RepRecord, RepRepository } from '../repositories/reps.ts';

/** A rep with, per period, the count and sum of its standing earnings rows. */
export interface RepWithTotals extends RepRecord {
  periods: Array<{ period_id: string; rows: number; amount_cents: number }>;
}

function withTotals(rep: RepRecord, totals: readonly RepPeriodTotal[]): RepWithTotals {
  return {
    id: rep.id,
    external_id: rep.external_id,
    periods: totals
      .filter((total) => total.user_id === rep.id)
      .map((total) => ({ period_id: total.period_id, rows: total.rows, amount_cents: total.amount_cents })),
  };
}

/** The org's reps and their earnings, as the console reads them. */
export class RepReader {
  readonly #reps: RepRepository;

  constructor(db: Database) {
    this.#reps = new RepRepository(db);
  }

  async list(orgId: string): Promise<RepWithTotals[]> {
    const [list, totals] = await Promise.all([this.#reps.list(orgId), this.#reps.periodTotals(orgId)]);
    return list.map((rep) => withTotals(rep, totals));
  }

  /** An unknown rep is `not_found`. */
  async find(orgId: string, repId: string): Promise<RepRecord> {
    const rep = await this.#reps.find(orgId, repId);
    if (!rep) throw new Refusal('not_found', `no rep ${repId}`);
    return rep;
  }

  /** The rep's earnings rows in one period; an unknown rep is `not_found`. */
  async earningsOfPeriod(
    orgId: string,
    repId: string,
    periodId: string,
  ): Promise<{ rep: RepWithTotals; earnings: RepEarningRow[] }> {
    const rep = await this.find(orgId, repId);
    const [earnings, totals] = await Promise.all([
      this.#reps.earningsOfPeriod(orgId, rep.id, periodId),
      this.#reps.periodTotals(orgId),
    ]);
    return { rep: withTotals(rep, totals), earnings };
  }
}
