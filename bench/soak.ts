import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startThrowawayCluster, type ThrowawayCluster } from '../test/faults/cluster.ts';
import { onlyJson, runCli, spawnServe } from '../test/helpers/cli.ts';
import { processTree, type Spawned, spawnQuotient, waitForOutput } from '../test/helpers/processes.ts';
import { startReceiver, verifyWithStandardWebhooks, type WebhookReceiver } from '../test/helpers/webhookReceiver.ts';

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

export interface SoakCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface SoakReport {
  ok: boolean;
  checks: SoakCheck[];
  figures: {
    requests: Record<string, number>;
    rateLimit: number;
    eventsAccepted: number;
    webhooksDelivered: number;
    rateLimitWindows: Array<{
      key: string;
      window: number;
      accepted: number;
      refused: number;
      /** 503s: a request the database could not serve may or may not have been counted. */
      unavailable: number;
      byServer: number[];
    }>;
    rssMegabytes: Record<string, number[]>;
  };
}

const SERVERS = 3;
const REPS = 200;
const LIMITED_KEYS = 3;
const BATCH_SIZE = 20;
const PERIODS = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06'] as const;
const MEMORY_RATIO = 1.2;
const EXAMPLE_PLAN = fileURLToPath(new URL('../examples/plans/core-ae.yaml', import.meta.url));

interface Accepted {
  dedupKey: string;
  externalId: string;
  sourceEventId: string;
  domainEventId: string;
  dealId: string;
}

interface Limited {
  key: number;
  server: number;
  status: number | null;
  window: number | null;
}

interface Failure {
  what: string;
  status: number | null;
  body: string;
}

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
    for (let index = 0; index < SERVERS; index++) {
      const server = await spawnServe(env);
      servers.push(server);
      collectErrorLines(server.child, `server ${index + 1}`, errorLines);
      cleanup.unshift(() => stopProcess(server.child));
    }
    const worker = spawnQuotient(['worker', '--json'], env);
    collectErrorLines(worker.child, 'worker', errorLines);
    cleanup.unshift(() => stopProcess(worker.child));
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

interface World {
  orgId: string;
  key: string;
  limitedKeys: string[];
  endpointId: string;
  secret: string;
}

async function cli(env: NodeJS.ProcessEnv, args: string[]): Promise<unknown> {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`quotient ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return onlyJson(result);
}

/** The org, its keys, the example plan and the webhook endpoint, made with the CLI as an admin does. */
async function setUp(env: NodeJS.ProcessEnv, receiver: WebhookReceiver, rateLimit: number): Promise<World> {
  const org = (await cli(env, ['orgs', 'create', '--name', 'Soak'])) as { id: string };
  const key = async (name: string, scopes: string, limit: number) =>
    (
      (await cli(env, [
        'keys',
        'create',
        '--org',
        org.id,
        '--name',
        name,
        '--scopes',
        scopes,
        '--rate-limit',
        String(limit),
      ])) as { key: string }
    ).key;
  const main = await key('soak', 'deals:write,deals:read,earnings:read', 100_000);
  const limitedKeys: string[] = [];
  for (let index = 0; index < LIMITED_KEYS; index++) {
    limitedKeys.push(await key(`limited-${index}`, 'earnings:read', rateLimit));
  }
  await cli(env, ['plans', 'apply', EXAMPLE_PLAN, '--org', org.id]);
  const endpoint = (await cli(env, ['webhooks', 'add', '--org', org.id, '--url', receiver.url])) as {
    id: string;
    secret: string;
  };
  return { orgId: org.id, key: main, limitedKeys, endpointId: endpoint.id, secret: endpoint.secret };
}

/** The clients of one run, sharing what they record. */
class LoadRun {
  readonly accepted: Accepted[] = [];
  readonly limited: Limited[] = [];
  readonly failures: Failure[] = [];
  readonly requests: Record<string, number> = {};
  private readonly endsAt: number;
  private readonly startedAt = Date.now();
  private readonly servers: ReadonlyArray<{ url: string }>;
  private readonly world: World;
  private readonly durationMs: number;
  private readonly rateLimit: number;

  constructor(servers: ReadonlyArray<{ url: string }>, world: World, durationMs: number, rateLimit: number) {
    this.servers = servers;
    this.world = world;
    this.durationMs = durationMs;
    this.rateLimit = rateLimit;
    this.endsAt = this.startedAt + durationMs;
  }

  private running(): boolean {
    return Date.now() < this.endsAt;
  }

  /**
   * Whether a rate-limited key's clients go on: until the end of the run, and past it (by up to 3 minutes) until the
   * key was refused in some window, so that the check sees a window over the limit however slow the machine is.
   */
  private hammering(key: number): boolean {
    if (this.running()) return true;
    if (Date.now() > this.endsAt + 180_000) return false;
    return !this.limited.some((request) => request.key === key && request.status === 429);
  }

  private count(kind: string): void {
    this.requests[kind] = (this.requests[kind] ?? 0) + 1;
  }

  /**
   * One request as a client sends it. A `503 unavailable` (the database did not answer within the server's bounds,
   * as on a machine busier than the load) is retried after a second, with the same body and so the same dedup
   * keys, as the API asks clients to; up to five times, each counted. The rate-limited keys' requests are not
   * retried (`retry: false`): their 503s are recorded as they are.
   */
  private async request(
    server: number,
    path: string,
    key: string,
    body?: unknown,
    retry = true,
  ): Promise<{ status: number | null; text: string; headers: Headers | null }> {
    for (let attempt = 1; ; attempt++) {
      const answer = await this.once(server, path, key, body);
      if (answer.status !== 503 || !retry || attempt > 5) return answer;
      this.count('retried after 503');
      await sleep(1_000);
    }
  }

  private async once(
    server: number,
    path: string,
    key: string,
    body?: unknown,
  ): Promise<{ status: number | null; text: string; headers: Headers | null }> {
    try {
      const response = await fetch(`${this.servers[server]?.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, text: await response.text(), headers: response.headers };
    } catch (error) {
      return { status: null, text: String(error), headers: null };
    }
  }

  /** Deal events: new deals for many reps, some changed again, single or in batches, round robin over the servers. */
  async eventClient(client: number): Promise<void> {
    const own: string[] = [];
    // Every client sends at least one single event and one batch, however slow the machine.
    for (let sequence = 0; this.running() || sequence < 2; sequence++) {
      const server = (client + sequence) % this.servers.length;
      const event = () => {
        const change = own.length > 0 && Math.random() < 0.2;
        const externalId = change
          ? (own[Math.floor(Math.random() * own.length)] as string)
          : `soak-${client}-${own.push(`soak-${client}-${own.length}`) - 1}`;
        return {
          external_id: externalId,
          dedup_key: `soak-${client}-${sequence}-${Math.random().toString(36).slice(2)}`,
          state: {
            amount_cents: 100_000 + Math.floor(Math.random() * 5_000_000),
            stage: 'closed_won',
            close_date: `${PERIODS[Math.floor(Math.random() * PERIODS.length)]}-${String(1 + Math.floor(Math.random() * 28)).padStart(2, '0')}`,
            owner_external_id: `rep-${stableRep(externalId)}`,
            custom: { region: Math.random() < 0.5 ? 'NA' : 'EMEA', new_logo: Math.random() < 0.1 },
          },
        };
      };
      if (sequence % 5 === 1) {
        const events = Array.from({ length: BATCH_SIZE }, event);
        this.count('deal event batches');
        const answer = await this.request(server, '/v1/deals/events/batch', this.world.key, { events });
        if (answer.status !== 200) {
          this.failures.push({ what: 'POST /v1/deals/events/batch', status: answer.status, body: answer.text });
          continue;
        }
        const { results } = JSON.parse(answer.text) as { results: Array<Record<string, unknown>> };
        results.forEach((result, index) => {
          const sent = events[index] as ReturnType<typeof event>;
          // 200: a retry after a 503 found the event applied by the first attempt (its dedup key), with its ids.
          if (result.status === 201 || result.status === 200) this.accept(sent, result);
          else this.failures.push({ what: 'batch item', status: Number(result.status), body: JSON.stringify(result) });
        });
      } else {
        const sent = event();
        this.count('deal events');
        const answer = await this.request(server, '/v1/deals/events', this.world.key, sent);
        if (answer.status === 201 || answer.status === 200) {
          this.accept(sent, JSON.parse(answer.text) as Record<string, unknown>);
        } else this.failures.push({ what: 'POST /v1/deals/events', status: answer.status, body: answer.text });
      }
    }
  }

  private accept(sent: { external_id: string; dedup_key: string }, ids: Record<string, unknown>): void {
    this.accepted.push({
      dedupKey: sent.dedup_key,
      externalId: sent.external_id,
      sourceEventId: String(ids.source_event_id),
      domainEventId: String(ids.domain_event_id),
      dealId: String(ids.deal_id),
    });
  }

  /** Reads: earnings pages, a rep's statement, the payouts of the periods (409 while a period is open). */
  async readClient(client: number): Promise<void> {
    for (let sequence = 0; this.running(); sequence++) {
      const server = (client + sequence) % this.servers.length;
      const period = PERIODS[sequence % 2] as string;
      const reads: Array<[string, string, number[]]> = [
        ['GET /v1/earnings', `/v1/earnings?limit=50&period_id=${period}`, [200]],
        ['GET /v1/users', '/v1/users?limit=20', [200]],
        ['GET /v1/payouts', `/v1/payouts?period_id=${period}`, [200, 404, 409]],
      ];
      for (const [kind, path, expected] of reads) {
        this.count(kind);
        const answer = await this.request(server, path, this.world.key);
        if (answer.status === null || !expected.includes(answer.status)) {
          this.failures.push({ what: kind, status: answer.status, body: answer.text });
          continue;
        }
        if (kind === 'GET /v1/users' && answer.status === 200) {
          const { users } = JSON.parse(answer.text) as { users: Array<{ id: string }> };
          const user = users[sequence % Math.max(1, users.length)];
          if (!user) continue;
          this.count('GET statement');
          const statement = await this.request(server, `/v1/users/${user.id}/statements/${period}`, this.world.key);
          if (statement.status !== 200 && statement.status !== 404) {
            this.failures.push({ what: 'GET statement', status: statement.status, body: statement.text });
          }
        }
      }
    }
  }

  /** A client of one rate-limited key, hammering it past its limit, round robin over the three servers. */
  async limitedClient(key: number, client: number): Promise<void> {
    const raw = this.world.limitedKeys[key] as string;
    // One client per server and key, together about nine times the limit per window when answers are quick: every
    // window sees refusals, also on a busy machine, without flooding it.
    const pauseMs = Math.max(5, Math.floor(60_000 / (this.rateLimit * 3)));
    for (let sequence = Math.floor(client / LIMITED_KEYS); this.hammering(key); sequence++) {
      const server = sequence % this.servers.length;
      this.count('GET /v1/ (rate-limited keys)');
      const sentAt = Date.now();
      const answer = await this.request(server, '/v1/', raw, undefined, false);
      const reset = answer.headers?.get('x-ratelimit-reset');
      this.limited.push({
        key,
        server,
        status: answer.status,
        // A 503 carries no rate-limit headers: it belongs to the window it was sent in (the end of that minute).
        window:
          reset !== null && reset !== undefined
            ? Number(reset)
            : answer.status === 503
              ? Math.floor(sentAt / 60_000) * 60 + 60
              : null,
      });
      await sleep(pauseMs);
    }
  }

  /** An admin locking and paying periods with the CLI while the load runs. */
  async adminClient(env: NodeJS.ProcessEnv): Promise<void> {
    const actions: Array<[number, string[]]> = [
      [0.3, ['periods', 'lock', '2026-01']],
      [0.5, ['periods', 'mark-paid', '2026-01']],
      [0.7, ['periods', 'lock', '2026-02']],
    ];
    for (const [at, args] of actions) {
      const wait = this.startedAt + at * this.durationMs - Date.now();
      if (wait > 0) await sleep(wait);
      this.count('admin commands');
      const result = await runCli([...args, '--org', this.world.orgId, '--json'], env);
      if (result.code !== 0) {
        this.failures.push({ what: `quotient ${args.join(' ')}`, status: result.code, body: result.stderr });
      }
    }
  }
}

/** A deal keeps its rep: the rep is a function of the deal's external id, spread over REPS reps. */
function stableRep(externalId: string): number {
  let hash = 0;
  for (const char of externalId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % REPS;
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

function rateLimitWindows(limited: readonly Limited[]): SoakReport['figures']['rateLimitWindows'] {
  const windows = new Map<string, SoakReport['figures']['rateLimitWindows'][number]>();
  for (const request of limited) {
    if (request.window === null) continue;
    const id = `${request.key}:${request.window}`;
    const entry = windows.get(id) ?? {
      key: `limited-${request.key}`,
      window: request.window,
      accepted: 0,
      refused: 0,
      unavailable: 0,
      byServer: Array.from({ length: SERVERS }, () => 0),
    };
    if (request.status === 429) entry.refused++;
    else if (request.status === 503) entry.unavailable++;
    else if (request.status === 200) {
      entry.accepted++;
      entry.byServer[request.server] = (entry.byServer[request.server] ?? 0) + 1;
    }
    windows.set(id, entry);
  }
  return [...windows.values()].sort((a, b) => a.key.localeCompare(b.key) || a.window - b.window);
}

async function checkRateLimits(limited: readonly Limited[], rateLimit: number): Promise<SoakCheck[]> {
  const odd = limited.filter(
    (request) =>
      (request.status !== 200 && request.status !== 429 && request.status !== 503) || request.window === null,
  );
  const windows = rateLimitWindows(limited);
  // Exact: never more than N accepted, and exactly N in a window that refused any. A 503 (the database did not
  // answer in time) may have been counted before it failed: a window with u of them accepts between N - u and N.
  const wrong = windows.filter(
    (window) => window.accepted > rateLimit || (window.refused > 0 && window.accepted < rateLimit - window.unavailable),
  );
  const unavailable = windows.reduce((sum, window) => sum + window.unavailable, 0);
  const full = windows.filter((window) => window.refused > 0);
  return [
    {
      name: 'rate limits exact across processes',
      ok: odd.length === 0 && wrong.length === 0 && full.length > 0,
      detail:
        `${full.length} windows over the limit, each exactly ${rateLimit} accepted over ${SERVERS} servers` +
        (unavailable > 0 ? ` (${unavailable} answers 503: exact within them)` : '') +
        (wrong.length > 0 ? `; WRONG: ${JSON.stringify(wrong)}` : '') +
        (odd.length > 0 ? `; ${odd.length} answers neither 200 nor 429 (with X-RateLimit-Reset) nor 503` : '') +
        (full.length === 0 ? '; no window went over the limit' : ''),
    },
  ];
}

async function checkWebhooks(
  cluster: ThrowawayCluster,
  world: World,
  receiver: WebhookReceiver,
  unverified: number,
): Promise<SoakCheck> {
  const received = new Map<string, number>();
  for (const request of receiver.received) {
    const id = String(request.headers['webhook-id']);
    received.set(id, (received.get(id) ?? 0) + 1);
  }
  const deliveries = await cluster.query<{ message_id: string; status: string }>(
    'SELECT message_id, status FROM webhook_deliveries WHERE org_id = $1 AND endpoint_id = $2',
    [world.orgId, world.endpointId],
  );
  const [orphans] = await cluster.query<{ count: string }>(
    `SELECT count(*) AS count FROM webhook_messages m WHERE m.org_id = $1 AND NOT EXISTS
       (SELECT 1 FROM webhook_deliveries d WHERE d.org_id = m.org_id AND d.message_id = m.id AND d.endpoint_id = $2)`,
    [world.orgId, world.endpointId],
  );
  const expected = new Set(deliveries.map((delivery) => delivery.message_id));
  const duplicates = [...received].filter(([, count]) => count > 1).length;
  const lost = [...expected].filter((id) => !received.has(id)).length;
  const unknown = [...received.keys()].filter((id) => !expected.has(id)).length;
  const notDelivered = deliveries.filter((delivery) => delivery.status !== 'delivered').length;
  const ok =
    duplicates === 0 &&
    lost === 0 &&
    unknown === 0 &&
    notDelivered === 0 &&
    unverified === 0 &&
    !Number(orphans?.count);
  return {
    name: 'every webhook delivered once',
    ok: ok && expected.size > 0,
    detail: `${expected.size} messages, ${received.size} received; duplicates ${duplicates}, lost ${lost}, unknown ${unknown}, not delivered ${notDelivered}, bad signatures ${unverified}, messages without a delivery ${Number(orphans?.count)}`,
  };
}

async function checkEvents(
  cluster: ThrowawayCluster,
  orgId: string,
  accepted: readonly Accepted[],
): Promise<SoakCheck> {
  const sources = await cluster.query<{ dedup_key: string; id: string }>(
    'SELECT dedup_key, id FROM source_events WHERE org_id = $1 AND dedup_key = ANY($2::text[])',
    [orgId, accepted.map((event) => event.dedupKey)],
  );
  const sourceOf = new Map(sources.map((row) => [row.dedup_key, row.id]));
  const domains = await cluster.query<{ id: string; source_event_id: string; deal_id: string }>(
    'SELECT id, source_event_id, deal_id FROM domain_events WHERE org_id = $1 AND source_event_id = ANY($2::text[])',
    [orgId, accepted.map((event) => event.sourceEventId)],
  );
  const domainOf = new Map(domains.map((row) => [row.source_event_id, row]));
  const withEarnings = new Set(
    (
      await cluster.query<{ deal_id: string }>(
        'SELECT DISTINCT deal_id FROM earnings WHERE org_id = $1 AND deal_id = ANY($2::text[])',
        [orgId, [...new Set(accepted.map((event) => event.dealId))]],
      )
    ).map((row) => row.deal_id),
  );
  let noSource = 0;
  let noDomain = 0;
  let noEarnings = 0;
  for (const event of accepted) {
    if (sourceOf.get(event.dedupKey) !== event.sourceEventId) noSource++;
    const domain = domainOf.get(event.sourceEventId);
    if (domain?.id !== event.domainEventId || domain.deal_id !== event.dealId) noDomain++;
    if (!withEarnings.has(event.dealId)) noEarnings++;
  }
  return {
    name: 'no lost event',
    ok: accepted.length > 0 && noSource === 0 && noDomain === 0 && noEarnings === 0,
    detail: `${accepted.length} accepted events over ${new Set(accepted.map((event) => event.dealId)).size} deals; without source event ${noSource}, without domain event ${noDomain}, deal without earnings ${noEarnings}`,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function checkMemory(series: Record<string, number[]>, most: number): SoakCheck[] {
  return Object.entries(series)
    .filter(([name]) => name !== 'worker')
    .map(([name, samples]) => {
      const quarter = Math.floor(samples.length / 4);
      const second = samples.slice(quarter, 2 * quarter);
      const last = samples.slice(samples.length - quarter);
      const ratio = quarter > 0 ? median(last) / median(second) : Number.NaN;
      return {
        name: `memory flat: ${name}`,
        ok: quarter > 0 && ratio <= most,
        detail: `RSS median ${median(second).toFixed(1)} MB in the second quarter, ${median(last).toFixed(1)} MB in the last (${ratio.toFixed(2)}x, at most ${most}x)`,
      };
    });
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
