import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { embeddedStatus, openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createPrismaClient, type Database } from '../src/db/prisma.ts';
import { createSqlPool, type SqlPool } from '../src/repositories/transaction.ts';
import {
  LISTED_READS,
  PAYROLL_EXPORT,
  PAYROLL_EXPORT_PAGE,
  type ReadWorld,
  seedReadWorld,
} from '../test/helpers/readPlans.ts';
import { testServices } from '../test/helpers/services.ts';

// `npm run bench:reads`: the p99 of each read that must stay flat as the tables grow (the earnings list, first page,
// a deep cursor page and each filter; a row's trace; a statement; a payouts page; a page of the payroll export; the
// adjustments and inquiries lists), at a small and a large size, on two databases of one throwaway embedded
// PostgreSQL (or BENCH_DATABASE_URL's server). The
// reads are test/helpers/readPlans.ts's LISTED_READS (the ones test/integration/read-plans.test.ts checks the plans
// of), run through Quotient's readers on the API's pool (generic plans, as the server runs them), not through HTTP:
// what grows with the tables is the database's part.
//
// Sizes: BENCH_READS_ROWS (default "10000,1000000"), the earnings rows of the measured org; each size is an org of
// rows / (2 × 12 × BENCH_READS_DEALS) reps (BENCH_READS_DEALS won deals per rep and month, default 8; every deal a
// standing row and the row it superseded), a year of periods (nine paid, two locked, one open), a manual adjustment
// and an inquiry per rep and period. So what each read returns is the same at every size (a page, a rep's period,
// 50 reps' payouts).
// Two deals per org go through the pipeline (DealIngestion) and their rows' traces are the bulk's, written with SQL
// (seedReadWorld): the pipeline's own rate makes ten million rows a matter of days on this machine (bench:scale).
// The bulk is loaded with the growing tables' indexes and foreign keys built after it (the same indexes in the end),
// on a cluster run for loading (no fsync, no WAL kept for replicas, a large maintenance_work_mem, and a max_wal_size
// of 2 GB: the WAL segments a cluster keeps are disk the rows cannot have),
// then vacuumed and analysed as autovacuum would leave it (autovacuum is off, so that none of millions of rows runs
// while the reads are timed).
// BENCH_READS_SAMPLES (default 200) timed runs of each read per size, after 10 untimed, alternating the sizes.
// The payroll export returns every rep's payout, a statement per 500 reps: the read that must stay flat is a page
// of it (its statement, timed for 50 reps, as many as the smallest org has); the whole export, linear in the reps by
// nature, is timed BENCH_READS_EXPORT_SAMPLES (default 5) times per size and given per 1,000 reps.
// BENCH_READS_ONLY: time only the reads whose name contains it (a re-run of one read), not the whole export.
//
// A run leaves nothing behind: its databases are dropped and its cluster's directory removed when it ends, on
// SIGINT and SIGTERM too. A run killed outright leaves its directory, which the next run removes (a directory of
// this benchmark that no live process holds a lease on, its cluster stopped first).

const sizes = (process.env.BENCH_READS_ROWS ?? '10000,1000000').split(',').map(Number);
const dealsPerRepMonth = Number(process.env.BENCH_READS_DEALS ?? 8);
const samples = Number(process.env.BENCH_READS_SAMPLES ?? 200);
const exportSamples = Number(process.env.BENCH_READS_EXPORT_SAMPLES ?? 5);
const only = process.env.BENCH_READS_ONLY;
const WARM_UP = 10;
const DATA_DIR_PREFIX = 'quotient-bench-reads-';
const LOADING_SETTINGS = [
  'wal_level=minimal',
  'max_wal_senders=0',
  'max_wal_size=2GB',
  'checkpoint_timeout=30min',
  'maintenance_work_mem=1GB',
  'autovacuum=off',
];

await removeAbandonedDataDirs();
const dataDir = process.env.BENCH_DATABASE_URL ? null : await mkdtemp(join(tmpdir(), DATA_DIR_PREFIX));
if (dataDir) await chmod(dataDir, 0o755);
const database = dataDir
  ? await openEmbeddedDatabase(dataDir, {
      fast: true,
      extraFlags: LOADING_SETTINGS.flatMap((setting) => ['-c', setting]),
    })
  : null;
const serverUrl = process.env.BENCH_DATABASE_URL ?? (database?.url as string);
let removing: Promise<void> | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`${signal}: stopping the cluster and removing ${dataDir ?? 'nothing'}\n`);
    void removeCluster().finally(() => process.exit(130));
  });
}

/** Stops this run's cluster and removes its directory, its databases with it. */
function removeCluster(): Promise<void> {
  removing ??= (async () => {
    await database?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  })();
  return removing;
}

/** The directories of this benchmark's runs that were killed outright: no live process holds their cluster. */
async function removeAbandonedDataDirs(): Promise<void> {
  for (const entry of await readdir(tmpdir())) {
    if (!entry.startsWith(DATA_DIR_PREFIX)) continue;
    const dir = join(tmpdir(), entry);
    const status = await embeddedStatus(dir);
    if (status.leases.length > 0) continue;
    if (status.running) await (await openEmbeddedDatabase(dir)).stop();
    await rm(dir, { recursive: true, force: true });
    process.stdout.write(`removed ${dir}, left by a run that was killed\n`);
  }
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const seconds = (from: number) => ((performance.now() - from) / 1000).toFixed(0);

interface Measured {
  rows: number;
  name: string;
  db: Database;
  pool: SqlPool;
  world: ReadWorld;
  size: string;
}

const measured: Measured[] = [];
try {
  process.stdout.write(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; ${samples} samples per read and size\n`,
  );
  for (const rows of sizes) {
    const reps = Math.max(2, Math.round(rows / (2 * 12 * dealsPerRepMonth)));
    const name = `quotient_reads_${rows}`;
    await admin(`DROP DATABASE IF EXISTS ${name}`);
    await admin(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    await applyMigrations(url.href);
    const db = createPrismaClient(url.href, 2);
    const pool = createSqlPool(url.href, 2, () => {});
    const from = performance.now();
    const log = (message: string) =>
      process.stdout.write(`  ${rows}: ${message} (${new Date().toISOString().slice(11, 19)} UTC)\n`);
    const world = await seedReadWorld(db, pool, testServices({ db, pool }), { reps, dealsPerRepMonth }, 'Bench reads', {
      indexesBuiltAfter: true,
      log,
    });
    const { rows: sizeRows } = await pool.query<{ size: string }>(
      'SELECT pg_size_pretty(pg_database_size(current_database())) AS size',
    );
    measured.push({ rows, name, db, pool, world, size: sizeRows[0]?.size ?? '?' });
    process.stdout.write(
      `seeded ${world.orgRows} earnings rows (${reps} reps × ${dealsPerRepMonth} deals a month × 12 months × 2 rows) in ${seconds(from)} s; database ${sizeRows[0]?.size}\n`,
    );
  }

  const timedReads = LISTED_READS.map((read) => (read === PAYROLL_EXPORT ? PAYROLL_EXPORT_PAGE : read)).filter(
    (read) => only === undefined || read.name.includes(only),
  );
  const times = new Map<string, number[][]>(timedReads.map((read) => [read.name, measured.map(() => [])]));
  for (const read of timedReads) {
    for (const m of measured) for (let n = 0; n < WARM_UP; n++) await read.run(m.pool, m.world, { setup: m.pool });
    for (let n = 0; n < samples; n++) {
      // Alternating: a noisy neighbour hits every size alike.
      const order = n % 2 === 0 ? measured : [...measured].reverse();
      for (const m of order) {
        const start = performance.now();
        await read.run(m.pool, m.world, { setup: m.pool });
        times.get(read.name)?.[measured.indexOf(m)]?.push(performance.now() - start);
      }
    }
  }

  const quantile = (values: number[], q: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? 0;
  };
  const header = measured.map((m) => `${m.world.orgRows.toLocaleString('en-US')} rows: p50 / p99 ms`);
  process.stdout.write(`\n| read | ${header.join(' | ')} | p99 ratio (largest / smallest) | p50 ratio |\n`);
  process.stdout.write(`| --- | ${header.map(() => '---').join(' | ')} | --- | --- |\n`);
  for (const read of timedReads) {
    const perSize = times.get(read.name) ?? [];
    const p99s = perSize.map((values) => quantile(values, 0.99));
    const p50s = perSize.map((values) => quantile(values, 0.5));
    const cells = perSize.map((values) => `${quantile(values, 0.5).toFixed(2)} / ${quantile(values, 0.99).toFixed(2)}`);
    const ratio = (p99s.at(-1) ?? 0) / (p99s[0] || 1);
    const p50Ratio = (p50s.at(-1) ?? 0) / (p50s[0] || 1);
    process.stdout.write(
      `| ${read.name} | ${cells.join(' | ')} | ${ratio.toFixed(2)}x${ratio <= 1.5 ? '' : ' (goal 1.5x)'} | ${p50Ratio.toFixed(2)}x |\n`,
    );
  }

  // The whole export returns every rep's payout: what stays flat is its time per rep paid, not per call.
  if (only === undefined) {
    process.stdout.write(`\n${PAYROLL_EXPORT.name}, ${exportSamples} runs per size after one untimed:\n`);
  }
  for (const m of only === undefined ? measured : []) {
    await PAYROLL_EXPORT.run(m.pool, m.world, { setup: m.pool });
    const runs: number[] = [];
    for (let n = 0; n < exportSamples; n++) {
      const start = performance.now();
      await PAYROLL_EXPORT.run(m.pool, m.world, { setup: m.pool });
      runs.push(performance.now() - start);
    }
    const perThousand = (ms: number) => ((ms * 1000) / m.world.reps.length).toFixed(1);
    const median = quantile(runs, 0.5);
    const slowest = quantile(runs, 1);
    process.stdout.write(
      `  ${m.world.reps.length} reps: median ${median.toFixed(0)} ms, slowest ${slowest.toFixed(0)} ms; per 1,000 reps ${perThousand(median)} / ${perThousand(slowest)} ms\n`,
    );
  }
  process.stdout.write(`\ndatabases: ${measured.map((m) => `${m.rows} rows ${m.size}`).join(', ')}\n`);
} finally {
  for (const m of measured) {
    await m.pool.end();
    await m.db.$disconnect();
    await admin(`DROP DATABASE IF EXISTS ${m.name} WITH (FORCE)`).catch(() => {});
  }
  await removeCluster();
}
