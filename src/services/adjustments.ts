import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import {
  type AdjustmentCategory,
  type AdjustmentFileRow,
  adjustmentProblem,
  readAdjustmentFile,
} from '../domain/adjustments.ts';
import { isKnownCurrency } from '../domain/currencies.ts';
import { earliestOpenPeriodFrom } from '../domain/earnings/ledger.ts';
import { keysetCursor, keysetFingerprint } from '../domain/lists/keysetCursor.ts';
import { isPeriodId } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import { type Viewer, visibleUserIdsOf } from '../domain/viewer.ts';
import { newId } from '../lib/ids.ts';
import type { AdjustmentFilters, AdjustmentRecord, NewAdjustment } from '../repositories/adjustments.ts';
import * as adjustments from '../repositories/adjustments.ts';
import * as audit from '../repositories/audit.ts';
import * as deals from '../repositories/deals.ts';
import * as orgs from '../repositories/orgs.ts';
import * as periods from '../repositories/periods.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import { toWireAdjustment } from '../wire/adjustments.ts';
import type { EarningsRecompute } from './adminRecompute.ts';
import { enqueueWebhookEvent } from './webhookOutbox.ts';

/** An adjustment to add: the rep by id or external id, the deal (optional) likewise. */
export interface AdjustmentInput {
  user_id?: string;
  user_external_id?: string;
  period_id: string;
  amount_cents: number;
  currency?: string;
  category: AdjustmentCategory;
  reason: string;
  deal_id?: string;
  deal_external_id?: string;
  idempotency_key?: string;
  /** The amount counts toward the rep's attainment in its period too; false when absent. */
  counts_toward_attainment?: boolean;
}

/** Why rows move when an adjustment that counts toward attainment is added or voided, in their traces. */
const RECOMPUTE_REASON = {
  code: 'amount_changed',
  explanation:
    "A manual adjustment counting toward the rep's attainment was added or voided, and the lines that count attainment were evaluated again.",
} as const;

export interface AdjustmentWrite {
  adjustment: AdjustmentRecord;
  /** False when the idempotency key had already added it: nothing was written. */
  created: boolean;
}

export interface AdjustmentImportSummary {
  dry_run: boolean;
  applied: boolean;
  rows: number;
  created: number;
  unchanged: number;
  refusals: Array<{ line: number; reason: string }>;
}

export interface AdjustmentPage {
  adjustments: AdjustmentRecord[];
  nextCursor: string | null;
}

export const ADJUSTMENT_CURSOR = keysetCursor({ idPrefix: 'adj', timeMember: 'c' });

/** A refusal of one file row, collected rather than thrown so every row of the file is reported. */
class RowRefusal extends Error {}

/** Ends an import's transaction without committing anything: a refused row, or a dry run. */
class NothingApplied extends Error {}

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

  /** Recomputes the reps' lines that count attainment in the adjustments' periods, after the write committed. */
  async #recount(orgId: string, counted: ReadonlyArray<{ user_id: string; period_id: string }>): Promise<void> {
    if (!this.#recompute || counted.length === 0) return;
    await this.#recompute.run({
      orgId,
      reason: RECOMPUTE_REASON,
      adjustmentChange: {
        userIds: [...new Set(counted.map((each) => each.user_id))].sort(),
        periods: [...new Set(counted.map((each) => each.period_id))].sort(),
      },
    });
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
      await requireOpenPeriod(tx, orgId, input.period_id);
      const record = await this.#insert(
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
    if (write.created && write.adjustment.counts_toward_attainment) await this.#recount(orgId, [write.adjustment]);
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
      const record = await this.#insert(
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
    if (voiding.voided.counts_toward_attainment) await this.#recount(orgId, [voiding.voided]);
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

  /**
   * Adds the adjustments of a CSV file, all or nothing: every row is checked (its own fields, then its rep, deal,
   * period and key) inside one transaction; when any is refused, nothing is written and each refusal is reported
   * with its line. A row whose key already added the same adjustment is unchanged; the same key with another
   * adjustment is refused.
   */
  async importFile(
    orgId: string,
    text: string,
    options: { dryRun: boolean; source?: string },
    actor: AdminActor = CLI_ACTOR,
  ): Promise<AdjustmentImportSummary> {
    await this.#requireOrg(orgId);
    const entries = await readAdjustmentFile(text);
    const summary: AdjustmentImportSummary = {
      dry_run: options.dryRun,
      applied: false,
      rows: entries.length,
      created: 0,
      unchanged: 0,
      refusals: [],
    };
    const refuse = (line: number, reason: string) => summary.refusals.push({ line, reason });
    const rows: AdjustmentFileRow[] = [];
    for (const entry of entries) {
      if ('refusal' in entry) refuse(entry.line, entry.refusal);
      else rows.push(entry);
    }
    const counted: Array<{ user_id: string; period_id: string }> = [];
    const applying = this.#db.run(async (tx) => {
      const existing = new Map(
        (
          await adjustments.findByIdempotencyKeys(
            tx,
            orgId,
            rows.map((row) => row.idempotency_key),
          )
        ).map((record) => [record.idempotency_key, record]),
      );
      const defaultCurrency = (await orgs.defaultCurrency(tx, orgId)) ?? 'USD';
      const toWrite: Array<Omit<NewAdjustment, 'id' | 'org_id' | 'created_by_type' | 'created_by' | 'created_by_id'>> =
        [];
      for (const row of rows) {
        const input: AdjustmentInput = {
          user_external_id: row.user_external_id,
          period_id: row.period_id,
          amount_cents: row.amount_cents,
          category: row.category,
          reason: row.reason,
          idempotency_key: row.idempotency_key,
          ...(row.currency === null ? {} : { currency: row.currency }),
          ...(row.deal_external_id === null ? {} : { deal_external_id: row.deal_external_id }),
          counts_toward_attainment: row.counts_toward_attainment,
        };
        try {
          const found = existing.get(row.idempotency_key);
          if (found) {
            sameOrRefused(found, input, RowRefusal);
            summary.unchanged += 1;
            continue;
          }
          const userId = await resolveUser(tx, orgId, input, RowRefusal);
          const dealId = await resolveDeal(tx, orgId, input, RowRefusal);
          await requireOpenPeriod(tx, orgId, row.period_id, RowRefusal);
          toWrite.push({
            user_id: userId,
            period_id: row.period_id,
            amount_cents: row.amount_cents,
            currency: row.currency ?? defaultCurrency,
            category: row.category,
            reason: row.reason,
            deal_id: dealId,
            voids_id: null,
            idempotency_key: row.idempotency_key,
            counts_toward_attainment: row.counts_toward_attainment,
          });
        } catch (error) {
          if (!(error instanceof RowRefusal)) throw error;
          refuse(row.line, error.message);
        }
      }
      summary.created = toWrite.length;
      counted.push(...toWrite.filter((adjustment) => adjustment.counts_toward_attainment));
      // What checking the rows did (a period created open) is rolled back with the rest.
      if (summary.refusals.length > 0 || options.dryRun) throw new NothingApplied();
      if (toWrite.length === 0) return;
      for (const adjustment of toWrite) await this.#insert(tx, orgId, adjustment, actor);
      await audit.insertMany(tx, [
        adminAuditEntry(
          orgId,
          'adjustments.imported',
          {
            source: options.source ?? null,
            rows: summary.rows,
            created: summary.created,
            unchanged: summary.unchanged,
          },
          actor,
        ),
      ]);
    });
    await applying.catch((error: unknown) => {
      if (!(error instanceof NothingApplied)) throw error;
    });
    summary.refusals.sort((a, b) => a.line - b.line);
    summary.applied = !options.dryRun && summary.refusals.length === 0;
    if (summary.applied) await this.#recount(orgId, counted);
    return summary;
  }

  async #insert(
    tx: Transaction,
    orgId: string,
    draft: Omit<NewAdjustment, 'id' | 'org_id' | 'created_by_type' | 'created_by' | 'created_by_id'>,
    actor: AdminActor,
  ): Promise<AdjustmentRecord> {
    const id = newId('adj');
    await adjustments.insert(tx, {
      ...draft,
      id,
      org_id: orgId,
      created_by_type: actor.kind === 'admin' ? 'admin' : 'cli',
      created_by: actor.kind === 'admin' ? actor.email : 'cli',
      created_by_id: actor.kind === 'admin' ? actor.adminId : null,
    });
    const record = (await adjustments.find(tx, orgId, id)) as AdjustmentRecord;
    await enqueueWebhookEvent(
      tx,
      orgId,
      'adjustment.created',
      { adjustment: toWireAdjustment(record) },
      {
        timestamp: record.created_at,
      },
    );
    await audit.insertMany(tx, [
      adminAuditEntry(
        orgId,
        draft.voids_id === null ? 'adjustment.created' : 'adjustment.voided',
        {
          adjustment_id: id,
          user_id: record.user_id,
          period_id: record.period_id,
          amount_cents: record.amount_cents,
          currency: record.currency,
          category: record.category,
          reason: record.reason,
          ...(draft.voids_id === null ? {} : { voids_id: draft.voids_id }),
        },
        actor,
      ),
    ]);
    return record;
  }

  async #requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }
}

/** Reading adjustments for integrators (`GET /v1/adjustments`): keyset pages in (created_at, id) order. */
export class AdjustmentReader {
  readonly #tx: Transaction;

  constructor(tx: Transaction) {
    this.#tx = tx;
  }

  /** The adjustments the viewer may see: an API key's whole org, a rep token's rep and their reports. */
  listPage(
    viewer: Viewer,
    query: { filters: AdjustmentFilters; limit: number; cursor?: string },
  ): Promise<AdjustmentPage> {
    return adjustmentPage(this.#tx, viewer.orgId, query, visibleUserIdsOf(viewer));
  }
}

async function adjustmentPage(
  tx: Transaction,
  orgId: string,
  query: { filters: AdjustmentFilters; limit: number; cursor?: string },
  visibleUserIds: readonly string[] | null = null,
): Promise<AdjustmentPage> {
  const { filters } = query;
  const fingerprint = keysetFingerprint(orgId, {
    period_id: filters.periodId ?? null,
    user_id: filters.userId ?? null,
    user_external_id: filters.userExternalId ?? null,
    category: filters.category ?? null,
  });
  const from = query.cursor === undefined ? null : ADJUSTMENT_CURSOR.decode(query.cursor, fingerprint);
  const rows = await adjustments.listAfter(tx, orgId, filters, from, query.limit + 1, visibleUserIds);
  const page = ADJUSTMENT_CURSOR.page(rows, query.limit, fingerprint, (row) => ({ at: row.created_at, id: row.id }));
  return { adjustments: page.items, nextCursor: page.nextCursor };
}

function inputProblem(input: AdjustmentInput): string | null {
  if ((input.user_id === undefined) === (input.user_external_id === undefined)) {
    return 'name the rep by exactly one of user_id and user_external_id';
  }
  if (input.deal_id !== undefined && input.deal_external_id !== undefined) {
    return 'name the deal by at most one of deal_id and deal_external_id';
  }
  if (!isPeriodId(input.period_id)) {
    return `period_id: ${JSON.stringify(input.period_id)} is not YYYY-MM (a month) or YYYY-Qn (a quarter)`;
  }
  if (input.currency !== undefined && !isKnownCurrency(input.currency)) {
    return `currency: ${JSON.stringify(input.currency)} is not an ISO 4217 currency code`;
  }
  return adjustmentProblem(input);
}

type Refuse = new (message: string) => Error;

function refusal(as: Refuse | undefined, code: 'not_found' | 'invalid_state', reason: string): Error {
  return as ? new as(reason) : new Refusal(code, reason);
}

/** The adjustment a key added, when the input asks for the same one; else the key is refused. */
function sameOrRefused(existing: AdjustmentRecord, input: AdjustmentInput, as?: Refuse): AdjustmentRecord {
  const same =
    existing.period_id === input.period_id &&
    existing.amount_cents === input.amount_cents &&
    existing.category === input.category &&
    existing.reason === input.reason &&
    (input.currency === undefined || existing.currency === input.currency) &&
    existing.counts_toward_attainment === (input.counts_toward_attainment ?? false) &&
    (input.user_id === undefined || existing.user_id === input.user_id) &&
    (input.user_external_id === undefined || existing.user_external_id === input.user_external_id);
  if (!same) {
    throw refusal(
      as,
      'invalid_state',
      `idempotency_key: ${input.idempotency_key} already added another adjustment (${existing.id})`,
    );
  }
  return existing;
}

async function resolveUser(tx: Transaction, orgId: string, input: AdjustmentInput, as?: Refuse): Promise<string> {
  if (input.user_id !== undefined) {
    const user = await users.find(tx, orgId, input.user_id);
    if (!user) throw refusal(as, 'not_found', `no rep ${input.user_id}`);
    return user.id;
  }
  const user = await users.findRepByExternalId(tx, orgId, input.user_external_id ?? '');
  if (!user) throw refusal(as, 'not_found', `no rep with external id ${input.user_external_id}`);
  return user.id;
}

async function resolveDeal(
  tx: Transaction,
  orgId: string,
  input: AdjustmentInput,
  as?: Refuse,
): Promise<string | null> {
  if (input.deal_id !== undefined) {
    const deal = await deals.findById(tx, orgId, input.deal_id);
    if (!deal) throw refusal(as, 'not_found', `no deal ${input.deal_id}`);
    return deal.id;
  }
  if (input.deal_external_id !== undefined) {
    const deal = await deals.findByExternalId(tx, orgId, input.deal_external_id);
    if (!deal) throw refusal(as, 'not_found', `no deal with external id ${input.deal_external_id}`);
    return deal.id;
  }
  return null;
}

/**
 * Holds the period `FOR SHARE` (created open if new) until the transaction ends, so a lock waits for the write;
 * a locked or paid period is refused, naming the earliest open period after it.
 */
async function requireOpenPeriod(tx: Transaction, orgId: string, periodId: string, as?: Refuse): Promise<void> {
  await periods.ensurePeriods(tx, orgId, [periodId]);
  const held = await periods.sharePeriods(tx, orgId, [periodId]);
  const status = held.get(periodId) ?? 'open';
  if (status === 'open') return;
  const next = earliestOpenPeriodFrom(periodId, await periods.periodStatuses(tx, orgId));
  throw refusal(
    as,
    'invalid_state',
    `period ${periodId} is ${status}: adjustments go to an open period; use ${next}, the earliest open period after it`,
  );
}
