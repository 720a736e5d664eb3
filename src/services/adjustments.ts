import { type AdminActor, CLI_ACTOR } from '../audit/adminEntries.ts';
import { isPeriodId } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import type { AdjustmentFilters, AdjustmentRecord } from '../repositories/adjustments.ts';
import * as adjustments from '../repositories/adjustments.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import { type AdjustmentImportSummary, importAdjustmentFile } from './adjustmentImport.ts';
import { type AdjustmentPage, adjustmentPage } from './adjustmentReader.ts';
import {
  type AdjustmentInput,
  inputProblem,
  insertAdjustment,
  recountAttainment,
  requireOpenPeriod,
  requirePlanPeriod,
  resolveDeal,
  resolveUser,
  sameOrRefused,
} from './adjustmentSteps.ts';
import type { EarningsRecompute } from './adminRecompute.ts';

// The admin's adjustments: one added, one voided, one read or a page, and a CSV file of them.

export interface AdjustmentWrite {
  adjustment: AdjustmentRecord;
  /** False when the idempotency key had already added it: nothing was written. */
  created: boolean;
}

/**
 * Manual adjustments, added by admins (console, CLI, CSV file) to an open period of a rep: each write is one
 * transaction with its audit entry and its `adjustment.created` webhook, holding the period `FOR SHARE` so a lock
 * waits for it (and it for a lock). Nothing is ever updated or deleted: a void is a counter-adjustment.
 */
export class AdjustmentAdmin {
  readonly #db: Transactor;
  readonly #statements: Transaction;
  readonly #recompute: EarningsRecompute | undefined;

  /**
   * `recompute` evaluates again the lines an adjustment counting toward attainment moves, once its write commits
   * (as a quota change does); absent (a service built alone), nothing is recomputed.
   */
  constructor(db: Transactor, recompute?: EarningsRecompute) {
    this.#db = db;
    this.#statements = db.statements;
    this.#recompute = recompute;
  }

  async create(orgId: string, input: AdjustmentInput, actor: AdminActor = CLI_ACTOR): Promise<AdjustmentWrite> {
    await this.#requireOrg(orgId);
    const problem = inputProblem(input);
    if (problem) throw new Refusal('invalid_body', problem);
    const write = await this.#db.run(async (tx): Promise<AdjustmentWrite> => {
      if (input.idempotency_key !== undefined) {
        const [existing] = await adjustments.findByIdempotencyKeys(tx, orgId, [input.idempotency_key]);
        if (existing) return { adjustment: sameOrRefused(existing, input), created: false };
      }
      const userId = await resolveUser(tx, orgId, input);
      const dealId = await resolveDeal(tx, orgId, input);
      await requirePlanPeriod(tx, orgId, userId, input.period_id);
      await requireOpenPeriod(tx, orgId, input.period_id);
      const record = await insertAdjustment(
        tx,
        orgId,
        {
          user_id: userId,
          period_id: input.period_id,
          amount_cents: input.amount_cents,
          currency: input.currency ?? (await orgs.defaultCurrency(tx, orgId)) ?? 'USD',
          category: input.category,
          reason: input.reason,
          deal_id: dealId,
          voids_id: null,
          idempotency_key: input.idempotency_key ?? null,
          counts_toward_attainment: input.counts_toward_attainment ?? false,
        },
        actor,
      );
      return { adjustment: record, created: true };
    });
    if (write.created && write.adjustment.counts_toward_attainment)
      await recountAttainment(this.#recompute, orgId, [write.adjustment]);
    return write;
  }

  /**
   * Voids an adjustment with a counter-adjustment of the opposite amount, in `periodId` (by default the voided
   * one's period), which must be open. A void is not voided, and an adjustment is voided once.
   */
  async void(
    orgId: string,
    id: string,
    input: { reason: string; period_id?: string },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<AdjustmentWrite> {
    await this.#requireOrg(orgId);
    if (input.reason.trim() === '') throw new Refusal('invalid_body', 'reason: must not be empty');
    if (input.period_id !== undefined && !isPeriodId(input.period_id)) {
      throw new Refusal('invalid_body', `period_id: ${JSON.stringify(input.period_id)} is not a period id`);
    }
    const voiding = await this.#db.run(async (tx) => {
      const voided = await adjustments.lockForVoid(tx, orgId, id);
      if (!voided) throw new Refusal('not_found', `no adjustment ${id}`);
      if (voided.voids_id !== null) {
        throw new Refusal('invalid_state', `adjustment ${id} is a void (of ${voided.voids_id}); it cannot be voided`);
      }
      if (voided.voided_by_id !== null) {
        throw new Refusal('invalid_state', `adjustment ${id} is already voided by ${voided.voided_by_id}`);
      }
      const periodId = input.period_id ?? voided.period_id;
      await requireOpenPeriod(tx, orgId, periodId);
      const record = await insertAdjustment(
        tx,
        orgId,
        {
          user_id: voided.user_id,
          period_id: periodId,
          amount_cents: -voided.amount_cents,
          currency: voided.currency,
          category: voided.category,
          reason: input.reason,
          deal_id: voided.deal_id,
          voids_id: voided.id,
          idempotency_key: null,
          counts_toward_attainment: voided.counts_toward_attainment,
        },
        actor,
      );
      return { write: { adjustment: record, created: true }, voided };
    });
    // The voided adjustment no longer counts where it counted (a locked period too: the difference is booked in the
    // next open period); its void counts nowhere.
    if (voiding.voided.counts_toward_attainment) await recountAttainment(this.#recompute, orgId, [voiding.voided]);
    return voiding.write;
  }

  async get(orgId: string, id: string): Promise<AdjustmentRecord> {
    const found = await adjustments.find(this.#statements, orgId, id);
    if (!found) throw new Refusal('not_found', `no adjustment ${id}`);
    return found;
  }

  async listPage(
    orgId: string,
    query: { filters: AdjustmentFilters; limit: number; cursor?: string },
  ): Promise<AdjustmentPage> {
    await this.#requireOrg(orgId);
    return adjustmentPage(this.#statements, orgId, query);
  }

  /** Adds the adjustments of a CSV file, all or nothing (see importAdjustmentFile). */
  async importFile(
    orgId: string,
    text: string,
    options: { dryRun: boolean; source?: string },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<AdjustmentImportSummary> {
    await this.#requireOrg(orgId);
    return importAdjustmentFile(this.#db, this.#recompute, orgId, text, options, actor);
  }

  async #requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }
}
