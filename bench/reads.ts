import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createPrismaClient, type Database } from '../src/db/prisma.ts';
import { createSqlPool, type SqlPool } from '../src/repositories/transaction.ts';
import { LISTED_READS, type ReadWorld, seedReadWorld } from '../test/helpers/readPlans.ts';
import { testServices } from '../test/helpers/services.ts';

// `npm run bench:reads`: the p99 of each read that must stay flat as the tables grow (the earnings list, first page,
// a deep cursor page and each filter; a row's trace; a statement; a payouts page; the payroll export), at a small and
// a large size, on two databases of one throwaway embedded PostgreSQL (or BENCH_DATABASE_URL's server). The reads
// are test/helpers/readPlans.ts's LISTED_READS (the ones test/integration/read-plans.test.ts checks the plans of),
// run through Quotient's readers on the API's pool (generic plans, as the server runs them), not through HTTP: what
// grows with the tables is the database's part.
//
// Sizes: BENCH_READS_ROWS (default "10000,1000000"), the earnings rows of the measured org; each size is an org of
// rows / (2 × 12 × BENCH_READS_DEALS) reps (BENCH_READS_DEALS won deals per rep and month, default 8; every deal a
// standing row and the row it superseded), a year of periods (nine paid, two locked, one open), a manual adjustment
// per rep and period. So what each read returns is the same at every size (a page, a rep's period, 50 reps' payouts)
// but for the export, which returns every rep's payout (its figure is also given per 1,000 payouts). Two deals per
// org go through the pipeline (DealIngestion) and their rows' traces are the bulk's, written with SQL
// (seedReadWorld): the pipeline's own rate makes ten million rows a matter of days on this machine (bench:scale).
// BENCH_READS_SAMPLES (default 200) timed runs of each read per size, after 10 untimed, alternating the sizes.

const sizes = (process.env.BENCH_READS_ROWS ?? '10000,1000000').split(',').map(Number);
const dealsPerRepMonth = Number(process.env.BENCH_READS_DEALS ?? 8);
const samples = Number(process.env.BENCH_READS_SAMPLES ?? 200);
const WARM_UP = 10;

const dataDir = process.env.BENCH_DATABASE_URL ? null : await mkdtemp(join(tmpdir(), 'quotient-bench-reads-'));
if (dataDir) await chmod(dataDir, 0o755);
const database = dataDir ? await openEmbeddedDatabase(dataDir) : null;
const serverUrl = process.env.BENCH_DATABASE_URL ?? (database?.url as string);

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

interface Measured {
  rows: number;
  name: string;
  db: Database;
  pool: SqlPool;
  world: ReadWorld;
  tableRows: number;
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
    const world = await seedReadWorld(db, pool, testServices({ db, pool }), { reps, dealsPerRepMonth }, 'Bench reads');
    const { rows: sizeRows } = await pool.query<{ rows: number; size: string }>(
      `SELECT (SELECT count(*) FROM earnings)::int AS rows, pg_size_pretty(pg_database_size(current_database())) AS size`,
    );
    measured.push({ rows, name, db, pool, world, tableRows: sizeRows[0]?.rows ?? 0, size: sizeRows[0]?.size ?? '?' });
    process.stdout.write(
      `seeded ${world.orgRows} earnings rows (${reps} reps × ${dealsPerRepMonth} deals a month × 12 months × 2 rows) in ${((performance.now() - from) / 1000).toFixed(0)} s; database ${sizeRows[0]?.size}\n`,
    );
  }

  const times = new Map<string, number[][]>(LISTED_READS.map((read) => [read.name, measured.map(() => [])]));
  for (const read of LISTED_READS) {
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
  process.stdout.write(`\n| read | ${header.join(' | ')} | p99 ratio (largest / smallest) |\n`);
  process.stdout.write(`| --- | ${header.map(() => '---').join(' | ')} | --- |\n`);
  for (const read of LISTED_READS) {
    const perSize = times.get(read.name) ?? [];
    const p99s = perSize.map((values) => quantile(values, 0.99));
    const cells = perSize.map((values) => `${quantile(values, 0.5).toFixed(2)} / ${quantile(values, 0.99).toFixed(2)}`);
    const ratio = (p99s.at(-1) ?? 0) / (p99s[0] || 1);
    process.stdout.write(
      `| ${read.name} | ${cells.join(' | ')} | ${ratio.toFixed(2)}x${ratio <= 1.5 ? '' : ' (goal 1.5x)'} |\n`,
    );
  }
  // The export returns every rep's payout: its time per 1,000 payouts is what stays flat.
  const exportIndex = LISTED_READS.findIndex((read) => read.name.startsWith('quotient periods export'));
  const exportTimes = times.get(LISTED_READS[exportIndex]?.name ?? '') ?? [];
  process.stdout.write(
    `\nexport per 1,000 reps paid, p99: ${measured.map((m, index) => `${((quantile(exportTimes[index] ?? [], 0.99) * 1000) / m.world.reps.length).toFixed(1)} ms at ${m.world.reps.length} reps`).join(', ')}\n`,
  );
} finally {
  for (const m of measured) {
    await m.pool.end();
    await m.db.$disconnect();
    await admin(`DROP DATABASE IF EXISTS ${m.name} WITH (FORCE)`).catch(() => {});
  }
  await database?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}
