import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { benchBatch } from './batch.ts';
import { exited, processesOf, startChild } from './children.ts';
import { backendsServing } from './cpu.ts';
import { dealEvents } from './events.ts';
import { createFloorTables } from './floor.ts';
import { type Goal, reportGoals } from './goals.ts';
import { benchImport } from './import.ts';
import { LAYER_NAMES, LAYERS } from './layers.ts';
import {
  combine,
  compareLayers,
  connections,
  cpuOf,
  type LayerTarget,
  measuredRun,
  measurePipeline,
  type Run,
  report,
  rounds,
  seconds,
  type Target,
  warmUp,
} from './measure.ts';
import { type ProfileWindow, printProfileSummary, summariseProfiles } from './profile.ts';
import { benchRecompute } from './recompute.ts';
import { benchScenario } from './scenario.ts';
import { seedBench } from './seed.ts';
import { printStatements, resetStatements } from './statementsPerRequest.ts';
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

const only = process.env.BENCH_ONLY;
const profiling = process.env.BENCH_PROFILE === '1';
const against = process.env.BENCH_AGAINST;
// Two servers on one database cannot count rate limits in memory (each refuses to, docs/operations.md): a
// comparison of versions counts them in Redis (QUOTIENT_REDIS_URL, else this machine's 127.0.0.1:6379).
const rateLimitStore = process.env.BENCH_RATE_LIMIT_STORE ?? (against ? 'redis' : 'memory');
const redisUrl = process.env.QUOTIENT_REDIS_URL ?? 'redis://127.0.0.1:6379';

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
const admin = new pg.Pool({ connectionString: database.url, max: 2 });
let quotient: { child: ChildProcess; url: string } | undefined;
/** The Quotient server of BENCH_AGAINST's checkout, when set. */
let baseline: { child: ChildProcess; url: string } | undefined;
try {
  await applyMigrations(database.url);
  if (profiling) await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const { org, authKey, ingestKey, planKey, layerKeys } = await seedBench(
    database.url,
    only === undefined || only === 'layers',
  );
  // Past 8,300 requests a second, a key's warm-up and run (12 s) pass 100,000 within one minute, and the rest would
  // be answered 429, measuring refusals. Every request is still counted and decided as with any limit: the limit's
  // value changes no cost.
  await admin.query('UPDATE api_keys SET rate_limit_per_minute = 1000000000');
  await createFloorTables(admin, authKey);

  // `quotient serve` of a checkout (this one, or BENCH_AGAINST's), run from that checkout.
  const serve = (checkout: string, nodeFlags: string[] = []) =>
    startChild(
      dataDir,
      [...nodeFlags, join(checkout, 'src/cli/main.ts'), 'serve', '--port', '0', '--json'],
      database.url,
      { QUOTIENT_RATE_LIMIT_STORE: rateLimitStore, QUOTIENT_REDIS_URL: redisUrl },
      checkout,
    );
  quotient = await serve(process.cwd(), profiling ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
  const bare = await startChild(dataDir, ['bench/bare-server.ts'], database.url);
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
    processes: processesOf(admin, bare.child),
  };
  const floor = (run: string): Target => ({
    name: 'bare Express + pg, 3 inserts in a transaction',
    url: bare.url,
    request: { path: '/v1/deals/events', method: 'POST', headers: json, body: dealEvents(run) },
    processes: processesOf(admin, bare.child),
  });

  let authGoal: Goal | undefined;
  let ingestGoal: Goal | undefined;
  if (only === undefined || only === 'auth') {
    authGoal = await compare(
      {
        name: 'Quotient GET /v1/ (auth, rate limit, audit)',
        url: q.url,
        request: { path: '/v1/', headers: { authorization: `Bearer ${authKey}` } },
        processes: processesOf(admin, q.child),
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
        processes: processesOf(admin, q.child),
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
        if (profiling) await resetStatements(admin);
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
    if (profiling) await printStatements(admin, pipeline.name, pipeline.requests);
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
        processes: processesOf(admin, q.child),
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
      const server = await startChild(dataDir, ['bench/layers-server.ts'], database.url, { BENCH_LAYER: layer });
      children.push(server.child);
      layers.push({
        label: layer,
        target: {
          name: `layer ${layer}: ${LAYERS[layer]}`,
          url: server.url,
          request: { path: '/v1/', headers: { authorization: `Bearer ${layerKeys.get(layer)}` } },
          processes: processesOf(admin, server.child),
        },
      });
    }
    layers.push({
      label: 'quotient serve',
      target: {
        name: 'quotient serve (the whole app)',
        url: q.url,
        request: { path: '/v1/', headers: { authorization: `Bearer ${authKey}` } },
        processes: processesOf(admin, q.child),
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
  if (goals.length > 0 && !profiling) reportGoals(goals);
  if (profiling) {
    quotient.child.kill('SIGTERM');
    await exited(quotient.child);
    printProfileSummary(await summariseProfiles(profileDir, profileWindows));
  }
  if (!profiling && (only === undefined || only === 'recompute')) {
    const sizes = (process.env.BENCH_RECOMPUTE_SIZES ?? '10000,30000,100000').split(',').map(Number);
    await benchRecompute(database.url, sizes, against);
  }
  if (!profiling && !against && (only === undefined || only === 'scenario')) {
    const sizes = (process.env.BENCH_SCENARIO_SIZES ?? '10000').split(',').map(Number);
    await benchScenario(database.url, sizes);
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
        processes: processesOf(admin, baseline.child),
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
  await resetStatements(admin);
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const run = await measuredRun(target);
  const toUs = Number(process.hrtime.bigint() / 1000n);
  profileWindows.push({ name: target.name, fromUs, toUs, requests: run.requests });
  report([combine(target.name, [run])], 'requests/s');
  await printStatements(admin, target.name, run.requests);
}
