import { escapeIdentifier } from 'pg';
import type { SqlPool } from '../repositories/transaction.ts';

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
 */
export class PlannerStatistics {
  private readonly pool: SqlPool;
  private readonly onError: (error: unknown) => void;
  private readonly intervalMs: number;
  private readonly minimumChanges: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<string[]> | undefined;

  constructor(
    pool: SqlPool,
    onError: (error: unknown) => void,
    options: { intervalMs?: number; minimumChanges?: number } = {},
  ) {
    this.pool = pool;
    this.onError = onError;
    this.intervalMs = options.intervalMs ?? 5_000;
    this.minimumChanges = options.minimumChanges ?? 100;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.refresh().catch(this.onError);
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
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
    // updated and deleted since. Only the tables this role owns (ours, in a shared database): ANALYZE skips others.
    const { rows } = await this.pool.query<{ table: string }>({
      text: `SELECT s.relname AS table
             FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
             WHERE s.schemaname = current_schema() AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
               AND s.n_mod_since_analyze >= GREATEST($1, c.reltuples)
             ORDER BY s.relname`,
      values: [this.minimumChanges],
    });
    for (const { table } of rows) await this.pool.query(`ANALYZE (SKIP_LOCKED) ${escapeIdentifier(table)}`);
    return rows.map((row) => row.table);
  }
}
