import type { ChildProcess } from 'node:child_process';
import { createReadStream, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrismaClient } from '../src/db/prisma.ts';
import { BUILT_IN_MAPPINGS } from '../src/domain/imports/mapping.ts';
import { exportRows } from '../src/domain/imports/rows.ts';
import { loadContract } from '../src/http/contract.ts';
import { DealEventCheck } from '../src/http/dealEventCheck.ts';
import * as orgs from '../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements } from '../src/repositories/transaction.ts';
import { runCliProcess, spawnServe } from '../test/helpers/cli.ts';
import { childrenCpuSeconds, clusterCpuSeconds } from './cpu.ts';
import { writeHistoricalExport } from './historicalExport.ts';
import { noPlanChanges } from './listeners.ts';
import { benchServices } from './services.ts';

// The day-one import (`npm run bench`, BENCH_ONLY=import): a year of history, BENCH_IMPORT_DEALS (100,000)
// deals as HubSpot exports them (one row each, mixed stages over 12 months, 200 reps, not in date order:
// bench/historicalExport.ts), imported into a new org with the four-chip example plan by `quotient import deals`
// as a user runs it; goal: <= 60 s. In the same run, alternating with it round by round (BENCH_IMPORT_ROUNDS, 1),
// the first BENCH_IMPORT_SINGLE (5,000) rows of the same file sent one by one through POST /v1/deals/events
// (BENCH_CONNECTIONS, 32, at once) into another new org, for the rate the import would have without its batches.
// Each run prints its CPU seconds: the command's (or the server's) and PostgreSQL's (every process of the cluster).

const EXAMPLE_PLAN = new URL('../examples/plans/core-ae.yaml', import.meta.url);

export interface ImportBenchResult {
  importSeconds: number[];
  singleRates: number[];
}

export async function benchImport(database: { url: string; dataDir: string }): Promise<ImportBenchResult> {
  const deals = Number(process.env.BENCH_IMPORT_DEALS ?? 100_000);
  const singles = Number(process.env.BENCH_IMPORT_SINGLE ?? 5_000);
  const rounds = Number(process.env.BENCH_IMPORT_ROUNDS ?? 1);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
  const postmaster = Number(readFileSync(join(database.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const workDir = await mkdtemp(join(tmpdir(), 'quotient-bench-import-'));
  const file = join(workDir, 'hubspot-history.csv');
  let server: ChildProcess | undefined;
  const result: ImportBenchResult = { importSeconds: [], singleRates: [] };
  try {
    await writeHistoricalExport(file, { deals, reps: 200, until: new Date().toISOString().slice(0, 7) });
    const bodies = await firstBodies(file, singles);
    const db = createPrismaClient(database.url, 2);
    const setupPool = createSqlPool(database.url, 1, () => {});
    const { admin: setup } = benchServices(db, setupPool);
    const plan = await readFile(EXAMPLE_PLAN, 'utf8');
    const newOrg = async (name: string) => {
      const org = await orgs.create(databaseStatements(db), name);
      await setup.planAdmin.apply({ orgId: org.id, text: plan }, noPlanChanges);
      const { rawKey } = await setup.keys.create({ orgId: org.id, name, scopes: 'deals:write', rateLimit: '100000' });
      await db.$executeRaw`UPDATE api_keys SET rate_limit_per_minute = 1000000000 WHERE org_id = ${org.id}`;
      return { orgId: org.id, rawKey };
    };
    const started = await spawnServe({
      ...process.env,
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
      QUOTIENT_WEBHOOK_WORKER: 'false',
    });
    server = started.child;
    const serverPid = server.pid as number;
    process.stdout.write(
      `\nDay-one import: ${deals.toLocaleString('en')} HubSpot rows (200 reps, 12 months, mixed stages) by quotient import ` +
        `deals, the four-chip plan; against the first ${singles.toLocaleString('en')} rows one by one through ` +
        `POST /v1/deals/events (${connections} connections), alternating\n`,
    );
    const runImport = async () => {
      const { orgId } = await newOrg(`bench import ${Date.now()}`);
      const [cli, cluster] = [childrenCpuSeconds(), clusterCpuSeconds(postmaster)];
      const start = performance.now();
      const run = await runCliProcess(['import', 'deals', file, '--org', orgId, '--json'], {
        ...process.env,
        DATABASE_URL: database.url,
        LOG_LEVEL: 'warn',
      });
      const seconds = (performance.now() - start) / 1000;
      if (run.code !== 0) throw new Error(`quotient import deals failed: ${run.stdout}${run.stderr}`);
      const summary = JSON.parse(run.stdout) as { new_deals: number; refused: number };
      if (summary.new_deals !== deals) throw new Error(`the import applied ${summary.new_deals} of ${deals} rows`);
      result.importSeconds.push(seconds);
      process.stdout.write(
        `  import: ${seconds.toFixed(1)} s, ${(deals / seconds).toFixed(0)} rows/s; CPU per row: command ` +
          `${perRow(cli, childrenCpuSeconds(), deals)} ms, PostgreSQL ${perRow(cluster, clusterCpuSeconds(postmaster), deals)} ms\n`,
      );
    };
    const runSingle = async () => {
      const { rawKey } = await newOrg(`bench single ${Date.now()}`);
      const [serverCpu, cluster] = [processCpuSeconds(serverPid), clusterCpuSeconds(postmaster)];
      const start = performance.now();
      let next = 0;
      const worker = async () => {
        while (next < bodies.length) {
          const body = bodies[next++] as string;
          const response = await fetch(`${started.url}/v1/deals/events`, {
            method: 'POST',
            headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' },
            body,
          });
          const text = await response.text();
          if (response.status !== 201) throw new Error(`POST /v1/deals/events answered ${response.status}: ${text}`);
        }
      };
      await Promise.all(Array.from({ length: connections }, worker));
      const seconds = (performance.now() - start) / 1000;
      const rate = bodies.length / seconds;
      result.singleRates.push(rate);
      process.stdout.write(
        `  one by one: ${rate.toFixed(0)} events/s (${bodies.length.toLocaleString('en')} would take ` +
          `${(deals / rate).toFixed(0)} s for the whole file); CPU per event: server ` +
          `${perRow(serverCpu, processCpuSeconds(serverPid), bodies.length)} ms, PostgreSQL ` +
          `${perRow(cluster, clusterCpuSeconds(postmaster), bodies.length)} ms\n`,
      );
    };
    for (let round = 1; round <= rounds; round++) {
      if (round % 2 === 1) {
        await runImport();
        await runSingle();
      } else {
        await runSingle();
        await runImport();
      }
    }
    await setupPool.end();
    await db.$disconnect();
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    const seconds = median(result.importSeconds);
    const single = median(result.singleRates);
    process.stdout.write(
      `  ${seconds <= 60 ? 'met    ' : 'NOT MET'}  import of ${deals.toLocaleString('en')} rows in ${seconds.toFixed(1)} s (<= 60 s); ` +
        `${(deals / seconds / single).toFixed(2)}x the one-by-one rate\n`,
    );
    return result;
  } finally {
    server?.kill('SIGTERM');
    await new Promise((done) => setTimeout(done, 500));
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The request bodies the import makes of the file's first `count` rows (with their dedup keys). */
async function firstBodies(file: string, count: number): Promise<string[]> {
  const check = new DealEventCheck(loadContract());
  const stream = createReadStream(file, { encoding: 'utf8' });
  const { rows } = await exportRows(stream as AsyncIterable<string>, BUILT_IN_MAPPINGS.hubspot, (body) =>
    check.outcome(body),
  );
  const bodies: string[] = [];
  for await (const row of rows) {
    if (!('event' in row)) throw new Error(`row ${row.line} of the bench's export is refused: ${row.refusal}`);
    bodies.push(JSON.stringify(row.body));
    if (bodies.length === count) break;
  }
  stream.destroy();
  return bodies;
}

function processCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

function perRow(before: number | null, after: number | null, rows: number): string {
  return before === null || after === null ? '-' : (((after - before) * 1000) / rows).toFixed(2);
}
