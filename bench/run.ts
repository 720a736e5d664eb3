import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createPrismaClient } from '../src/db/prisma.ts';
import { parseDealEvent } from '../src/domain/deals/event.ts';
import { OrgRepository } from '../src/repositories/orgs.ts';
import { createSqlPool } from '../src/repositories/transaction.ts';
import { DealIngestion } from '../src/services/ingestion.ts';
import { KeyAdmin } from '../src/services/keys.ts';
import { PlanAdmin } from '../src/services/plans.ts';
import { type CpuSnapshot, cpuSecondsBetween, postmasterPid, snapshot, withChildren } from './cpu.ts';
import { benchRecompute } from './recompute.ts';

// `npm run bench`: Quotient against bare floors on the same machine, database and load generator, in one
// run, so the ratio means something. Servers run as child processes; autocannon drives them from here.
// BENCH_SECONDS (default 10) and BENCH_CONNECTIONS (default 32) tune the runs; BENCH_ONLY=auth|ingest|earnings|
// recompute runs one scenario; BENCH_RECOMPUTE_SIZES (default 10000,30000,100000) the recompute sizes.
//
// Scenarios:
// - auth: authenticated GET /v1/ (key lookup, rate limit, audit) against a constant Express route;
// - ingest: sustained POST /v1/deals/events, upserts cycling over 5,000 distinct deals with a fresh dedup_key
//   each, through the whole pipeline (auth, validation, source event, domain event, projection) against the
//   floor's three inserts in one transaction with `pg`; plus the pipeline alone (DealIngestion called
//   in-process by as many workers as connections, no HTTP, no auth), to show where the time goes;
// - earnings: the same ingestion in an org where product.md's four-chip plan is active, so every event also
//   evaluates and books the earnings lines it can affect (the deal's, and its rep's period for the accelerator
//   and the quota bonus), against the same floor;
// - recompute: `quotient recompute` of 10,000, 30,000 and 100,000 deals (bench/recompute.ts).
// On Linux each row also shows the CPU time per request of the server process and of PostgreSQL (the
// postmaster and its backends): with the server, PostgreSQL and the load generator on one machine, CPU per
// request is what bounds throughput.

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const only = process.env.BENCH_ONLY;
const DISTINCT_DEALS = 5_000;
const STAGES = ['prospecting', 'qualified', 'proposal', 'negotiation', 'closed_won', 'closed_lost'];

interface Result {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** CPU milliseconds per request, of the server process and of PostgreSQL; null off Linux. */
  serverCpuMs: number | null;
  databaseCpuMs: number | null;
}

/** The processes whose CPU a measurement counts. */
interface Processes {
  server: () => number[];
  database: () => number[];
}

const dataDir = await mkdtemp(join(tmpdir(), 'quotient-bench-'));
await chmod(dataDir, 0o755);
const database = await openEmbeddedDatabase(dataDir);
const children: ChildProcess[] = [];
try {
  await applyMigrations(database.url);
  const db = createPrismaClient(database.url, 2);
  const org = await new OrgRepository(db).create('Bench org');
  // One key per scenario: each may pass 100,000 requests (the highest limit) within one rate window.
  const keyFor = async (name: string) =>
    (
      await new KeyAdmin(db).create({
        orgId: org.id,
        name,
        scopes: 'deals:read,deals:write,earnings:read,plans:read',
        rateLimit: '100000',
      })
    ).rawKey;
  const authKey = await keyFor('bench auth');
  const ingestKey = await keyFor('bench ingest');
  // The earnings scenario's org, with product.md's plan (examples/plans/core-ae.yaml) active.
  const planOrg = await new OrgRepository(db).create('Bench org with a plan');
  await new PlanAdmin(db).apply({
    orgId: planOrg.id,
    text: await readFile(new URL('../examples/plans/core-ae.yaml', import.meta.url), 'utf8'),
  });
  const planKey = (
    await new KeyAdmin(db).create({
      orgId: planOrg.id,
      name: 'bench earnings',
      scopes: 'deals:write',
      rateLimit: '100000',
    })
  ).rawKey;
  await db.$disconnect();

  const quotient = await startChild(['src/cli/main.ts', 'serve', '--port', '0', '--json'], database.url);
  const bare = await startChild(['bench/bare-server.ts'], database.url);
  children.push(quotient.child, bare.child);
  const postmaster = postmasterPid(join(dataDir, 'pg'));
  const databaseProcesses = () => (postmaster ? withChildren(postmaster) : []);
  const processesOf = (child: ChildProcess): Processes => ({
    server: () => (child.pid ? [child.pid] : []),
    database: databaseProcesses,
  });

  process.stdout.write(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`,
  );
  process.stdout.write(`Load: autocannon, ${connections} connections, ${seconds} s per run after a 2 s warm-up\n\n`);

  if (only === undefined || only === 'auth') {
    const authQuotient = await measure(
      'Quotient GET /v1/ (auth, rate limit, audit)',
      quotient.url,
      { path: '/v1/', headers: { authorization: `Bearer ${authKey}` } },
      processesOf(quotient.child),
    );
    const authBare = await measure('bare Express GET /v1/', bare.url, { path: '/v1/' }, processesOf(bare.child));
    report([authQuotient, authBare], authQuotient, authBare, 'requests/s');
  }
  if (only === undefined || only === 'ingest') {
    const json = { 'content-type': 'application/json' };
    const ingestQuotient = await measure(
      'Quotient POST /v1/deals/events (full pipeline)',
      quotient.url,
      {
        path: '/v1/deals/events',
        method: 'POST',
        headers: { authorization: `Bearer ${ingestKey}`, ...json },
        body: dealEvents('quotient'),
      },
      processesOf(quotient.child),
    );
    const ingestBare = await measure(
      'bare Express + pg, 3 inserts',
      bare.url,
      { path: '/v1/deals/events', method: 'POST', headers: json, body: dealEvents('bare') },
      processesOf(bare.child),
    );
    const pipeline = await measurePipeline(
      'Quotient pipeline alone (in-process)',
      database.url,
      org.id,
      dealEvents('pipeline', 'bench-pipeline'),
      {
        server: () => [process.pid],
        database: databaseProcesses,
      },
    );
    report([ingestQuotient, ingestBare, pipeline], ingestQuotient, ingestBare, 'events/s');
    process.stdout.write(
      `ratio ${pipeline.name} / ${ingestBare.name}: ${(pipeline.requestsPerSecond / ingestBare.requestsPerSecond).toFixed(2)}\n\n`,
    );
  }
  if (only === undefined || only === 'earnings') {
    const json = { 'content-type': 'application/json' };
    const withPlan = await measure(
      'Quotient POST /v1/deals/events, four-chip plan active',
      quotient.url,
      {
        path: '/v1/deals/events',
        method: 'POST',
        headers: { authorization: `Bearer ${planKey}`, ...json },
        body: dealEvents('earnings'),
      },
      processesOf(quotient.child),
    );
    const floor = await measure(
      'bare Express + pg, 3 inserts',
      bare.url,
      { path: '/v1/deals/events', method: 'POST', headers: json, body: dealEvents('bare-earnings') },
      processesOf(bare.child),
    );
    report([withPlan, floor], withPlan, floor, 'events/s');
  }
  if (only === undefined || only === 'recompute') {
    const sizes = (process.env.BENCH_RECOMPUTE_SIZES ?? '10000,30000,100000').split(',').map(Number);
    await benchRecompute(database.url, sizes);
  }
} finally {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(
    children.map((child) => new Promise((done) => (child.exitCode !== null ? done(null) : child.once('exit', done)))),
  );
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}

/**
 * Deal-event bodies in an endless cycle over DISTINCT_DEALS deals: each call is the next upsert, with a new
 * dedup_key, a moving amount and stage, a steady owner per deal and a custom field.
 */
function dealEvents(run: string, prefix = 'bench'): () => string {
  let sequence = 0;
  return () => {
    const n = sequence++;
    const deal = n % DISTINCT_DEALS;
    const round = Math.floor(n / DISTINCT_DEALS);
    return JSON.stringify({
      external_id: `${prefix}-${deal}`,
      dedup_key: `${run}-${process.pid}-${n}`,
      event_type: 'upsert',
      state: {
        amount_cents: 100_000 + ((deal * 7919 + round * 104_729) % 9_000_000),
        stage: STAGES[(deal + round) % STAGES.length],
        close_date: `2026-${String((deal % 12) + 1).padStart(2, '0')}-15`,
        owner_external_id: `rep-${deal % 50}`,
        region: ['EMEA', 'NA', 'APAC'][deal % 3],
      },
    });
  };
}

async function measure(
  name: string,
  url: string,
  request: { path: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: () => string },
  processes: Processes,
): Promise<Result> {
  const { body } = request;
  const options = {
    url: `${url}${request.path}`,
    connections,
    method: request.method ?? 'GET',
    headers: request.headers ?? {},
    ...(body
      ? {
          requests: [
            {
              setupRequest: (req: autocannon.Request) => ({ ...req, body: body() }),
            },
          ],
        }
      : {}),
  };
  await autocannon({ ...options, duration: 2 });
  const cpu = startCpu(processes);
  const result = await autocannon({ ...options, duration: seconds });
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    ...cpu.perRequest(result.requests.total),
  };
}

/**
 * The pipeline without HTTP: DealIngestion on its own pool, driven by `connections` concurrent workers for a
 * 2 s warm-up and then `seconds`, each awaiting its event before sending the next, as autocannon's
 * connections do.
 */
async function measurePipeline(
  name: string,
  databaseUrl: string,
  orgId: string,
  nextBody: () => string,
  processes: Processes,
): Promise<Result> {
  const pool = createSqlPool(databaseUrl, 20, () => {});
  const ingestion = new DealIngestion(pool);
  const run = async (durationSeconds: number, latencies: number[]) => {
    const end = Date.now() + durationSeconds * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (Date.now() < end) {
          const raw = nextBody();
          const body = JSON.parse(raw) as unknown;
          const started = performance.now();
          await ingestion.ingest({
            orgId,
            keyId: null,
            event: parseDealEvent(body),
            body,
            rawBody: raw,
            receivedAt: new Date(),
          });
          latencies.push(performance.now() - started);
        }
      }),
    );
  };
  try {
    await run(2, []);
    const latencies: number[] = [];
    const cpu = startCpu(processes);
    await run(seconds, latencies);
    latencies.sort((a, b) => a - b);
    const at = (quantile: number) => Math.round(latencies[Math.floor(quantile * (latencies.length - 1))] ?? 0);
    return {
      name,
      requestsPerSecond: latencies.length / seconds,
      p50: at(0.5),
      p99: at(0.99),
      non2xx: 0,
      ...cpu.perRequest(latencies.length),
    };
  } finally {
    await pool.end();
  }
}

function startCpu(processes: Processes) {
  const before: [CpuSnapshot, CpuSnapshot] = [snapshot(processes.server()), snapshot(processes.database())];
  return {
    perRequest(requests: number) {
      const server = cpuSecondsBetween(before[0], snapshot(processes.server()));
      const database = cpuSecondsBetween(before[1], snapshot(processes.database()));
      const perRequest = (cpuSeconds: number | null) =>
        cpuSeconds === null || requests === 0 ? null : (cpuSeconds * 1000) / requests;
      return { serverCpuMs: perRequest(server), databaseCpuMs: perRequest(database) };
    },
  };
}

function report(results: Result[], subject: Result, floor: Result, unit: string): void {
  const width = Math.max(...results.map((result) => result.name.length));
  const cpu = (ms: number | null) => (ms === null ? '-' : ms.toFixed(2)).padStart(13);
  process.stdout.write(
    `${'scenario'.padEnd(width)}  ${unit.padStart(10)}   p50 ms   p99 ms   non-2xx  server CPU ms  db CPU ms/req\n`,
  );
  for (const result of results) {
    process.stdout.write(
      `${result.name.padEnd(width)}  ${result.requestsPerSecond.toFixed(0).padStart(10)}  ${String(result.p50).padStart(7)}  ${String(result.p99).padStart(7)}  ${String(result.non2xx).padStart(8)}  ${cpu(result.serverCpuMs)}  ${cpu(result.databaseCpuMs)}\n`,
    );
  }
  process.stdout.write(
    `ratio ${subject.name} / ${floor.name}: ${(subject.requestsPerSecond / floor.requestsPerSecond).toFixed(2)}\n\n`,
  );
}

function startChild(args: string[], databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      try {
        done({ child, url: (JSON.parse(stdout) as { url: string }).url });
      } catch {
        // not a whole document yet
      }
    });
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}
