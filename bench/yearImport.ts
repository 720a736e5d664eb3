import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg, { escapeLiteral } from 'pg';
import { applyMigrations } from '../src/db/migrate.ts';
import { createPrismaClient } from '../src/db/prisma.ts';
import * as orgs from '../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements } from '../src/repositories/transaction.ts';
import { runCliProcess } from '../test/helpers/cli.ts';
import { childrenCpuSeconds, clusterCpuSeconds } from './cpu.ts';
import { writeHistoricalExport } from './historicalExport.ts';
import { noPlanChanges } from './listeners.ts';
import { benchServices } from './services.ts';

// The customers' shape of a day-one import (`npm run bench`, BENCH_ONLY=import): BENCH_YEAR_DEALS (100,000) HubSpot
// rows of 50 reps over a year, the four-chip example plan, each round into a database of its own created for it (a
// fresh install: empty tables, no statistics yet). The floor, in the same round and the same fresh database, is
// PostgreSQL's own COPY of the same file into a table of its columns: what loading the rows costs at least. Each run
// prints its wall time and CPU seconds per row (the command's, and PostgreSQL's: every process of the cluster), so that
// a busy machine is judged by the ratio and the CPU rather than by the wall time alone.
// Goals: <= 60 s on a quiet 2-core machine, <= 15x the COPY floor of the same round.

const EXAMPLE_PLAN = new URL('../examples/plans/core-ae.yaml', import.meta.url);
const REPS = 50;

export interface YearImportResult {
  importSeconds: number[];
  copySeconds: number[];
}

export async function benchYearImport(database: { url: string; dataDir: string }): Promise<YearImportResult> {
  const deals = Number(process.env.BENCH_YEAR_DEALS ?? 100_000);
  const rounds = Number(process.env.BENCH_IMPORT_ROUNDS ?? 1);
  const postmaster = Number(readFileSync(join(database.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const workDir = await mkdtemp(join(tmpdir(), 'quotient-bench-year-'));
  // The server reads the floor's file itself (COPY FROM a file), as the cluster's own user.
  await chmod(workDir, 0o755);
  const file = join(workDir, 'hubspot-year.csv');
  const result: YearImportResult = { importSeconds: [], copySeconds: [] };
  try {
    await writeHistoricalExport(file, { deals, reps: REPS, until: new Date().toISOString().slice(0, 7) });
    await chmod(file, 0o644);
    const header = (await readFile(file, 'utf8')).slice(0, 1_000).split('\n')[0] as string;
    const columns = header.split(',').map((_, index) => `c${index} text`);
    process.stdout.write(
      `\nDay-one import at the customers' shape: ${deals.toLocaleString('en')} HubSpot rows (${REPS} reps, 12 months), ` +
        'the four-chip plan, a fresh database each round; against PostgreSQL COPY of the same file in the same database\n',
    );
    for (let round = 1; round <= rounds; round++) {
      await withFreshDatabase(database.url, `quotient_year_${round}_${Date.now()}`, async (url) => {
        const orgId = await orgWithPlan(url);
        const copy = async () => {
          const cluster = clusterCpuSeconds(postmaster);
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            await client.query(`CREATE TABLE copy_floor (${columns.join(', ')})`);
            const start = performance.now();
            await client.query(`COPY copy_floor FROM ${escapeLiteral(file)} WITH (FORMAT csv, HEADER true)`);
            const seconds = (performance.now() - start) / 1000;
            result.copySeconds.push(seconds);
            process.stdout.write(
              `  COPY: ${seconds.toFixed(1)} s; CPU per row: PostgreSQL ${perRow(cluster, clusterCpuSeconds(postmaster), deals)} ms\n`,
            );
            await client.query('DROP TABLE copy_floor');
          } finally {
            await client.end();
          }
        };
        const runImport = async () => {
          const [cli, cluster] = [childrenCpuSeconds(), clusterCpuSeconds(postmaster)];
          const start = performance.now();
          const run = await runCliProcess(['import', 'deals', file, '--org', orgId, '--json'], {
            ...process.env,
            DATABASE_URL: url,
            LOG_LEVEL: 'warn',
          });
          const seconds = (performance.now() - start) / 1000;
          if (run.code !== 0) throw new Error(`quotient import deals failed: ${run.stdout}${run.stderr}`);
          const summary = JSON.parse(run.stdout) as { new_deals: number };
          if (summary.new_deals !== deals) throw new Error(`the import applied ${summary.new_deals} of ${deals} rows`);
          result.importSeconds.push(seconds);
          process.stdout.write(
            `  import: ${seconds.toFixed(1)} s, ${(deals / seconds).toFixed(0)} rows/s; CPU per row: command ` +
              `${perRow(cli, childrenCpuSeconds(), deals)} ms, PostgreSQL ${perRow(cluster, clusterCpuSeconds(postmaster), deals)} ms\n`,
          );
        };
        // The import first, on the fresh tables it is about; the floor after, alternating round by round otherwise.
        if (round % 2 === 1) {
          await runImport();
          await copy();
        } else {
          await copy();
          await runImport();
        }
      });
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    const seconds = median(result.importSeconds);
    const floor = median(result.copySeconds);
    const ratio = seconds / floor;
    process.stdout.write(
      `  ${seconds <= 60 ? 'met    ' : 'NOT MET'}  import of ${deals.toLocaleString('en')} rows in ${seconds.toFixed(1)} s (<= 60 s)\n` +
        `  ${ratio <= 15 ? 'met    ' : 'NOT MET'}  ${ratio.toFixed(1)}x the COPY floor's ${floor.toFixed(1)} s (<= 15x)\n`,
    );
    return result;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function withFreshDatabase(serverUrl: string, name: string, use: (url: string) => Promise<void>): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  try {
    await applyMigrations(url.href);
    await use(url.href);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function orgWithPlan(url: string): Promise<string> {
  const db = createPrismaClient(url, 1);
  const pool = createSqlPool(url, 1, () => {});
  try {
    const org = await orgs.create(databaseStatements(db), `bench year import ${Date.now()}`);
    await benchServices(db, pool).admin.planAdmin.apply(
      { orgId: org.id, text: await readFile(EXAMPLE_PLAN, 'utf8') },
      noPlanChanges,
    );
    return org.id;
  } finally {
    await pool.end();
    await db.$disconnect();
  }
}

function perRow(before: number | null, after: number | null, rows: number): string {
  return before === null || after === null ? '-' : (((after - before) * 1000) / rows).toFixed(3);
}
