import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createPrismaClient } from '../src/db/prisma.ts';
import * as orgs from '../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements } from '../src/repositories/transaction.ts';
import { spawnServe } from '../test/helpers/cli.ts';
import { DISTINCT_DEALS, dealEvents } from './events.ts';
import { noPlanChanges } from './listeners.ts';
import { benchServices } from './services.ts';

// The batch endpoint's scenario of `npm run bench` (BENCH_ONLY=batch; alone: `node bench/batch.ts`): deal events per
// second through POST /v1/deals/events/batch against POST /v1/deals/events, on one `quotient serve` child, each into an org of its own with the four-chip example plan (examples/plans/core-ae.yaml), in alternating rounds
// so that a noisy neighbour hits both. Both orgs first get one event per deal (5,000 deals, through the batch), so
// every measured event updates an existing deal, as in `npm run bench`'s earnings row.
//
// Goal (issue 26): the batch endpoint's median rate >= 3x the single endpoint's.
// BENCH_EVENTS (default 3000) events per measured run, BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 32)
// concurrent single requests, BENCH_BATCH_SIZE (default 500) events per batch, BENCH_BATCH_CONNECTIONS (default 2)
// concurrent batches.

const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const batchSize = Number(process.env.BENCH_BATCH_SIZE ?? 500);
const batchConnections = Number(process.env.BENCH_BATCH_CONNECTIONS ?? 2);

export async function benchBatch(databaseUrl: string): Promise<{ ratios: number[] }> {
  const eventsPerRun = Number(process.env.BENCH_EVENTS ?? 3000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  let server: ChildProcess | undefined;
  try {
    const db = createPrismaClient(databaseUrl, 2);
    // Set-up runs on the Prisma client only; the pool stays unconnected.
    const setupPool = createSqlPool(databaseUrl, 1, () => {});
    const { admin: setup } = benchServices(db, setupPool);
    const plan = await readFile(new URL('../examples/plans/core-ae.yaml', import.meta.url), 'utf8');
    const orgWithKey = async (name: string) => {
      const org = await orgs.create(databaseStatements(db), name);
      await setup.planAdmin.apply({ orgId: org.id, text: plan }, noPlanChanges);
      const { rawKey } = await setup.keys.create({
        orgId: org.id,
        name,
        scopes: 'deals:write',
        rateLimit: '100000',
      });
      await db.$executeRaw`UPDATE api_keys SET rate_limit_per_minute = 1000000000 WHERE org_id = ${org.id}`;
      return rawKey;
    };
    const singleKey = await orgWithKey(`bench single events ${Date.now()}`);
    const batchKey = await orgWithKey(`bench batched events ${Date.now()}`);
    await setupPool.end();
    await db.$disconnect();
    const started = await spawnServe({
      ...process.env,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'warn',
      QUOTIENT_WEBHOOK_WORKER: 'false',
    });
    server = started.child;
    const url = started.url;

    const singleEvents = dealEvents('single', 'single');
    const batchEvents = dealEvents('batch', 'batch');
    await sendBatches(url, singleKey, singleEvents, DISTINCT_DEALS);
    await sendBatches(url, batchKey, batchEvents, DISTINCT_DEALS);

    process.stdout.write(
      `\nBatch endpoint: POST /v1/deals/events/batch against POST /v1/deals/events, the four-chip plan, updates of 5,000 ` +
        `deals; ${eventsPerRun} events per run, single: ${connections} connections; batch: ${batchConnections} ` +
        `connections × ${batchSize} events; ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}\n`,
    );
    const ratios: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const measure = async (send: () => Promise<void>) => {
        const start = performance.now();
        await send();
        return eventsPerRun / ((performance.now() - start) / 1000);
      };
      const runSingle = () => measure(() => sendSingly(url, singleKey, singleEvents, eventsPerRun));
      const runBatch = () => measure(() => sendBatches(url, batchKey, batchEvents, eventsPerRun));
      // The order flips every round.
      let single: number;
      let batchRate: number;
      if (round % 2 === 1) {
        single = await runSingle();
        batchRate = await runBatch();
      } else {
        batchRate = await runBatch();
        single = await runSingle();
      }
      ratios.push(batchRate / single);
      process.stdout.write(
        `  round ${round}: single ${single.toFixed(0)} events/s, batch ${batchRate.toFixed(0)} events/s, ` +
          `${(batchRate / single).toFixed(2)}x\n`,
      );
    }
    const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)] as number;
    process.stdout.write(
      `  ${median >= 3 ? 'met    ' : 'NOT MET'}  the batch endpoint at ${median.toFixed(2)}x the single endpoint's events/s (median; >= 3)\n`,
    );
    return { ratios };
  } finally {
    server?.kill('SIGTERM');
    await new Promise((done) => setTimeout(done, 500));
  }
}

// `node bench/batch.ts`: the scenario alone, on a throwaway embedded PostgreSQL.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dataDir = await mkdtemp(join(tmpdir(), 'quotient-bench-batch-'));
  const database = await openEmbeddedDatabase(dataDir, {});
  try {
    await applyMigrations(database.url);
    await benchBatch(database.url);
  } finally {
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function sendSingly(url: string, key: string, next: () => string, count: number): Promise<void> {
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent++;
      await post(`${url}/v1/deals/events`, key, next(), 201);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
}

async function sendBatches(url: string, key: string, next: () => string, count: number): Promise<void> {
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      const size = Math.min(batchSize, count - sent);
      sent += size;
      const events = Array.from({ length: size }, () => next());
      const text = await post(`${url}/v1/deals/events/batch`, key, `{"events":[${events.join(',')}]}`, 200);
      const { results } = JSON.parse(text) as { results: Array<{ status: number }> };
      if (results.some((result) => result.status !== 201)) throw new Error(`a batched event was refused: ${text}`);
    }
  };
  await Promise.all(Array.from({ length: batchConnections }, worker));
}

async function post(url: string, key: string, body: string, expected: number): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${url} answered ${response.status}: ${text}`);
  return text;
}
