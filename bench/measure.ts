import autocannon from 'autocannon';
import { createPrismaClient } from '../src/db/prisma.ts';
import { parseDealEvent } from '../src/domain/deals/event.ts';
import { createSqlPool } from '../src/repositories/transaction.ts';
import { type CpuSnapshot, cpuSecondsBetween, snapshot } from './cpu.ts';
import { DISTINCT_DEALS } from './events.ts';
import { noDealChanges } from './listeners.ts';
import { benchServices } from './services.ts';

// One measured run of `npm run bench` (bench/run.ts): autocannon's load on a target after its warm-up, the CPU of
// its server and of the PostgreSQL backends serving it, the runs of a row combined and printed; and the ingestion
// pipeline driven in-process the same way, for the row without HTTP.

/** BENCH_SECONDS (default 10) per measured run. */
export const seconds = Number(process.env.BENCH_SECONDS ?? 10);
/** BENCH_ROUNDS (default 2): rounds of each row, the order of the targets reversed every other round. */
export const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
/** BENCH_CONNECTIONS (default 32): autocannon's connections, and the in-process pipeline's concurrent workers. */
export const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

export interface Run {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  non2xx: number;
  serverCpuSeconds: number | null;
  databaseCpuSeconds: number | null;
}

export interface Result {
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

/** The processes whose CPU a measurement counts: the server, and the PostgreSQL backends serving it. */
export interface Processes {
  server: () => number[];
  database: () => Promise<number[]>;
}

export interface Target {
  name: string;
  url: string;
  request: { path: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: () => string };
  processes: Processes;
}

/**
 * Before a target's first measured run: 2 s of its load and, for deal events, at least one event for each of the
 * 5,000 deals, so that every target is measured in the same steady state (updates of existing deals). A warm-up of
 * a fixed time alone would not do: a fast target creates every deal within it, a slow one would be measured mostly
 * on creations, which cost more.
 */
export async function warmUp(target: Target): Promise<void> {
  await load(target, 2);
  if (target.request.body) await load(target, { amount: DISTINCT_DEALS });
}

export async function load(target: Target, length: number | { amount: number }): Promise<autocannon.Result> {
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

export async function measuredRun(target: Target): Promise<Run> {
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

export function combine(name: string, runs: Run[]): Result {
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
export async function measurePipeline(
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

export function report(results: Result[], unit: string): void {
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
export function cpuMsOf(result: Result, part: 'server' | 'database' | 'total'): number | null {
  const { serverCpuMs: server, databaseCpuMs: database } = result;
  if (part === 'server') return server;
  if (part === 'database') return database;
  return server === null || database === null ? null : server + database;
}

/** The same, as the reports print it. */
export function cpuOf(result: Result, part: 'server' | 'database' | 'total'): string {
  return cpuMsOf(result, part)?.toFixed(2) ?? '-';
}

/** A layer's target, and the short label its added CPU is reported under. */
export interface LayerTarget {
  label: string;
  target: Target;
}

/**
 * Targets that each add a layer to the one before, measured in turn for `rounds` rounds (the order reversed every
 * other round, each warmed up before its first run); each row shows the server CPU per request it adds to the row
 * before, the first being the floor. Returns those microseconds ('-' for the floor, or without CPU figures).
 */
export async function compareLayers(layers: LayerTarget[]): Promise<Array<{ label: string; microseconds: string }>> {
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
