import assert from 'node:assert/strict';
import { afterAll, afterEach, beforeAll, describe, test } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createPrismaClient, type Database } from '../../src/db/prisma.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { type RunningServer, startServer } from '../../src/main.ts';
import { createOrgWithKey } from '../factories/access.ts';
import { startThrowawayCluster, type ThrowawayCluster } from './cluster.ts';
import { assertOnlyAcknowledgedOrUnavailable, assertUnavailable, EventLoad, type Outcome, sendEvent } from './load.ts';

// The server against a database that stops, drops its sessions, freezes or runs out of connections, under load.
// The server must stay up, answer every request (an acknowledgement, or 503 `unavailable` with Retry-After,
// never a 500 and never no answer), lose nothing it acknowledged, and serve again once the database is back.
// Each test runs on a throwaway embedded cluster it starts itself (see cluster.ts).

let cluster: ThrowawayCluster;
let db: Database;

beforeAll(async () => {
  cluster = await startThrowawayCluster();
  db = createPrismaClient(cluster.url, 2);
});

afterAll(async () => {
  await db?.$disconnect();
  await cluster?.destroy();
});

let server: RunningServer | undefined;
let load: EventLoad | undefined;

afterEach(async () => {
  cluster.thaw();
  await load?.stop();
  await server?.close();
  server = undefined;
  load = undefined;
});

// Short waits on the database, so that the tests under load see many of them expire.
const SHORT_TIMEOUTS = {
  QUOTIENT_DB_CONNECT_TIMEOUT_MS: '1000',
  QUOTIENT_DB_STATEMENT_TIMEOUT_MS: '2000',
  QUOTIENT_DB_LOCK_TIMEOUT_MS: '1000',
};

async function serve(
  timeouts: Record<string, string> = SHORT_TIMEOUTS,
): Promise<{ server: RunningServer; rawKey: string; orgId: string }> {
  server = await startServer(
    loadConfig({
      DATABASE_URL: cluster.url,
      HOST: '127.0.0.1',
      PORT: '0',
      QUOTIENT_DB_POOL_SIZE: '4',
      QUOTIENT_SHUTDOWN_GRACE_SECONDS: '2',
      QUOTIENT_WEBHOOK_WORKER: 'false',
      ...timeouts,
    }),
    createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  );
  const { rawKey, org } = await createOrgWithKey(db, { rateLimit: 100_000 });
  return { server, rawKey, orgId: org.id };
}

async function get(url: string, rawKey: string, path: string): Promise<Outcome> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${rawKey}` } });
  return {
    dedupKey: '',
    requestId: response.headers.get('x-request-id') ?? '',
    status: response.status,
    body: await response.json(),
    retryAfter: response.headers.get('retry-after'),
  };
}

/** Every acknowledged event is in source_events, exactly once. */
async function assertAcknowledgedPresent(orgId: string, outcomes: readonly Outcome[]): Promise<void> {
  const keys = outcomes.map((outcome) => outcome.dedupKey);
  const rows = await cluster.query<{ dedup_key: string }>(
    'SELECT dedup_key FROM source_events WHERE org_id = $1 AND dedup_key = ANY($2::text[])',
    [orgId, keys],
  );
  assert.deepEqual(new Set(rows.map((row) => row.dedup_key)), new Set(keys));
  assert.equal(rows.length, keys.length);
}

/** The server keeps serving until `count` more events have been acknowledged. */
async function recovered(current: EventLoad, count: number): Promise<void> {
  const before = current.acknowledged().length;
  await current.until(() => current.acknowledged().length >= before + count);
}

describe('database faults under load', () => {
  test.each(['fast', 'immediate'] as const)(
    'the database stopped (%s) under load: 503s while it is down, then service again without a restart',
    async (mode) => {
      const { server: running, rawKey, orgId } = await serve();
      load = new EventLoad(running.url, rawKey).start(8);
      await load.until(() => load?.acknowledged().length !== undefined && load.acknowledged().length >= 20);
      await cluster.stop(mode);
      const unavailableBefore = load.count(503);
      await load.until(() => (load as EventLoad).count(503) >= unavailableBefore + 10);
      await cluster.start();
      await recovered(load, 20);
      await load.stop();

      assert.equal(load.count(null), 0, 'every request got an answer');
      assertOnlyAcknowledgedOrUnavailable(load.outcomes);
      await assertAcknowledgedPresent(orgId, load.acknowledged());
      assert.equal((await get(running.url, rawKey, '/v1/')).status, 200);
    },
  );

  test('sessions terminated (pg_terminate_backend) under load: only the requests using them fail, with 503', async () => {
    const { server: running, rawKey, orgId } = await serve();
    load = new EventLoad(running.url, rawKey).start(8);
    for (let round = 0; round < 3; round++) {
      await recovered(load, 15);
      assert.ok((await cluster.terminateSessions()) > 0);
    }
    await recovered(load, 15);
    await load.stop();

    assert.equal(load.count(null), 0, 'every request got an answer');
    assertOnlyAcknowledgedOrUnavailable(load.outcomes);
    await assertAcknowledgedPresent(orgId, load.acknowledged());
    assert.equal((await get(running.url, rawKey, '/v1/deals')).status, 200);
  });

  test('the database frozen (SIGSTOP on the postmaster and its children): every route answers 503, then recovers', async () => {
    const { server: running, rawKey, orgId } = await serve();
    load = new EventLoad(running.url, rawKey).start(4);
    await recovered(load, 10);
    await cluster.freeze();
    try {
      // Each of these waits on a frozen database: the pool's timeouts must answer them.
      const during = await Promise.all([
        get(running.url, rawKey, '/v1/'),
        get(running.url, rawKey, '/v1/deals'),
        get(running.url, rawKey, '/v1/earnings'),
        get(running.url, rawKey, '/v1/plans'),
        sendEvent(running.url, rawKey, 'frozen-deal', 1),
      ]);
      for (const outcome of during) assertUnavailable(outcome);
    } finally {
      cluster.thaw();
    }
    await recovered(load, 10);
    await load.stop();

    assert.equal(load.count(null), 0, 'every request got an answer');
    assertOnlyAcknowledgedOrUnavailable(load.outcomes);
    await assertAcknowledgedPresent(orgId, load.acknowledged());
    assert.equal((await get(running.url, rawKey, '/v1/')).status, 200);
  });

  test('the database frozen, with the default timeouts: every route answers 503 within 10 s, a key not yet cached too', async () => {
    const { server: running, rawKey: cachedKey } = await serve({});
    assert.equal((await get(running.url, cachedKey, '/v1/')).status, 200);
    const { rawKey: uncachedKey } = await createOrgWithKey(db, { rateLimit: 100_000 });
    await cluster.freeze();
    let answers: { route: string; outcome: Outcome; ms: number }[];
    try {
      const timed = async (route: string, send: () => Promise<Outcome>) => {
        const started = performance.now();
        const outcome = await send();
        return { route, outcome, ms: Math.round(performance.now() - started) };
      };
      answers = await Promise.all([
        timed('GET /v1/ (a key not yet cached)', () => get(running.url, uncachedKey, '/v1/')),
        timed('GET /v1/', () => get(running.url, cachedKey, '/v1/')),
        timed('GET /v1/deals', () => get(running.url, cachedKey, '/v1/deals')),
        timed('GET /v1/earnings', () => get(running.url, cachedKey, '/v1/earnings')),
        timed('GET /v1/plans', () => get(running.url, cachedKey, '/v1/plans')),
        timed('POST /v1/deals/events', () => sendEvent(running.url, cachedKey, 'frozen-deal', 1)),
      ]);
    } finally {
      cluster.thaw();
    }
    for (const { route, outcome, ms } of answers) {
      assertUnavailable(outcome);
      assert.ok(ms < 10_000, `${route} answered after ${ms} ms`);
    }
  });

  test('the pool exhausted by events waiting on a row lock: 503 with Retry-After, bounded waits, then service', async () => {
    const { server: running, rawKey, orgId } = await serve();
    const first = await sendEvent(running.url, rawKey, 'locked-deal', 1);
    assert.equal(first.status, 201);
    const lock = await cluster.holdInTransaction(
      'SELECT id FROM deals WHERE org_id = $1 AND external_id = $2 FOR UPDATE',
      [orgId, 'locked-deal'],
    );
    let outcomes: Outcome[];
    try {
      outcomes = await Promise.all([
        ...Array.from({ length: 20 }, (_, index) => sendEvent(running.url, rawKey, 'locked-deal', index)),
        ...Array.from({ length: 20 }, (_, index) => sendEvent(running.url, rawKey, `free-deal-${index}`, index)),
        ...Array.from({ length: 10 }, () => get(running.url, rawKey, '/v1/deals')),
      ]);
    } finally {
      await lock.release();
    }
    const locked = outcomes.slice(0, 20);
    assert.ok(
      locked.some((outcome) => outcome.status === 503),
      'events waiting on the held lock time out as 503',
    );
    assertOnlyAcknowledgedOrUnavailable(outcomes);
    await assertAcknowledgedPresent(
      orgId,
      outcomes.filter((outcome) => outcome.dedupKey !== '' && (outcome.status === 201 || outcome.status === 200)),
    );
    assert.equal((await sendEvent(running.url, rawKey, 'locked-deal', 99)).status, 201);
  });
});
