import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startThrowawayCluster, type ThrowawayCluster } from '../test/faults/cluster.ts';
import { spawnServe } from '../test/helpers/cli.ts';
import { processTree, type Spawned, spawnQuotient, waitForOutput } from '../test/helpers/processes.ts';
import { startReceiver, verifyWithStandardWebhooks } from '../test/helpers/webhookReceiver.ts';
import {
  checkEvents,
  checkMemory,
  checkRateLimits,
  checkWebhooks,
  rateLimitWindows,
  type SoakCheck,
  type SoakReport,
} from './soakChecks.ts';
import { LIMITED_KEYS, LoadRun, SERVERS, setUp } from './soakLoad.ts';

export type { SoakCheck, SoakReport };

// The soak (issue 31): Quotient deployed as the large customers run it, under mixed load for minutes, on one
// database of its own (a throwaway embedded PostgreSQL cluster): three `quotient serve` processes counting rate
// limits in PostgreSQL, and one separate `quotient worker` delivering webhooks to a local receiver. A few clients
// send deal events (single and batch) for many reps, read earnings, statements and payouts, lock and pay periods
// with the CLI, and hammer rate-limited keys past their limit on all three servers. At the end it checks, and
// prints with its figures:
//
// - rate limits exact across processes: per key and per window, at most N accepted, and exactly N in every window
//   where any request was refused (the counts of the three servers summed), every other answer a 429;
// - every webhook delivered once: the receiver got each message of the endpoint's deliveries exactly once, nothing
//   else, and every message of the org went to the endpoint (which takes every kind);
// - no lost event: every accepted deal event has its source event and domain event (the ids the API answered) and
//   its deal has earnings;
// - memory flat: each server's RSS, sampled over the run, has a last-quarter median within 1.2x of its
//   second-quarter median (the series is printed);
// - no other failure: no 5xx, no refused connection, every admin command exited 0.
//
// `npm run soak` (default 5 minutes; `-- --duration 10m`, `--duration 90s`), exit 1 when a check fails.
// test/faults/soak.test.ts runs the same program for 30 seconds. Nothing here is timed: it asserts invariants.

export interface SoakOptions {
  durationMs: number;
  /**
   * Load before the measured run (default a fifth of it, at most a minute): the servers' start-up growth (compiled
   * code, pools, caches) is not sampled for the memory check. The other checks cover it.
   */
  warmupMs?: number;
  /** Requests per window each rate-limited key allows. */
  rateLimit?: number;
  /** How much a server's RSS may grow from the run's second quarter to its last (default 1.2x). */
  memoryRatio?: number;
  /** Clients sending deal events. */
  eventClients?: number;
  /** Where progress and the figures go (default: stdout). */
  print?: (line: string) => void;
}

const MEMORY_RATIO = 1.2;

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const rateLimit = options.rateLimit ?? 30;
  const eventClients = options.eventClients ?? 3;
  const warmupMs = options.warmupMs ?? Math.min(60_000, Math.floor(options.durationMs / 5));
  const cleanup: Array<() => Promise<unknown>> = [];
  try {
    print(
      `soak: ${Math.round(warmupMs / 1000)} s warm-up and ${Math.round(options.durationMs / 1000)} s of mixed load on ${SERVERS} servers and one webhook worker`,
    );
    const cluster = await startThrowawayCluster();
    cleanup.unshift(() => cluster.destroy());
    // Each request is verified as it arrives (Standard Webhooks refuses timestamps more than 5 minutes old).
    const signing: { secret: string | null; unverified: number } = { secret: null, unverified: 0 };
    const receiver = await startReceiver((request) => {
      try {
        verifyWithStandardWebhooks(signing.secret ?? '', request);
      } catch {
        signing.unverified++;
      }
      return 204;
    });
    cleanup.unshift(() => receiver.close());
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: cluster.url,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      QUOTIENT_RATE_LIMIT_STORE: 'postgres',
      QUOTIENT_WEBHOOK_WORKER: 'false',
      QUOTIENT_WEBHOOKS_ALLOW_PRIVATE: 'true',
      QUOTIENT_WEBHOOK_POLL_MS: '100',
    };
    delete env.QUOTIENT_REDIS_URL;
    delete env.QUOTIENT_DIRECT_DATABASE_URL;
    delete env.QUOTIENT_DATA_DIR;

    const world = await setUp(env, receiver, rateLimit);
    signing.secret = world.secret;
    const servers: Array<{ child: ChildProcess; url: string }> = [];
    // The processes' error log lines (pino level 50 and up), to name the cause of any 5xx in the report.
    const errorLines: string[] = [];
    // The four processes start at once (their start-ups overlap: each loads Quotient, then checks the migrated
    // schema), as a deployment starts its replicas; the load begins when all of them serve.
    const worker = spawnQuotient(['worker', '--json'], env);
    collectErrorLines(worker.child, 'worker', errorLines);
    cleanup.unshift(() => stopProcess(worker.child));
    const started = await Promise.allSettled(Array.from({ length: SERVERS }, () => spawnServe(env)));
    started.forEach((result, index) => {
      if (result.status !== 'fulfilled') return;
      servers.push(result.value);
      collectErrorLines(result.value.child, `server ${index + 1}`, errorLines);
      cleanup.unshift(() => stopProcess(result.value.child));
    });
    const failedStart = started.find((result) => result.status === 'rejected');
    if (failedStart) throw failedStart.reason;
    await waitForOutput(worker, /"status":\s*"running"/);
    print(`soak: serving on ${servers.map((server) => server.url).join(', ')}; worker pid ${worker.child.pid}`);

    const run = new LoadRun(servers, world, warmupMs + options.durationMs, rateLimit);
    const sampler = sampleMemory(
      servers.map((server, index) => ({ name: `server ${index + 1}`, pid: server.child.pid as number })),
      worker,
      warmupMs,
      options.durationMs,
    );
    await Promise.all([
      ...Array.from({ length: eventClients }, (_, client) => run.eventClient(client)),
      run.readClient(0),
      run.readClient(1),
      ...Array.from({ length: LIMITED_KEYS * SERVERS }, (_, client) =>
        run.limitedClient(client % LIMITED_KEYS, client),
      ),
      run.adminClient(env),
      sampler.done,
    ]);
    print(`soak: load stopped; ${run.accepted.length} events accepted, waiting for the webhook backlog`);
    await drainWebhooks(cluster, world.orgId, options.durationMs);
    // A duplicate, if any, arrives after the delivery was recorded: give the worker a moment more.
    await sleep(2_000);

    const checks = [
      ...(await checkRateLimits(run.limited, rateLimit)),
      await checkWebhooks(cluster, world, receiver, signing.unverified),
      await checkEvents(cluster, world.orgId, run.accepted),
      ...checkMemory(sampler.series, options.memoryRatio ?? MEMORY_RATIO),
      {
        name: 'no unexpected answer',
        ok: run.failures.length === 0,
        detail:
          run.failures.length === 0
            ? `${Object.values(run.requests).reduce((sum, count) => sum + count, 0)} requests`
            : `${run.failures.length} failures: ${run.failures
                .slice(0, 5)
                .map((failure) => `${failure.what}: ${failure.status} ${failure.body.slice(0, 200)}`)
                .join('; ')}`,
      },
      {
        name: 'no error logged',
        ok: errorLines.length === 0,
        detail:
          errorLines.length === 0
            ? 'no line at level error or fatal from the servers and the worker'
            : `${errorLines.length} lines, the first: ${errorLines
                .slice(0, 3)
                .map((line) => line.slice(0, 1500))
                .join('\n')}`,
      },
    ];
    const windows = rateLimitWindows(run.limited);
    const report: SoakReport = {
      ok: checks.every((check) => check.ok),
      checks,
      figures: {
        requests: run.requests,
        rateLimit,
        eventsAccepted: run.accepted.length,
        webhooksDelivered: new Set(receiver.received.map((request) => String(request.headers['webhook-id']))).size,
        rateLimitWindows: windows,
        rssMegabytes: sampler.series,
      },
    };
    printReport(report, print);
    return report;
  } finally {
    for (const step of cleanup) await step().catch(() => {});
  }
}

/** Keeps the JSON log lines of `child`'s stderr at level error (50) or fatal (60), prefixed with `name`. */
function collectErrorLines(child: ChildProcess, name: string, into: string[]): void {
  let partial = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (/"level":\s*(50|60)\b/.test(line)) into.push(`${name}: ${line}`);
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
}

/** Resident memory of each process (and its children), every 1/40 of the run. */
function sampleMemory(
  processes: Array<{ name: string; pid: number }>,
  worker: Spawned,
  warmupMs: number,
  durationMs: number,
): { series: Record<string, number[]>; done: Promise<void> } {
  const all = [...processes, { name: 'worker', pid: worker.child.pid as number }];
  const series: Record<string, number[]> = Object.fromEntries(all.map(({ name }) => [name, []]));
  const intervalMs = Math.max(500, Math.floor(durationMs / 40));
  const done = (async () => {
    await sleep(warmupMs);
    const endsAt = Date.now() + durationMs;
    while (Date.now() < endsAt) {
      await sleep(intervalMs);
      for (const { name, pid } of all) series[name]?.push(rssMegabytes(pid));
    }
  })();
  return { series, done };
}

function rssMegabytes(pid: number): number {
  let kilobytes = 0;
  for (const member of processTree(pid)) {
    try {
      kilobytes += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${member}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // It exited in the meantime.
    }
  }
  return Math.round(kilobytes / 102.4) / 10;
}

/** Waits until every delivery of the org is delivered (or has failed), bounded by the run's length and 3 minutes. */
async function drainWebhooks(cluster: ThrowawayCluster, orgId: string, durationMs: number): Promise<void> {
  const endsAt = Date.now() + Math.max(180_000, durationMs);
  while (Date.now() < endsAt) {
    const [row] = await cluster.query<{ waiting: string }>(
      "SELECT count(*) AS waiting FROM webhook_deliveries WHERE org_id = $1 AND status = 'pending'",
      [orgId],
    );
    if (Number(row?.waiting) === 0) return;
    await sleep(250);
  }
}

function printReport(report: SoakReport, print: (line: string) => void): void {
  print('');
  print('requests:');
  for (const [kind, count] of Object.entries(report.figures.requests)) print(`  ${kind.padEnd(32)} ${count}`);
  print(`events accepted: ${report.figures.eventsAccepted}; webhooks received: ${report.figures.webhooksDelivered}`);
  print(`rate-limited keys (limit ${report.figures.rateLimit} per window), accepted by server 1/2/3 = total, refused:`);
  for (const window of report.figures.rateLimitWindows) {
    print(
      `  ${window.key} window ending ${new Date(window.window * 1000).toISOString()}: ${window.byServer.join('/')} = ${window.accepted}, ${window.refused} refused${window.unavailable > 0 ? `, ${window.unavailable} answered 503` : ''}`,
    );
  }
  print('RSS (MB), sampled over the run:');
  for (const [name, samples] of Object.entries(report.figures.rssMegabytes)) {
    print(`  ${name.padEnd(9)} ${samples.map((sample) => Math.round(sample)).join(' ')}`);
  }
  print('');
  for (const check of report.checks) print(`${check.ok ? 'PASS' : 'FAIL'}  ${check.name}: ${check.detail}`);
  print(report.ok ? 'soak: every check passed' : 'soak: FAILED');
}

/** `5m`, `90s`, `300000` (milliseconds). */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!match) throw new Error(`--duration ${text}: use e.g. 5m, 90s or 300000`);
  const value = Number(match[1]);
  return Math.round(match[2] === 'm' ? value * 60_000 : match[2] === 's' ? value * 1000 : value);
}

if (import.meta.main) {
  const index = process.argv.indexOf('--duration');
  const durationMs = parseDuration(index >= 0 ? (process.argv[index + 1] ?? '') : '5m');
  const report = await runSoak({ durationMs });
  process.exit(report.ok ? 0 : 1);
}
