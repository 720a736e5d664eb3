import { readFileSync } from 'node:fs';
import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { runCliProcess } from '../test/helpers/cli.ts';
import { childrenCpuSeconds, clusterCpuSeconds } from './cpu.ts';
import { writeHistoricalExport } from './historicalExport.ts';
import { orgWithExamplePlan } from './quotientProcess.ts';
import { printTopStatements } from './statements.ts';

// Where a day-one import's time goes (`node bench/importProbe.ts`): one `quotient import deals` of PROBE_DEALS
// (10,000) rows of bench/historicalExport.ts with PROBE_REPS owners (200; the customers' shape has 50) into a new org
// with the four-chip plan, on a throwaway embedded PostgreSQL with pg_stat_statements: wall time, CPU per row (command
// and PostgreSQL) and the statements by total time. PROBE_CPU_PROF=DIR also writes the command's CPU profile there;
// PROBE_EXPLAIN_MS=N logs the plan (EXPLAIN ANALYZE, BUFFERS, nested statements) of every statement that ran N ms or
// more (auto_explain) and copies them to PROBE_EXPLAIN_FILE (default: explain.log in the working directory).

const deals = Number(process.env.PROBE_DEALS ?? 10_000);
const reps = Number(process.env.PROBE_REPS ?? 200);
const dataDir = await mkdtemp(join(tmpdir(), 'quotient-import-probe-'));
await chmod(dataDir, 0o755);
const explainMs = process.env.PROBE_EXPLAIN_MS;
const explain = explainMs
  ? ['-c', `auto_explain.log_min_duration=${explainMs}`, '-c', 'auto_explain.log_analyze=on']
      .concat(['-c', 'auto_explain.log_buffers=on', '-c', 'auto_explain.log_nested_statements=on'])
      .concat(['-c', 'auto_explain.log_triggers=on'])
  : [];
const database = await openEmbeddedDatabase(dataDir, {
  extraFlags: [
    '-c',
    `shared_preload_libraries=pg_stat_statements${explainMs ? ',auto_explain' : ''}`,
    '-c',
    'pg_stat_statements.track=all',
    ...explain,
  ],
});
const admin = new pg.Pool({ connectionString: database.url, max: 1 });
try {
  await applyMigrations(database.url);
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const file = join(dataDir, 'export.csv');
  await writeHistoricalExport(file, { deals, reps, until: new Date().toISOString().slice(0, 7) });
  const { orgId } = await orgWithExamplePlan(database.url, 'Probe import');
  await admin.query('SELECT pg_stat_statements_reset()');
  const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const [cli, cluster] = [childrenCpuSeconds(), clusterCpuSeconds(postmaster)];
  const load = readFileSync('/proc/loadavg', 'utf8').trim();
  const start = performance.now();
  const profile = process.env.PROBE_CPU_PROF;
  const run = await runCliProcess(['import', 'deals', file, '--org', orgId, '--json'], {
    ...process.env,
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
    ...(profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profile}` } : {}),
  });
  const seconds = (performance.now() - start) / 1000;
  if (run.code !== 0) throw new Error(`import failed: ${run.stdout}${run.stderr}`);
  const per = (a: number | null, b: number | null) =>
    a === null || b === null ? '-' : (((b - a) * 1000) / deals).toFixed(3);
  process.stdout.write(
    `${deals} rows: ${seconds.toFixed(1)} s, ${(deals / seconds).toFixed(0)} rows/s; CPU ms per row: command ` +
      `${per(cli, childrenCpuSeconds())}, PostgreSQL ${per(cluster, clusterCpuSeconds(postmaster))}; load before ${load}, after ${readFileSync('/proc/loadavg', 'utf8').trim()}\n${run.stdout.slice(0, 300)}\n`,
  );
  await printTopStatements(admin, 15, 150);
  const size = await admin.query(
    `SELECT count(*)::int AS rows, round(avg(length(trace::text)))::int AS text_bytes,
            round(avg(pg_column_size(trace)))::int AS stored_bytes FROM earnings`,
  );
  process.stdout.write(`earnings rows: ${JSON.stringify(size.rows[0])}\n`);
  if (process.env.PROBE_TRACE_SAMPLE) {
    const sample = await admin.query(
      `SELECT DISTINCT ON (trace->'chip'->>'kind') trace FROM earnings ORDER BY trace->'chip'->>'kind', created_at`,
    );
    for (const row of sample.rows) process.stdout.write(`${JSON.stringify(row.trace)}\n`);
  }
} finally {
  await admin.end();
  await database.stop();
  if (explainMs) await copyFile(join(dataDir, 'postgres.log'), process.env.PROBE_EXPLAIN_FILE ?? 'explain.log');
  await rm(dataDir, { recursive: true, force: true });
}
