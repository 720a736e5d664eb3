import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import type { EventCheck, ImportRow } from '../domain/imports/rows.ts';
import { canonicalDigest } from '../domain/json.ts';
import { Refusal } from '../domain/refusal.ts';
import * as audit from '../repositories/audit.ts';
import * as dealsBulk from '../repositories/dealsBulk.ts';
import * as orgs from '../repositories/orgs.ts';
import * as sourceEvents from '../repositories/sourceEvents.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import type { DealEventBatch } from './dealEventBatch.ts';
import {
  emptyReport,
  type FileState,
  finishReport,
  type ImportReport,
  LISTED_REFUSALS,
  list,
  reportRow,
} from './importReport.ts';
import type { PendingEvaluations } from './pendingEvaluations.ts';

export type { ImportReport, Listed } from './importReport.ts';

export interface RefusedImportRow {
  line: number;
  reason: string;
}

export interface ImportSummary {
  dry_run: boolean;
  rows: number;
  /** Rows whose deal the org did not have (nor an earlier row of the file). */
  new_deals: number;
  /** Rows that change a deal the org has (or an earlier row created). */
  updates: number;
  /** Rows imported before, by this file or another with the same row: nothing to do. */
  unchanged: number;
  refused: number;
  /** The first refused rows, by line of the file. */
  refusals: RefusedImportRow[];
  /**
   * Deals whose earnings were evaluated after the rows were in (PendingEvaluations): the import's, and any an
   * import of the org cut short left pending. 0 on a dry run.
   */
  evaluated: number;
  seconds: number;
  /** What the file does beyond its counts, each with its line: what an admin checks before importing. */
  report: ImportReport;
}

/** Where an import is: writing its rows (with the rows done), or evaluating the deals they changed. */
export type ImportProgress =
  | { phase: 'rows'; rowsDone: number }
  | { phase: 'evaluating'; dealsDone: number; dealsPending: number };

/**
 * Rows looked up and applied together, one transaction (QUOTIENT_IMPORT_CHUNK_ROWS): the more, the fewer statements
 * per row, the more a transaction holds, and the more a cut import applies again. Earnings are evaluated once per
 * import, whatever the chunks (PendingEvaluations).
 */
export const IMPORT_CHUNK_ROWS = 10_000;
/** Chunks applied at once (each a batch, in a transaction of its own). */
export const IMPORT_CHUNKS_AT_ONCE = 2;

/**
 * An import of deal events from a CRM export. Rows are taken a chunk at a time (constant memory but for the set of
 * the file's deal ids): each chunk's dedup keys and deal ids are looked up in one statement each, so that every row
 * is known as new, an update, unchanged (sent before: skipped, which is what makes a re-run after a crash resume
 * where it stopped) or refused. Unless it is a dry run, the new rows then go through the batch pipeline
 * (`DealEventBatch`, as `POST /v1/deals/events/batch` applies them, each with the row's own dedup key; sent without
 * a key, their rows are written one statement per table: DealIngestion.ingestMany): a chunk is one transaction,
 * and up to IMPORT_CHUNKS_AT_ONCE chunks are applied at once. A chunk does not evaluate earnings: it records the
 * deals it changed as pending, and once the last chunk is in they are evaluated, each (rep, period) once
 * (PendingEvaluations); so are, first, the deals an import of the org cut short left pending. An import
 * that ran to its end is one entry of the org's audit log (`deals.imported`, with its counts).
 */
export class DealImport {
  readonly #statements: Transaction;
  readonly #pool: Transactor;
  readonly #batch: DealEventBatch;
  readonly #pending: PendingEvaluations;
  readonly #chunkRows: number;

  constructor(
    db: Transactor,
    pool: Transactor,
    batch: DealEventBatch,
    pending: PendingEvaluations,
    chunkRows: number = IMPORT_CHUNK_ROWS,
  ) {
    this.#statements = db.statements;
    this.#pool = pool;
    this.#batch = batch;
    this.#pending = pending;
    this.#chunkRows = chunkRows;
  }

  /** The org's default currency: an export's rows that state none are read in it. */
  async defaultCurrencyOf(orgId: string): Promise<string> {
    const currency = await orgs.defaultCurrency(this.#statements, orgId);
    if (currency === null) throw new Refusal('not_found', `no org ${orgId}`);
    return currency;
  }

  async run(input: {
    orgId: string;
    rows: AsyncIterable<ImportRow>;
    dryRun: boolean;
    /** The file's name, for the audit log. */
    source: string;
    actor?: AdminActor;
    /** Called after each chunk with the rows done so far, then as the changed deals are evaluated. */
    onProgress?: (progress: ImportProgress) => void;
    /**
     * What happens to the org's live deals the file does not have: `report` (listed, nothing changes) or `delete`
     * (each gets a `delete` deal event, checked by `check`, so its earnings are reversed as an API delete does).
     */
    missing?: { mode: 'report' } | { mode: 'delete'; check: EventCheck };
  }): Promise<ImportSummary> {
    if (!(await orgs.find(this.#statements, input.orgId))) throw new Refusal('not_found', `no org ${input.orgId}`);
    const started = performance.now();
    const evaluate = async () =>
      this.#pending.evaluate(input.orgId, (dealsDone, dealsPending) =>
        input.onProgress?.({ phase: 'evaluating', dealsDone, dealsPending }),
      );
    // What an import of the org cut short left pending is completed first, so that nothing waits for this file.
    const leftPending = input.dryRun ? 0 : await evaluate();
    const summary: ImportSummary = {
      dry_run: input.dryRun,
      rows: 0,
      new_deals: 0,
      updates: 0,
      unchanged: 0,
      refused: 0,
      refusals: [],
      evaluated: leftPending,
      seconds: 0,
      report: emptyReport(input.missing?.mode === 'delete' ? 'deleted' : 'reported'),
    };
    const live = await this.#pool.rehearse((tx) => dealsBulk.liveExternalIds(tx, input.orgId));
    const file: FileState = {
      deals: new Set(),
      keys: new Map(),
      owners: new Set(),
      ownerLines: new Map(),
      currencies: new Map(),
      stages: new Map(),
    };
    const seenDeals = new Set<string>();
    let chunk: ImportRow[] = [];
    // Chunks are looked up one after another, in the file's order; up to IMPORT_CHUNKS_AT_ONCE are applied at once,
    // so that the command works on one while the database works on another.
    const applying: Array<Promise<void>> = [];
    const flush = async () => {
      const rows = chunk;
      chunk = [];
      const apply = await this.#importChunk(input.orgId, rows, input.dryRun, seenDeals, file, summary, input.actor);
      const done = apply().then(() => {
        summary.rows += rows.length;
        input.onProgress?.({ phase: 'rows', rowsDone: summary.rows });
      });
      done.catch(() => {});
      applying.push(done);
      if (applying.length >= IMPORT_CHUNKS_AT_ONCE) await applying.shift();
    };
    let readFailure: { error: unknown } | null = null;
    try {
      for await (const row of input.rows) {
        chunk.push(row);
        if (chunk.length === this.#chunkRows) await flush();
      }
      if (chunk.length > 0) await flush();
    } catch (error) {
      readFailure = { error };
    }
    // A failure is thrown once the chunks being applied are done.
    const settled = await Promise.allSettled(applying);
    if (readFailure) throw readFailure.error;
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    finishReport(summary.report, file);
    const missing = [...live].filter(([externalId]) => !file.deals.has(externalId));
    summary.report.missing_deals.count = missing.length;
    summary.report.missing_deals.items = missing
      .slice(0, LISTED_REFUSALS)
      .map(([externalId]) => ({ external_id: externalId }));
    if (input.missing?.mode === 'delete' && !input.dryRun && missing.length > 0) {
      summary.report.missing_deals.deleted = await this.#deleteMissing(
        input.orgId,
        missing,
        input.missing.check,
        input.actor,
      );
    }
    if (!input.dryRun) summary.evaluated += await evaluate();
    summary.seconds = Math.round(performance.now() - started) / 1000;
    if (!input.dryRun) {
      const { refusals: _listed, dry_run: _dryRun, report, ...counts } = summary;
      await audit.insertMany(this.#statements, [
        adminAuditEntry(
          input.orgId,
          'deals.imported',
          {
            source: input.source,
            ...counts,
            new_reps: report.new_reps.count,
            deleted_rows: report.deleted_rows.count,
            missing_deals: report.missing_deals.count,
            deleted_deals: report.missing_deals.deleted,
          },
          input.actor ?? CLI_ACTOR,
        ),
      ]);
    }
    return summary;
  }

  async #importChunk(
    orgId: string,
    rows: readonly ImportRow[],
    dryRun: boolean,
    seenDeals: Set<string>,
    file: FileState,
    summary: ImportSummary,
    actor: AdminActor | undefined,
  ): Promise<() => Promise<void>> {
    const refuse = (line: number, reason: string) => {
      summary.refused++;
      if (summary.refusals.length < LISTED_REFUSALS) summary.refusals.push({ line, reason });
    };
    const report = summary.report;
    const events: Array<Extract<ImportRow, { event: unknown }>> = [];
    const owners: string[] = [];
    for (const row of rows) {
      if ('skipped' in row) {
        list(report.deleted_rows, { line: row.line, external_id: row.externalId });
        continue;
      }
      if (!('event' in row)) {
        if (row.externalId !== undefined) file.deals.add(row.externalId);
        continue;
      }
      const { facts } = row;
      file.deals.add(facts.externalId);
      const earlier = file.keys.get(row.event.dedupKey as string);
      if (earlier !== undefined) continue;
      file.keys.set(row.event.dedupKey as string, row.line);
      events.push(row);
      const owner = reportRow(report, file, row.line, facts);
      if (owner !== undefined) owners.push(owner);
    }
    const { sent, present, known } = await this.#pool.rehearse(async (tx) => ({
      sent: await sourceEvents.digestsByDedupKeys(
        tx,
        orgId,
        events.map((row) => row.event.dedupKey as string),
      ),
      present: await dealsBulk.externalIdsPresent(
        tx,
        orgId,
        events.map((row) => row.event.externalId),
      ),
      known: await users.idsByExternalIds(tx, orgId, owners),
    }));
    for (const owner of owners) {
      if (!known.has(owner)) list(report.new_reps, { external_id: owner, line: file.ownerLines.get(owner) as number });
    }
    const toApply: Array<{ row: (typeof events)[number]; isNew: boolean }> = [];
    const inChunk = new Set(events);
    for (const row of rows) {
      if ('skipped' in row) continue;
      if (!('event' in row)) {
        refuse(row.line, row.refusal);
        continue;
      }
      if (!inChunk.has(row)) {
        // The same row as an earlier one of the file: applied once, the repeat counted as unchanged.
        summary.unchanged++;
        list(report.repeated_rows, row.line);
        continue;
      }
      const digest = sent.get(row.event.dedupKey as string);
      if (digest !== undefined) {
        if (digest === canonicalDigest(row.body)) summary.unchanged++;
        else refuse(row.line, `dedup_key ${row.event.dedupKey} was already used with a different body`);
        continue;
      }
      const isNew = !present.has(row.event.externalId) && !seenDeals.has(row.event.externalId);
      seenDeals.add(row.event.externalId);
      toApply.push({ row, isNew });
    }
    if (dryRun) {
      for (const { isNew } of toApply) isNew ? summary.new_deals++ : summary.updates++;
      return async () => {};
    }
    return () => this.#applyChunk(orgId, toApply, summary, refuse, actor);
  }

  /**
   * A `delete` deal event for each missing deal, through the batch pipeline as an API delete goes (its earnings
   * reversed when evaluated); the dedup key names the deal's version, so a second run replays it.
   */
  async #deleteMissing(
    orgId: string,
    missing: ReadonlyArray<[string, number]>,
    check: EventCheck,
    actor: AdminActor | undefined,
  ): Promise<number> {
    let deleted = 0;
    for (let start = 0; start < missing.length; start += this.#chunkRows) {
      const events = missing.slice(start, start + this.#chunkRows).flatMap(([externalId, version]) => {
        const body = {
          external_id: externalId,
          event_type: 'delete',
          state: {},
          dedup_key: `import:${externalId.slice(0, 200)}:deleted:${version}`,
        };
        const outcome = check(body);
        if (!('event' in outcome))
          throw new Error(`the deletion of ${externalId} is not a deal event: ${outcome.refusal}`);
        return [{ event: outcome.event, body }];
      });
      const results = await this.#batch.ingestAll({
        orgId,
        keyId: null,
        ...(actor ? { actor } : {}),
        events,
        receivedAt: new Date(),
        deferEvaluation: true,
      });
      deleted += results.filter((result) => result.kind === 'accepted').length;
    }
    return deleted;
  }

  async #applyChunk(
    orgId: string,
    toApply: ReadonlyArray<{ row: Extract<ImportRow, { event: unknown }>; isNew: boolean }>,
    summary: ImportSummary,
    refuse: (line: number, reason: string) => void,
    actor: AdminActor | undefined,
  ): Promise<void> {
    const results = await this.#batch.ingestAll({
      orgId,
      keyId: null,
      ...(actor ? { actor } : {}),
      events: toApply.map(({ row }) => ({ event: row.event, body: row.body })),
      receivedAt: new Date(),
      deferEvaluation: true,
    });
    results.forEach((result, position) => {
      const { row, isNew } = toApply[position] as (typeof toApply)[number];
      if (result.kind === 'accepted') isNew ? summary.new_deals++ : summary.updates++;
      else if (result.kind === 'replayed') summary.unchanged++;
      else if (result.kind === 'conflict')
        refuse(row.line, `dedup_key ${result.dedupKey} was already used with a different body`);
    });
  }
}
