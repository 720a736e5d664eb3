import type pg from 'pg';

/**
 * The database's statements by total time (pg_stat_statements, planning included), one line each: total ms, calls,
 * rows returned and the statement's text (whitespace collapsed, cut at `width`). For the probes that say where a
 * run's time goes; the cluster must load pg_stat_statements.
 */
export async function printTopStatements(admin: pg.Pool, limit: number, width: number): Promise<void> {
  const { rows } = await admin.query<{ query: string; calls: string; rows: string; total: number }>(
    `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls, s.rows, total_exec_time + total_plan_time AS total
     FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
     WHERE d.datname = current_database() AND query NOT ILIKE '%pg_stat%' ORDER BY total DESC LIMIT $1`,
    [limit],
  );
  for (const row of rows) {
    process.stdout.write(
      `  ${row.total.toFixed(0).padStart(9)} ms ${row.calls.padStart(7)} calls ${row.rows.padStart(10)} rows  ${row.query.slice(0, width)}\n`,
    );
  }
}
