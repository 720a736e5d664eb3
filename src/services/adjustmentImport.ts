import { type AdminActor, adminAuditEntry } from '../audit/adminEntries.ts';
import { type AdjustmentFileRow, readAdjustmentFile } from '../domain/adjustments.ts';
import * as adjustments from '../repositories/adjustments.ts';
import * as audit from '../repositories/audit.ts';
import * as orgs from '../repositories/orgs.ts';
import type { Transactor } from '../repositories/transaction.ts';
import {
  type AdjustmentDraft,
  type AdjustmentInput,
  insertAdjustment,
  recountAttainment,
  requireOpenPeriod,
  requirePlanPeriod,
  resolveDeal,
  resolveUser,
  sameOrRefused,
} from './adjustmentSteps.ts';
import type { EarningsRecompute } from './adminRecompute.ts';

// An adjustments CSV file added all or nothing, every refused row reported with its line.

export interface AdjustmentImportSummary {
  dry_run: boolean;
  applied: boolean;
  rows: number;
  created: number;
  unchanged: number;
  refusals: Array<{ line: number; reason: string }>;
}

/** A refusal of one file row, collected rather than thrown so every row of the file is reported. */
class RowRefusal extends Error {}

/** Ends an import's transaction without committing anything: a refused row, or a dry run. */
class NothingApplied extends Error {}

/**
 * Adds the adjustments of a CSV file, all or nothing: every row is checked (its own fields, then its rep, deal,
 * period and key) inside one transaction; when any is refused, nothing is written and each refusal is reported
 * with its line. A row whose key already added the same adjustment is unchanged; the same key with another
 * adjustment is refused.
 */
export async function importAdjustmentFile(
  db: Transactor,
  recompute: EarningsRecompute | undefined,
  orgId: string,
  text: string,
  options: { dryRun: boolean; source?: string },
  actor: AdminActor,
): Promise<AdjustmentImportSummary> {
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
  const applying = db.run(async (tx) => {
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
    const toWrite: AdjustmentDraft[] = [];
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
        await requirePlanPeriod(tx, orgId, userId, row.period_id, RowRefusal);
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
    for (const adjustment of toWrite) await insertAdjustment(tx, orgId, adjustment, actor);
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
  if (summary.applied) await recountAttainment(recompute, orgId, counted);
  return summary;
}
