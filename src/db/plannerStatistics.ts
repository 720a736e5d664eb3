import { escapeIdentifier } from 'pg';
import type { SqlPool } from '../repositories/transaction.ts';

/** What a loop that writes in bulk tells the keeper after each step it has committed (a rep recomputed, a batch). */
export interface StatisticsUpkeep {
  /**
   * Rows were committed: now and then (see PlannerStatistics) refreshes the statistics, so that a loop may call it
   * after every step without a query per step. Resolves once a refresh it started is done, so that the loop's next
   * step is planned on its result; never rejects.
   */
  afterWrites(): Promise<void>;
}

/**
 * For compositions that leave the statistics to autovacuum and to their own ANALYZE: the tests' shared database, the
 * set-up of the bench and of the scripts (what they measure runs in a server or a command, which keep theirs).
 */
export const LEFT_TO_AUTOVACUUM: StatisticsUpkeep = { afterWrites: async () => {} };

/**
 * Keeps the planner's statistics of young tables in step with their size, so that prepared statements are planned
 * on the data they run on.
 *
 * The deal pipeline's statements are planned generically, once per connection (see transaction.ts), and a plan
 * made while a table is empty is a guess: on an empty `deals` table PostgreSQL estimates one row whichever index
 * it uses, so it looked a deal up by `(org_id, external_id)` through the index `(org_id, user_id, close_date)` and
 * filtered every deal of the org on every event, until its statistics were refreshed.
 * ANALYZE refreshes them, and every backend drops the plans that depend on the table (PostgreSQL invalidates them
 * itself) and plans again. Autovacuum does analyze, but only when a table has changed by 10% since its last
 * analysis and on its own schedule (`autovacuum_naptime`, a minute by default): on a fresh embedded cluster, a table
 * of 1,000 rows written 30 s after the start was first analyzed two minutes after the start. A CRM replaying its
 * backlog into a fresh install writes tens of thousands of deals in those minutes, each event slower than the last.
 *
 * So every `intervalMs` the keeper analyzes each table of the schema that has changed by at least as many rows as
 * it had at its last analysis (it doubled, or was rewritten), and by at least `minimumChanges` rows: a handful of
 * analyses while a table grows from nothing, none once autovacuum's own thresholds (10%) come first. ANALYZE
 * (SKIP_LOCKED) leaves a table another process is analyzing to that process.
 *
 * A command or a request that writes in bulk (a recompute, an import, a batch) can be over before the timer's first
 * tick: a first recompute prepared its reads of a rep's rows while `earnings` was empty, and each of them then
 * scanned the whole table, until autovacuum's first analysis minutes later. So the bulk loops
 * also call `afterWrites` after each step they commit. It checks (one query; ANALYZE only for a table that outgrew its
 * statistics) after the 1st, 2nd, 4th, 8th… step, since tables grow fastest relative to their size at first, and
 * whenever `stepIntervalMs` has passed since the last check. The counts of changed rows lag: a busy backend
 * publishes them at most once a second, and in that second a fast loop has grown a small table many times over. Its
 * size on disk does not lag, so a table is also analyzed when it has twice the pages it had at its last analysis
 * (and at least `minimumPages`); reading the size takes the lock a read takes, so a check waits for a migration that
 * locks the table, as a read would.
 */
export class PlannerStatistics implements StatisticsUpkeep {
  private readonly pool: SqlPool;
  private readonly onError: (error: unknown) => void;
  private readonly intervalMs: number;
  private readonly minimumChanges: number;
  private readonly minimumPages: number;
  private readonly stepIntervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<string[]> | undefined;
  private steps = 0;
  private nextCheckedStep = 1;
  private lastStepCheck = Number.NEGATIVE_INFINITY;
  private stopped = false;

  constructor(
    pool: SqlPool,
    onError: (error: unknown) => void,
    options: { intervalMs?: number; minimumChanges?: number; minimumPages?: number; stepIntervalMs?: number } = {},
  ) {
    this.pool = pool;
    this.onError = onError;
    this.intervalMs = options.intervalMs ?? 5_000;
    this.minimumChanges = options.minimumChanges ?? 100;
    this.minimumPages = options.minimumPages ?? 16;
    this.stepIntervalMs = options.stepIntervalMs ?? 1_000;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.refresh().catch(this.onError);
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a refresh under way; `afterWrites` does nothing from then on. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  async afterWrites(): Promise<void> {
    if (this.stopped) return;
    this.steps += 1;
    const now = performance.now();
    if (this.steps < this.nextCheckedStep && now - this.lastStepCheck < this.stepIntervalMs) return;
    this.nextCheckedStep = this.steps * 2;
    this.lastStepCheck = now;
    await this.refresh().catch(this.onError);
  }

  /** Analyzes the tables that have outgrown their statistics; returns their names. One pass at a time. */
  refresh(): Promise<string[]> {
    this.running ??= this.analyzeOutgrown().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async analyzeOutgrown(): Promise<string[]> {
    // reltuples is -1 until a table is first analyzed or vacuumed; n_mod_since_analyze counts the rows inserted,
    // updated and deleted since; relpages is the table's size at that analysis. Only the tables this role owns (ours,
    // in a shared database): ANALYZE skips others.
    const { rows } = await this.pool.query<{ table: string }>({
      text: `SELECT s.relname AS table
             FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
             WHERE s.schemaname = current_schema() AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
               AND (s.n_mod_since_analyze >= GREATEST($1, c.reltuples)
                    OR pg_relation_size(c.oid) / current_setting('block_size')::int >= GREATEST($2, 2 * c.relpages))
             ORDER BY s.relname`,
      values: [this.minimumChanges, this.minimumPages],
    });
    for (const { table } of rows) await this.pool.query(`ANALYZE (SKIP_LOCKED) ${escapeIdentifier(table)}`);
    return rows.map((row) => row.table);
  }
}
