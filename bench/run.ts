import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createPrismaClient } from '../src/db/prisma.ts';
import { parseDealEvent } from '../src/domain/deals/event.ts';
import * as orgs from '../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements } from '../src/repositories/transaction.ts';
import { benchBatch } from './batch.ts';
import { backendsServing, type CpuSnapshot, cpuSecondsBetween, snapshot } from './cpu.ts';
import { DISTINCT_DEALS, dealEvents } from './events.ts';
import { createFloorTables } from './floor.ts';
import { benchImport } from './import.ts';
import { LAYER_NAMES, LAYERS, type Layer } from './layers.ts';
import { noDealChanges, noPlanChanges } from './listeners.ts';
import { type ProfileWindow, printProfileSummary, summariseProfiles } from './profile.ts';
import { benchRecompute } from './recompute.ts';
import { benchServices } from './services.ts';
import { benchYearImport } from './yearImport.ts';

// `npm run bench`: Quotient against bare floors on the same machine, database and load generator, in one run,
// alternating Quotient and its floor round by round so that a noisy neighbour hits both, so the ratio means
// something. Servers run as child processes; autocannon drives them from here.
//
// BENCH_SECONDS (default 10) per measured run, BENCH_ROUNDS (default 2) rounds of Quotient-then-floor (the order
// flips every round), BENCH_CONNECTIONS (default 32); BENCH_ONLY=auth|ingest|earnings|recompute|batch|import runs one
// scenario; BENCH_ONLY=layers measures what each layer of GET /v1/ adds (bench/layers-server.ts); BENCH_RECOMPUTE_SIZES (default 10000,30000,100000); BENCH_PG_SETTINGS="name=value …" starts the embedded
// cluster with more settings; BENCH_RATE_LIMIT_STORE (default memory, the
// embedded default: one server serves the database).
//
// BENCH_PROFILE=1 attributes instead of comparing: PostgreSQL runs with pg_stat_statements and the server with
// `--cpu-prof`; each Quotient scenario (and the pipeline alone) runs once and prints its statements' time per
// request, and the server its CPU profile summed by package (bench/profile.ts).
//
// BENCH_AGAINST=<checkout> compares two versions of Quotient instead: every scenario's floor becomes the same
// requests to a Quotient server started from that checkout (its own node_modules, or a link to these), on the same
// database and deals, alternating as with the floors; the ratio is then this version's rate over that one's.
// Rate limits are then counted in Redis by both.
//
// Deal events cycle over 5,000 deals; every target sends each of them once before its first measured run, so all
// are measured on updates of existing deals (warmUp).
//
// Scenarios and their goals (docs/benchmarks.md):
// - auth: authenticated GET /v1/ (key lookup, rate limit, audit) against bare Express + pg reading the key with
//   one indexed select: >= 0.5x;
// - ingest: POST /v1/deals/events, upserts cycling over 5,000 deals with a fresh dedup_key each, through the
//   whole path against bare Express + pg with three inserts in one transaction: >= 0.6x; plus the pipeline alone
//   (DealIngestion in-process, no HTTP, no auth), to show where the time goes;
// - earnings: the same ingestion in an org with product.md's four-chip plan active, against the same floor: >= 0.4x;
// - every row: p99 <= 2x the floor's;
// - recompute: `quotient recompute` of 10,000, 30,000 and 100,000 deals (bench/recompute.ts);
// - batch: POST /v1/deals/events/batch against POST /v1/deals/events with the four-chip plan, alternating round by
//   round: >= 3x (bench/batch.ts);
// - import: `quotient import deals` of a year of history (100,000 HubSpot rows, 200 reps) with the four-chip plan:
//   <= 60 s, alternating with the same rows one by one through POST /v1/deals/events (bench/import.ts); and the
//   customers' shape (50 reps over a year) into a fresh database, against PostgreSQL's COPY of the same rows:
//   <= 60 s and <= 15x the COPY floor (bench/yearImport.ts; BENCH_ONLY=import-year runs it alone).
// On Linux each row also shows the CPU time per request of the server process and of the PostgreSQL backends
// serving its connections (bench/cpu.ts, backendsServing): with the server, PostgreSQL and the load generator on
// one machine, CPU is what bounds throughput.

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const only = process.env.BENCH_ONLY;
const profiling = process.env.BENCH_PROFILE === '1';
const against = process.env.BENCH_AGAINST;
// Two servers on one database cannot count rate limits in memory (each refuses to, docs/operations.md): a
// comparison of versions counts them in Redis (QUOTIENT_REDIS_URL, else this machine's 127.0.0.1:6379).
const rateLimitStore = process.env.BENCH_RATE_LIMIT_STORE ?? (against ? 'redis' : 'memory');
const redisUrl = process.env.QUOTIENT_REDIS_URL ?? 'redis://127.0.0.1:6379';

interface Run {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  non2xx: number;
  serverCpuSeconds: number | null;
  databaseCpuSeconds: number | null;
}

interface Result {
  name: string;
  requests: number;
  requestsPerSecond: number;
  /** Median of the rounds' p50. */
  p50: number;
  /** The worst round's p99. */
  p99: number;
  non2xx: number;
  /** CPU milliseconds per request, of the server process and of PostgreSQL; null off Linux. */
  serverCpuMs: number | null;
  databaseCpuMs: number | null;
}

interface Goal {
  row: string;
  ratio: number;
  minimum: number;
  p99Ratio: number;
  subject: Result;
  floor: Result;
  /**
   * What bounds the rate: `server`, each server's one JavaScript thread (reads: PostgreSQL and the load generator
   * fit in the other core); `total`, the server and PostgreSQL sharing both cores (deal events).
   */
  bound: 'server' | 'total';
  /** What else this run measured that says where the cost is, printed under a goal not met. */
  notes: string[];
}

/** The processes whose CPU a measurement counts: the server, and the PostgreSQL backends serving it. */
interface Processes {
  server: () => number[];
  database: () => Promise<number[]>;
}

interface Target {
  name: string;
  url: string;
  request: { path: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: () => string };
  processes: Processes;
}

const dataDir = await mkdtemp(join(tmpdir(), 'quotient-bench-'));
const profileDir = join(dataDir, 'cpu-profiles');
await chmod(dataDir, 0o755);
const database = await openEmbeddedDatabase(dataDir, {
  extraFlags: [
    ...(profiling ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'] : []),
    ...(process.env.BENCH_PG_SETTINGS ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .flatMap((setting) => ['-c', setting]),
  ],
});
const children: ChildProcess[] = [];
const goals: Goal[] = [];
const profileWindows: ProfileWindow[] = [];
/** The tables' row writes when pg_stat_statements was last reset (profiling). */
let writesAtReset: TableWrites = new Map();
/** PostgreSQL's WAL counters (pg_stat_wal) when pg_stat_statements was last reset (profiling). */
let walAtReset: WalCounters = { records: 0, fullPageImages: 0, bytes: 0 };
const admin = new pg.Pool({ connectionString: database.url, max: 2 });
let quotient: { child: ChildProcess; url: string } | undefined;
/** The Quotient server of BENCH_AGAINST's checkout, when set. */
let baseline: { child: ChildProcess; url: string } | undefined;
let serversStarted = 0;
try {
  await applyMigrations(database.url);
  if (profiling) await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const db = createPrismaClient(database.url, 2);
  // Set-up runs on the Prisma client only; the pool stays unconnected.
  const setupPool = createSqlPool(database.url, 1, () => {});
  const { admin: setup } = benchServices(db, setupPool);
  const org = await orgs.create(databaseStatements(db), 'Bench org');
  // One key per scenario, created with the API's highest limit (100,000 a minute) and raised below.
  const keyFor = async (orgId: string, name: string) =>
    (
      await setup.keys.create({
        orgId,
        name,
        scopes: 'deals:read,deals:write,earnings:read,plans:read',
        rateLimit: '100000',
      })
    ).rawKey;
  const authKey = await keyFor(org.id, 'bench auth');
  const ingestKey = await keyFor(org.id, 'bench ingest');
  // The earnings scenario's org, with product.md's plan (examples/plans/core-ae.yaml) active.
  const planOrg = await orgs.create(databaseStatements(db), 'Bench org with a plan');
  await setup.planAdmin.apply(
    {
      orgId: planOrg.id,
      text: await readFile(new URL('../examples/plans/core-ae.yaml', import.meta.url), 'utf8'),
    },
    noPlanChanges,
  );
  const planKey = await keyFor(planOrg.id, 'bench earnings');
  const layerKeys = new Map<Layer, string>();
  if (only === undefined || only === 'layers') {
    for (const layer of LAYER_NAMES) layerKeys.set(layer, await keyFor(org.id, `bench layer ${layer}`));
  }
  await setupPool.end();
  await db.$disconnect();
  // Past 8,300 requests a second, a key's warm-up and run (12 s) pass 100,000 within one minute, and the rest would
  // be answered 429, measuring refusals. Every request is still counted and decided as with any limit: the limit's
  // value changes no cost.
  await admin.query('UPDATE api_keys SET rate_limit_per_minute = 1000000000');
  await createFloorTables(admin, authKey);

  // `quotient serve` of a checkout (this one, or BENCH_AGAINST's), run from that checkout.
  const serve = (checkout: string, nodeFlags: string[] = []) =>
    startChild(
      [...nodeFlags, join(checkout, 'src/cli/main.ts'), 'serve', '--port', '0', '--json'],
      database.url,
      { QUOTIENT_RATE_LIMIT_STORE: rateLimitStore, QUOTIENT_REDIS_URL: redisUrl },
      checkout,
    );
  quotient = await serve(process.cwd(), profiling ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
  const bare = await startChild(['bench/bare-server.ts'], database.url);
  children.push(quotient.child, bare.child);
  baseline = against ? await serve(against) : undefined;
  if (baseline) children.push(baseline.child);
  const q = quotient;
  const json = { 'content-type': 'application/json' };

  process.stdout.write(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`,
  );
  process.stdout.write(
    profiling
      ? `Profiling: pg_stat_statements and --cpu-prof, one ${seconds} s run per scenario after its warm-up\n\n`
      : `Load: autocannon, ${connections} connections; ${rounds} rounds of ${seconds} s per row, Quotient and floor alternating, after a warm-up each (2 s, and one event per deal for deal events); rate-limit store: ${rateLimitStore}\n\n`,
  );

  const bareAuth: Target = {
    name: 'bare Express + pg, one indexed select of the key',
    url: bare.url,
    request: { path: '/v1/', headers: { authorization: `Bearer ${authKey}` } },
    processes: processesOf(bare.child),
  };
  const floor = (run: string): Target => ({
    name: 'bare Express + pg, 3 inserts in a transaction',
    url: bare.url,
    request: { path: '/v1/deals/events', method: 'POST', headers: json, body: dealEvents(run) },
    processes: processesOf(bare.child),
  });

  let authGoal: Goal | undefined;
  let ingestGoal: Goal | undefined;
  if (only === undefined || only === 'auth') {
    authGoal = await compare(
      {
        name: 'Quotient GET /v1/ (auth, rate limit, audit)',
        url: q.url,
        request: { path: '/v1/', headers: { authorization: `Bearer ${authKey}` } },
        processes: processesOf(q.child),
      },
      bareAuth,
      'requests/s',
      0.5,
      'server',
    );
  }
  if (only === undefined || only === 'ingest') {
    ingestGoal = await compare(
      {
        name: 'Quotient POST /v1/deals/events, no plan',
        url: q.url,
        request: {
          path: '/v1/deals/events',
          method: 'POST',
          headers: { authorization: `Bearer ${ingestKey}`, ...json },
          body: dealEvents('quotient'),
        },
        processes: processesOf(q.child),
      },
      floor('bare'),
      'events/s',
      0.6,
      'total',
    );
    const pipeline = await measurePipeline(
      'Quotient pipeline alone (in-process, no HTTP)',
      database.url,
      org.id,
      dealEvents('pipeline', 'bench-pipeline'),
      { server: () => [process.pid], database: () => backendsServing(admin, process.pid) },
      async () => {
        if (profiling) await resetStatements();
      },
    );
    report([pipeline], 'events/s');
    process.stdout.write('\n');
    ingestGoal?.notes.push(
      `the pipeline alone (no HTTP, authentication, validation, audit or log line) spent ${cpuOf(pipeline, 'total')} ms ` +
        `per event (${cpuOf(pipeline, 'server')} of its process, ${cpuOf(pipeline, 'database')} of PostgreSQL): ` +
        "the rows every accepted event writes (its source event, its domain event, the deal's new version)",
      'the rest is what every request must pass: HTTP, the key, the rate limit, the contract validator, the log line',
    );
    if (profiling) await printStatements(pipeline.name, pipeline.requests);
  }
  if (only === undefined || only === 'earnings') {
    const earningsGoal = await compare(
      {
        name: "Quotient POST /v1/deals/events, product.md's four-chip plan",
        url: q.url,
        request: {
          path: '/v1/deals/events',
          method: 'POST',
          headers: { authorization: `Bearer ${planKey}`, ...json },
          body: dealEvents('earnings'),
        },
        processes: processesOf(q.child),
      },
      floor('bare-earnings'),
      'events/s',
      0.4,
      'total',
    );
    if (ingestGoal) {
      earningsGoal?.notes.push(
        `the same events in an org without a plan spent ${cpuOf(ingestGoal.subject, 'total')} ms per event in this run`,
        "the rest is the rep's period evaluated and its changed lines booked, in the event's own transaction " +
          '(evaluating and booking a burst in one would close the gap, which one transaction per event rules out)',
      );
    }
  }
  if ((only === undefined || only === 'layers') && !profiling && !baseline) {
    // Quotient's GET /v1/ built up from its own parts, one process per layer (bench/layers-server.ts), each with a
    // key of its own.
    const layers: LayerTarget[] = [{ label: 'floor', target: bareAuth }];
    for (const layer of LAYER_NAMES) {
      const server = await startChild(['bench/layers-server.ts'], database.url, { BENCH_LAYER: layer });
      children.push(server.child);
      layers.push({
        label: layer,
        target: {
          name: `layer ${layer}: ${LAYERS[layer]}`,
          url: server.url,
          request: { path: '/v1/', headers: { authorization: `Bearer ${layerKeys.get(layer)}` } },
          processes: processesOf(server.child),
        },
      });
    }
    layers.push({
      label: 'quotient serve',
      target: {
        name: 'quotient serve (the whole app)',
        url: q.url,
        request: { path: '/v1/', headers: { authorization: `Bearer ${authKey}` } },
        processes: processesOf(q.child),
      },
    });
    const added = await compareLayers(layers);
    authGoal?.notes.push(
      `what each layer adds to the floor's server CPU, in microseconds per request (the layers' rows above): ${added
        .slice(1)
        .map(({ label, microseconds }) => `${label} ${microseconds}`)
        .join(', ')}`,
      'each is required on every request: the key and its rate limit, the request id and log line, the audit entry, ' +
        'the contract validator',
    );
  }
  if (goals.length > 0 && !profiling) reportGoals();
  if (profiling) {
    quotient.child.kill('SIGTERM');
    await exited(quotient.child);
    printProfileSummary(await summariseProfiles(profileDir, profileWindows));
  }
  if (!profiling && (only === undefined || only === 'recompute')) {
    const sizes = (process.env.BENCH_RECOMPUTE_SIZES ?? '10000,30000,100000').split(',').map(Number);
    await benchRecompute(database.url, sizes, against);
  }
  if (!profiling && !against && (only === undefined || only === 'batch' || only === 'import')) {
    // Their own `quotient serve` counts rate limits in memory too: one such process per database, so the scenarios'
    // servers go first.
    for (const child of children.splice(0)) {
      child.kill('SIGTERM');
      await exited(child);
    }
  }
  if (!profiling && !against && (only === undefined || only === 'batch')) await benchBatch(database.url);
  if (!profiling && !against && (only === undefined || only === 'import' || only === 'import-year')) {
    await benchYearImport(database);
  }
  if (!profiling && !against && (only === undefined || only === 'import')) await benchImport(database);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map(exited));
  await admin.end();
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}

/** A layer's target, and the short label its added CPU is reported under. */
interface LayerTarget {
  label: string;
  target: Target;
}

/**
 * Targets that each add a layer to the one before, measured in turn for `rounds` rounds (the order reversed every
 * other round, each warmed up before its first run); each row shows the server CPU per request it adds to the row
 * before, the first being the floor. Returns those microseconds ('-' for the floor, or without CPU figures).
 */
async function compareLayers(layers: LayerTarget[]): Promise<Array<{ label: string; microseconds: string }>> {
  const targets = layers.map(({ target }) => target);
  const runs = new Map<Target, Run[]>(targets.map((target) => [target, []]));
  for (let round = 0; round < rounds; round++) {
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
      if (round < 2) await warmUp(target);
      (runs.get(target) as Run[]).push(await measuredRun(target));
    }
  }
  const results = targets.map((target) => combine(target.name, runs.get(target) as Run[]));
  report(results, 'requests/s');
  process.stdout.write('Server CPU each layer adds per request (microseconds; the first row is the floor):\n');
  const added = results.map((result, index) => {
    const before = results[index - 1]?.serverCpuMs ?? null;
    const microseconds =
      result.serverCpuMs === null || before === null ? '-' : `${Math.round((result.serverCpuMs - before) * 1000)}`;
    const ratio = result.requestsPerSecond / (results[0] as Result).requestsPerSecond;
    process.stdout.write(
      `  ${result.name.padEnd(84)} ${microseconds.padStart(6)} us   ${ratio.toFixed(2)}x the floor's rate\n`,
    );
    return { label: (layers[index] as LayerTarget).label, microseconds };
  });
  process.stdout.write('\n');
  return added;
}

/**
 * Quotient and its floor, alternating for `rounds` rounds (Q F, F Q, …), each with a 2 s warm-up before its first
 * run; then the rows, the ratio and the goal. Profiling runs Quotient alone, once.
 */
async function compare(
  subject: Target,
  bareFloor: Target,
  unit: string,
  minimum: number,
  bound: Goal['bound'],
): Promise<Goal | undefined> {
  if (profiling) {
    await profileScenario(subject);
    return undefined;
  }
  const floorTarget: Target = baseline
    ? {
        ...subject,
        name: `${against} (baseline)`,
        url: baseline.url,
        processes: processesOf(baseline.child),
      }
    : bareFloor;
  const runs = new Map<Target, Run[]>([
    [subject, []],
    [floorTarget, []],
  ]);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [subject, floorTarget] : [floorTarget, subject];
    for (const target of order) {
      if (round < 2) await warmUp(target);
      (runs.get(target) as Run[]).push(await measuredRun(target));
    }
  }
  const subjectResult = combine(subject.name, runs.get(subject) as Run[]);
  const floorResult = combine(floorTarget.name, runs.get(floorTarget) as Run[]);
  report([subjectResult, floorResult], unit);
  const ratio = subjectResult.requestsPerSecond / floorResult.requestsPerSecond;
  const p99Ratio = subjectResult.p99 / Math.max(1, floorResult.p99);
  process.stdout.write(
    `ratio: ${ratio.toFixed(2)} (goal >= ${minimum}); p99 ratio: ${p99Ratio.toFixed(2)} (goal <= 2)\n\n`,
  );
  if (baseline) return undefined;
  const goal: Goal = {
    row: subject.name,
    ratio,
    minimum,
    p99Ratio,
    subject: subjectResult,
    floor: floorResult,
    bound,
    notes: [],
  };
  goals.push(goal);
  return goal;
}

/** One run of Quotient with pg_stat_statements reset before it, then its statements' time per request. */
async function profileScenario(target: Target): Promise<void> {
  await warmUp(target);
  await resetStatements();
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const run = await measuredRun(target);
  const toUs = Number(process.hrtime.bigint() / 1000n);
  profileWindows.push({ name: target.name, fromUs, toUs, requests: run.requests });
  report([combine(target.name, [run])], 'requests/s');
  await printStatements(target.name, run.requests);
}

/** Row writes per table (pg_stat_user_tables), for the rows each request writes. */
type TableWrites = Map<string, { inserted: number; updated: number; hot: number }>;

async function tableWrites(): Promise<TableWrites> {
  const { rows } = await admin.query<{ relname: string; ins: string; upd: string; hot: string }>(
    'SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables',
  );
  return new Map(
    rows.map((row) => [row.relname, { inserted: Number(row.ins), updated: Number(row.upd), hot: Number(row.hot) }]),
  );
}

/** What the whole cluster wrote to its WAL: records, full-page images and bytes (pg_stat_wal). */
interface WalCounters {
  records: number;
  fullPageImages: number;
  bytes: number;
}

async function walCounters(): Promise<WalCounters> {
  const { rows } = await admin.query<{ records: string; fpi: string; bytes: string }>(
    'SELECT wal_records AS records, wal_fpi AS fpi, wal_bytes AS bytes FROM pg_stat_wal',
  );
  const row = rows[0];
  return { records: Number(row?.records), fullPageImages: Number(row?.fpi), bytes: Number(row?.bytes) };
}

async function resetStatements(): Promise<void> {
  await admin.query('SELECT pg_stat_statements_reset()');
  writesAtReset = await tableWrites();
  walAtReset = await walCounters();
}

/**
 * The statements pg_stat_statements counted since its last reset, per request of the run that made them, and the
 * rows each request inserted and updated per table.
 */
async function printStatements(name: string, requests: number): Promise<void> {
  // Backends publish their table counters at most once a second.
  await new Promise((done) => setTimeout(done, 1_500));
  const writes = await tableWrites();
  const wal = await walCounters();
  const { rows } = await admin.query<{ query: string; calls: string; total: number; mean: number }>(
    `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls, total_exec_time + total_plan_time AS total,
            (total_exec_time + total_plan_time) / calls AS mean
     FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
     WHERE d.datname = current_database() AND query NOT ILIKE '%pg_stat_statements%'
     ORDER BY total DESC LIMIT 15`,
  );
  const total = rows.reduce((sum, row) => sum + row.total, 0);
  process.stdout.write(
    `PostgreSQL time per request (planning + execution, pg_stat_statements), ${name}: ${(total / requests).toFixed(3)} ms in the top statements\n`,
  );
  process.stdout.write(`  ${'ms/req'.padStart(7)}  ${'calls/req'.padStart(9)}  ${'ms/call'.padStart(7)}  statement\n`);
  for (const row of rows) {
    process.stdout.write(
      `  ${(row.total / requests).toFixed(3).padStart(7)}  ${(Number(row.calls) / requests).toFixed(2).padStart(9)}  ${row.mean.toFixed(3).padStart(7)}  ${row.query.slice(0, 110)}\n`,
    );
  }
  process.stdout.write(`Rows written per request, ${name} (pg_stat_user_tables)\n`);
  for (const [table, after] of [...writes].sort(([a], [b]) => a.localeCompare(b))) {
    const before = writesAtReset.get(table) ?? { inserted: 0, updated: 0, hot: 0 };
    const per = (count: number) => (count / requests).toFixed(2);
    const inserted = after.inserted - before.inserted;
    const updated = after.updated - before.updated;
    if (inserted + updated < requests / 100) continue;
    process.stdout.write(
      `  ${table.padEnd(22)} inserted ${per(inserted).padStart(6)}  updated ${per(updated).padStart(6)} (HOT ${per(after.hot - before.hot)})\n`,
    );
  }
  const walPer = (count: number, before: number) => ((count - before) / requests).toFixed(2);
  process.stdout.write(
    `WAL per request (pg_stat_wal, whole cluster): ${walPer(wal.records, walAtReset.records)} records, ` +
      `${walPer(wal.fullPageImages, walAtReset.fullPageImages)} full-page images, ` +
      `${Math.round((wal.bytes - walAtReset.bytes) / requests)} bytes\n\n`,
  );
}

/**
 * Before a target's first measured run: 2 s of its load and, for deal events, at least one event for each of the
 * 5,000 deals, so that every target is measured in the same steady state (updates of existing deals). A warm-up of
 * a fixed time alone would not do: a fast target creates every deal within it, a slow one would be measured mostly
 * on creations, which cost more.
 */
async function warmUp(target: Target): Promise<void> {
  await load(target, 2);
  if (target.request.body) await load(target, { amount: DISTINCT_DEALS });
}

async function load(target: Target, length: number | { amount: number }): Promise<autocannon.Result> {
  const { body } = target.request;
  return autocannon({
    url: `${target.url}${target.request.path}`,
    connections,
    method: target.request.method ?? 'GET',
    headers: target.request.headers ?? {},
    ...(typeof length === 'number' ? { duration: length } : length),
    ...(body ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: body() }) }] } : {}),
  });
}

async function measuredRun(target: Target): Promise<Run> {
  const before: [CpuSnapshot, CpuSnapshot] = [
    snapshot(target.processes.server()),
    snapshot(await target.processes.database()),
  ];
  process.stderr.write(`measuring: ${target.name}\n`);
  const result = await load(target, seconds);
  const after = snapshot(await target.processes.database());
  return {
    requests: result.requests.total,
    seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    serverCpuSeconds: cpuSecondsBetween(before[0], snapshot(target.processes.server())),
    databaseCpuSeconds: cpuSecondsBetween(before[1], after),
  };
}

function combine(name: string, runs: Run[]): Result {
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  const cpu = (pick: (run: Run) => number | null) => {
    if (requests === 0 || runs.some((run) => pick(run) === null)) return null;
    return (runs.reduce((sum, run) => sum + (pick(run) as number), 0) * 1000) / requests;
  };
  const p50s = runs.map((run) => run.p50).sort((a, b) => a - b);
  return {
    name,
    requests,
    requestsPerSecond: requests / runs.reduce((sum, run) => sum + run.seconds, 0),
    p50: p50s[Math.floor((p50s.length - 1) / 2)] ?? 0,
    p99: Math.max(...runs.map((run) => run.p99)),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    serverCpuMs: cpu((run) => run.serverCpuSeconds),
    databaseCpuMs: cpu((run) => run.databaseCpuSeconds),
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
  afterWarmUp: () => Promise<void>,
): Promise<Result> {
  const pool = createSqlPool(databaseUrl, 20, () => {});
  const db = createPrismaClient(databaseUrl, 1);
  const { ingestion } = benchServices(db, pool, { deals: noDealChanges }).api;
  const drive = async (durationSeconds: number, latencies: number[]) => {
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
    // 2 s and every deal once before measuring, as the HTTP targets (warmUp).
    const warmUpLatencies: number[] = [];
    await drive(2, warmUpLatencies);
    while (warmUpLatencies.length < DISTINCT_DEALS) await drive(1, warmUpLatencies);
    await afterWarmUp();
    const latencies: number[] = [];
    const before: [CpuSnapshot, CpuSnapshot] = [snapshot(processes.server()), snapshot(await processes.database())];
    await drive(seconds, latencies);
    const databaseAfter = snapshot(await processes.database());
    latencies.sort((a, b) => a - b);
    const at = (quantile: number) => Math.round(latencies[Math.floor(quantile * (latencies.length - 1))] ?? 0);
    return combine(name, [
      {
        requests: latencies.length,
        seconds,
        p50: at(0.5),
        p99: at(0.99),
        non2xx: 0,
        serverCpuSeconds: cpuSecondsBetween(before[0], snapshot(processes.server())),
        databaseCpuSeconds: cpuSecondsBetween(before[1], databaseAfter),
      },
    ]);
  } finally {
    await pool.end();
    await db.$disconnect();
  }
}

function report(results: Result[], unit: string): void {
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
}

/** CPU milliseconds per request of a row: its server process, its PostgreSQL backends, or both; null off Linux. */
function cpuMsOf(result: Result, part: 'server' | 'database' | 'total'): number | null {
  const { serverCpuMs: server, databaseCpuMs: database } = result;
  if (part === 'server') return server;
  if (part === 'database') return database;
  return server === null || database === null ? null : server + database;
}

/** The same, as the reports print it. */
function cpuOf(result: Result, part: 'server' | 'database' | 'total'): string {
  return cpuMsOf(result, part)?.toFixed(2) ?? '-';
}

/**
 * Each goal, met or not; under one not met, the CPU it allows per request against what Quotient spent, and what
 * else the run measured about where that goes. Every scenario is bound by CPU on this machine, so a rate goal is a
 * CPU budget: at `minimum` times the floor's rate, Quotient may spend 1 / `minimum` times the floor's CPU per request
 * on what bounds the rate (its server's one thread for reads, server and PostgreSQL together for deal events).
 */
function reportGoals(): void {
  process.stdout.write('Goals\n');
  for (const goal of goals) {
    const met = goal.ratio >= goal.minimum && goal.p99Ratio <= 2;
    process.stdout.write(
      `  ${met ? 'met    ' : 'NOT MET'}  ${goal.row}: ${goal.ratio.toFixed(2)}x the floor (>= ${goal.minimum}), p99 ${goal.p99Ratio.toFixed(2)}x (<= 2)\n`,
    );
    if (met) continue;
    const floorMs = cpuMsOf(goal.floor, goal.bound);
    const what = goal.bound === 'server' ? 'server CPU (one JavaScript thread)' : 'CPU of server and PostgreSQL';
    if (floorMs !== null) {
      process.stdout.write(
        `           ${what} per request: the floor ${floorMs.toFixed(2)} ms, so the goal allows ${(floorMs / goal.minimum).toFixed(2)} ms; ` +
          `Quotient spent ${cpuOf(goal.subject, goal.bound)} ms (server ${cpuOf(goal.subject, 'server')}, PostgreSQL ${cpuOf(goal.subject, 'database')})\n`,
      );
    }
    for (const note of goal.notes) process.stdout.write(`           ${note}\n`);
  }
  process.stdout.write('\n');
}

function exited(child: ChildProcess): Promise<unknown> {
  return new Promise((done) =>
    child.exitCode !== null || child.signalCode !== null ? done(null) : child.once('exit', done),
  );
}

/** A server child; its logs (at the default level, as in production) go to a file of the bench's directory. */
/** The server process and the PostgreSQL backends serving its connections. */
function processesOf(child: ChildProcess): Processes {
  return {
    server: () => (child.pid ? [child.pid] : []),
    database: async () => (child.pid ? backendsServing(admin, child.pid) : []),
  };
}

async function startChild(
  args: string[],
  databaseUrl: string,
  env: Record<string, string> = {},
  cwd?: string,
): Promise<{ child: ChildProcess; url: string }> {
  const logPath = join(dataDir, `server-${++serversStarted}.log`);
  const log = await open(logPath, 'a');
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', ...env },
      stdio: ['ignore', 'pipe', log.fd],
      ...(cwd ? { cwd } : {}),
    });
    child.once('exit', () => void log.close());
    let stdout = '';
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      try {
        done({ child, url: (JSON.parse(stdout) as { url: string }).url });
      } catch {
        // not a whole document yet
      }
    });
    child.once('exit', (code) => {
      const said = readFileSync(logPath, 'utf8').trim().split('\n').slice(-12).join('\n');
      fail(new Error(`${args.join(' ')} exited with ${code}:\n${said}`));
    });
  });
}
