import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { onlyJson, runCli } from '../test/helpers/cli.ts';
import type { WebhookReceiver } from '../test/helpers/webhookReceiver.ts';

// The load of the soak (bench/soak.ts): the org it runs in, made with the CLI, and the clients of one run (deal
// events single and in batches, reads, rate-limited keys, admin commands), recording what they were answered.

export interface Accepted {
  dedupKey: string;
  externalId: string;
  sourceEventId: string;
  domainEventId: string;
  dealId: string;
}

export interface Limited {
  key: number;
  server: number;
  status: number | null;
  window: number | null;
}

export interface Failure {
  what: string;
  status: number | null;
  body: string;
}

const REPS = 200;
export const LIMITED_KEYS = 3;
const BATCH_SIZE = 20;
const PERIODS = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06'] as const;
const EXAMPLE_PLAN = fileURLToPath(new URL('../examples/plans/core-ae.yaml', import.meta.url));
/** The `quotient serve` processes of a soak. */
export const SERVERS = 3;

export interface World {
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
export async function setUp(env: NodeJS.ProcessEnv, receiver: WebhookReceiver, rateLimit: number): Promise<World> {
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
export class LoadRun {
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
