import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { describe } from 'vitest';
import { verifyWebhook } from '../../sdk/src/index.ts';
import type { WebhookSettings } from '../../src/config.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { inPrismaTransaction, prismaTransactor } from '../../src/repositories/transaction.ts';
import { enqueueWebhookEvent } from '../../src/services/webhookOutbox.ts';
import { WebhookWorker } from '../../src/webhooks/worker.ts';
import { createOrg } from '../factories/access.ts';
import { dealEvent } from '../factories/deals.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { exited, onlyJson, QUOTIENT_BIN, runCli, SLOW_CLI_TEST_MS, spawnServe } from '../helpers/cli.ts';
import { eventually } from '../helpers/clock.ts';
import { testDatabase } from '../helpers/database.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';
import {
  assertMatchesContract,
  type ReceivedWebhook,
  type Reply,
  startReceiver,
  verifyWithStandardWebhooks,
} from '../helpers/webhookReceiver.ts';

// Real receivers on 127.0.0.1 and real workers against the test database. Signatures are verified with the npm
// package `standardwebhooks`. The retry schedule is shortened by configuration, as QUOTIENT_WEBHOOK_RETRY_SCHEDULE
// does for a process.

const SETTINGS: Pick<
  WebhookSettings,
  'allowPrivateAddresses' | 'retryScheduleMs' | 'timeoutMs' | 'pollIntervalMs' | 'concurrency'
> = {
  allowPrivateAddresses: true,
  retryScheduleMs: [100, 100],
  timeoutMs: 2_000,
  pollIntervalMs: 20,
  concurrency: 4,
};

const LOCAL = { ...process.env, QUOTIENT_WEBHOOKS_ALLOW_PRIVATE: 'true' };

/** `quotient webhooks …args --json`, as an admin runs it. */
function webhooks(args: string[]) {
  return runCli(['webhooks', ...args, '--json'], LOCAL);
}

const admin = () => testServices().admin.webhooks;

/** A worker for the org's deliveries only: runs of the suite may share the database, each with its workers. */
function startWorker(orgId: string, settings: Partial<typeof SETTINGS> = {}): WebhookWorker {
  const worker = new WebhookWorker(
    prismaTransactor(testDatabase()),
    { ...SETTINGS, ...settings },
    createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    { orgIds: [orgId] },
  );
  worker.start();
  return worker;
}

/** An org, a receiver answering with `reply`, and an endpoint of the org pointing at it. */
async function setUp(reply?: (request: ReceivedWebhook) => Reply, events?: string[]) {
  const org = await createOrg(testDatabase());
  const receiver = await startReceiver(reply);
  const { endpoint, secret } = await createEndpoint(testDatabase(), org.id, receiver.url, events);
  return { org, receiver, endpoint, secret };
}

async function deliveryOf(messageId: string) {
  return testDatabase().webhookDelivery.findFirstOrThrow({
    where: { message_id: messageId },
    include: { attempts: { orderBy: [{ attempted_at: 'asc' }, { id: 'asc' }] } },
  });
}

async function settled(messageId: string, timeoutMs = 5_000) {
  return eventually(async () => {
    const delivery = await deliveryOf(messageId);
    return delivery.status !== 'pending' ? delivery : undefined;
  }, timeoutMs);
}

describe('webhook delivery', () => {
  test('a ping arrives signed (standardwebhooks and the SDK verify it), with the headers and payload of the contract', async () => {
    const { org, receiver, endpoint, secret } = await setUp();
    const worker = startWorker(org.id);
    try {
      const { message_id } = await admin().test(org.id, endpoint.id);
      const delivery = await settled(message_id);
      assert.equal(delivery.status, 'delivered');
      const [request, ...more] = receiver.requestsFor(message_id);
      assert.ok(request);
      assert.equal(more.length, 0);

      const payload = verifyWithStandardWebhooks(secret, request);
      assert.deepEqual(verifyWebhook(secret, request.body, request.headers), payload);
      assertMatchesContract(payload);
      assert.deepEqual((payload as { data: unknown }).data, { endpoint_id: endpoint.id });
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.headers['user-agent'], 'Quotient-Webhooks/1');
      assert.match(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
      assert.ok(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000) < 60);

      assert.equal(delivery.attempt_count, 1);
      assert.equal(delivery.attempts.length, 1);
      assert.equal(delivery.attempts[0]?.response_status, 204);
      assert.equal(delivery.attempts[0]?.error, null);
      assert.equal(typeof delivery.attempts[0]?.latency_ms, 'number');
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  test('during a secret rotation each request verifies with the old and with the new secret; afterwards only the new', async () => {
    const { org, receiver, endpoint, secret: oldSecret } = await setUp();
    const worker = startWorker(org.id);
    try {
      const { secret: newSecret, endpoint: rotated } = await admin().rotateSecret(org.id, endpoint.id);
      assert.notEqual(newSecret, oldSecret);
      const overlapHours = ((rotated.previous_secret_expires_at?.getTime() ?? 0) - Date.now()) / 3_600_000;
      assert.ok(overlapHours > 23.9 && overlapHours <= 24, `the old secret signs for 24 hours, not ${overlapHours}`);

      const during = await admin().test(org.id, endpoint.id);
      await settled(during.message_id);
      const [request] = receiver.requestsFor(during.message_id);
      assert.ok(request);
      assert.equal(String(request.headers['webhook-signature']).split(' ').length, 2);
      for (const secret of [oldSecret, newSecret]) {
        assertMatchesContract(verifyWithStandardWebhooks(secret, request));
        verifyWebhook(secret, request.body, request.headers);
      }

      await testDatabase().webhookEndpoint.updateMany({
        where: { id: endpoint.id },
        data: { previous_secret_expires_at: new Date(Date.now() - 1_000) },
      });
      const afterwards = await admin().test(org.id, endpoint.id);
      await settled(afterwards.message_id);
      const [late] = receiver.requestsFor(afterwards.message_id);
      assert.ok(late);
      verifyWithStandardWebhooks(newSecret, late);
      assert.throws(() => verifyWithStandardWebhooks(oldSecret, late), /No matching signature/);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  test('a receiver that fails twice gets the message on the third attempt; every attempt is recorded', async () => {
    const { org, receiver, endpoint, secret } = await setUp((request) => (request.number <= 2 ? 500 : 200));
    const worker = startWorker(org.id);
    try {
      const { message_id } = await admin().test(org.id, endpoint.id);
      const delivery = await settled(message_id);
      assert.equal(delivery.status, 'delivered');
      assert.deepEqual(
        delivery.attempts.map((attempt) => [attempt.response_status, attempt.error]),
        [
          [500, 'the endpoint answered 500'],
          [500, 'the endpoint answered 500'],
          [200, null],
        ],
      );
      const requests = receiver.requestsFor(message_id);
      assert.equal(requests.length, 3);
      assert.equal(new Set(requests.map((request) => request.body)).size, 1, 'every attempt sends the same body');
      for (const request of requests) verifyWithStandardWebhooks(secret, request);
      const health = await testDatabase().webhookEndpoint.findFirstOrThrow({ where: { id: endpoint.id } });
      assert.equal(health.failing_since, null, 'a success ends the run of failures');
      assert.equal(health.enabled, true);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  test('when the schedule runs out, the delivery has failed after one attempt more than there are delays', async () => {
    const { org, receiver, endpoint } = await setUp(() => 503);
    const worker = startWorker(org.id, { retryScheduleMs: [50, 50] });
    try {
      const { message_id } = await admin().test(org.id, endpoint.id);
      const delivery = await settled(message_id);
      assert.equal(delivery.status, 'failed');
      assert.equal(delivery.attempt_count, 3);
      assert.deepEqual(
        delivery.attempts.map((attempt) => attempt.response_status),
        [503, 503, 503],
      );
      assert.equal(delivery.next_attempt_at, null);
      const health = await testDatabase().webhookEndpoint.findFirstOrThrow({ where: { id: endpoint.id } });
      assert.ok(health.failing_since, 'the endpoint is failing');
      assert.equal(health.enabled, true, 'but not for 5 days yet');
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  test('a 410 reply disables the endpoint, ends its waiting deliveries and refuses new pings', async () => {
    const { org, receiver, endpoint } = await setUp(() => 410);
    const waiting = await admin().test(org.id, endpoint.id);
    await testDatabase().webhookDelivery.updateMany({
      where: { message_id: waiting.message_id },
      data: { next_attempt_at: new Date(Date.now() + 3_600_000) },
    });
    const worker = startWorker(org.id);
    try {
      const { message_id } = await admin().test(org.id, endpoint.id);
      const delivery = await settled(message_id);
      assert.equal(delivery.status, 'failed');
      assert.equal(delivery.attempt_count, 1, '410 is not retried');
      const disabled = await testDatabase().webhookEndpoint.findFirstOrThrow({ where: { id: endpoint.id } });
      assert.equal(disabled.enabled, false);
      assert.equal(disabled.disabled_reason, 'the endpoint answered 410 Gone');
      assert.ok(disabled.disabled_at);
      assert.equal((await deliveryOf(waiting.message_id)).status, 'failed');
      assert.equal(receiver.requestsFor(waiting.message_id).length, 0);
      await assert.rejects(admin().test(org.id, endpoint.id), /is disabled \(the endpoint answered 410 Gone\)/);

      // Nothing is written for a disabled endpoint.
      const announced = await inPrismaTransaction(testDatabase(), (tx) =>
        enqueueWebhookEvent(tx, org.id, 'period.paid', { period: PERIOD }, { timestamp: new Date() }),
      );
      assert.equal(announced, null);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  test('an endpoint that has failed without a success for 5 days is disabled, saying since when', async () => {
    const { org, receiver, endpoint } = await setUp(() => 500);
    const since = new Date(Date.now() - 5 * 86_400_000 - 60_000);
    await testDatabase().webhookEndpoint.updateMany({ where: { id: endpoint.id }, data: { failing_since: since } });
    const worker = startWorker(org.id);
    try {
      const { message_id } = await admin().test(org.id, endpoint.id);
      const delivery = await settled(message_id);
      assert.equal(delivery.status, 'failed');
      const disabled = await testDatabase().webhookEndpoint.findFirstOrThrow({ where: { id: endpoint.id } });
      assert.equal(disabled.enabled, false);
      assert.equal(disabled.disabled_reason, `every attempt failed for 5 days, since ${since.toISOString()}`);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  test('two workers on one database deliver each of 40 messages exactly once', async () => {
    const { org, receiver, endpoint } = await setUp();
    const db = testDatabase();
    const messageIds = await inPrismaTransaction(db, async (tx) => {
      const ids: string[] = [];
      for (let index = 0; index < 40; index++) {
        const enqueued = await enqueueWebhookEvent(
          tx,
          org.id,
          'period.locked',
          { period: PERIOD },
          { timestamp: new Date() },
        );
        assert.ok(enqueued);
        assert.deepEqual(enqueued.endpoint_ids, [endpoint.id]);
        ids.push(enqueued.message_id);
      }
      return ids;
    });
    const workers = [startWorker(org.id, { concurrency: 3 }), startWorker(org.id, { concurrency: 3 })];
    try {
      await eventually(async () => {
        const delivered = await db.webhookDelivery.count({
          where: { message_id: { in: messageIds }, status: 'delivered' },
        });
        return delivered === messageIds.length ? true : undefined;
      }, 15_000);
      for (const messageId of messageIds) {
        assert.equal(receiver.requestsFor(messageId).length, 1, `${messageId} was received once`);
      }
      const attempts = await db.webhookAttempt.count({ where: { delivery: { message_id: { in: messageIds } } } });
      assert.equal(attempts, messageIds.length);
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
      await receiver.close();
    }
  });

  test('redirects are not followed: a 3xx is a failed attempt', async () => {
    const { org, receiver, endpoint } = await setUp(() => 302);
    const worker = startWorker(org.id, { retryScheduleMs: [] });
    try {
      const { message_id } = await admin().test(org.id, endpoint.id);
      const delivery = await settled(message_id);
      assert.equal(delivery.status, 'failed');
      assert.equal(delivery.attempts[0]?.response_status, 302);
      assert.match(delivery.attempts[0]?.error ?? '', /^redirect to .* not followed/);
      assert.equal(receiver.requestsFor(message_id).length, 1);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  test('addresses are checked again at delivery: a name resolving to loopback, or a literal one, is refused', async () => {
    const { org, receiver, endpoint } = await setUp();
    const byName = await createEndpoint(testDatabase(), org.id, receiver.url.replace('127.0.0.1', 'localhost'));
    const worker = startWorker(org.id, { allowPrivateAddresses: false, retryScheduleMs: [] });
    try {
      const literal = await admin().test(org.id, endpoint.id);
      const named = await admin().test(org.id, byName.endpoint.id);
      const literalDelivery = await settled(literal.message_id);
      const namedDelivery = await settled(named.message_id);
      assert.equal(literalDelivery.attempts[0]?.error, 'refused: 127.0.0.1 is a loopback address');
      assert.match(
        namedDelivery.attempts[0]?.error ?? '',
        /^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
      );
      assert.equal(namedDelivery.attempts[0]?.response_status, null);
      assert.equal(receiver.received.length, 0, 'nothing reached the receiver');
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  test('redeliver gives a failed message one more attempt now, outside the schedule', async () => {
    const { org, receiver, endpoint } = await setUp((request) => (request.number === 1 ? 500 : 200));
    const worker = startWorker(org.id, { retryScheduleMs: [] });
    try {
      const { message_id } = await admin().test(org.id, endpoint.id);
      assert.equal((await settled(message_id)).status, 'failed');

      const result = await admin().redeliver(org.id, message_id);
      assert.deepEqual(result, {
        message_id,
        redelivered: [{ endpoint_id: endpoint.id, previous_status: 'failed' }],
      });
      const delivery = await settled(message_id);
      assert.equal(delivery.status, 'delivered');
      assert.deepEqual(
        delivery.attempts.map((attempt) => [attempt.response_status, attempt.manual]),
        [
          [500, false],
          [200, true],
        ],
      );
      assert.equal(receiver.requestsFor(message_id).length, 2);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  test('stop() lets the attempt in flight finish and records it before it resolves', async () => {
    const { org, receiver, endpoint } = await setUp(() => 'hold');
    const worker = startWorker(org.id);
    const { message_id } = await admin().test(org.id, endpoint.id);
    await eventually(async () => (receiver.requestsFor(message_id).length === 1 ? true : undefined));
    const stopped = worker.stop();
    setTimeout(() => receiver.release(200), 100);
    await stopped;
    const delivery = await deliveryOf(message_id);
    assert.equal(delivery.status, 'delivered');
    assert.equal(delivery.lease_id, null);
    await receiver.close();
  });

  test('a worker process killed mid-delivery leaves the message, which a restarted worker delivers', async () => {
    const { org, receiver, endpoint, secret } = await setUp((request) => (request.number === 1 ? 'hold' : 204));
    const { message_id } = await admin().test(org.id, endpoint.id);
    const env = {
      ...process.env,
      QUOTIENT_WEBHOOKS_ALLOW_PRIVATE: 'true',
      QUOTIENT_WEBHOOK_TIMEOUT_SECONDS: '2',
      QUOTIENT_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
      QUOTIENT_WEBHOOK_POLL_MS: '50',
      // Only this test's org: other test files, running alongside on the same database, own their deliveries.
      QUOTIENT_WEBHOOK_ORGS: org.id,
      LOG_LEVEL: 'warn',
    };
    const first = await spawnWorker(env);
    try {
      await eventually(async () => (receiver.requestsFor(message_id).length === 1 ? true : undefined), 10_000);
      first.kill('SIGKILL');
      await exited(first);
      assert.equal((await deliveryOf(message_id)).status, 'pending', 'the killed worker recorded nothing');
    } finally {
      first.kill('SIGKILL');
    }

    const second = await spawnWorker(env);
    try {
      const delivery = await settled(message_id, 20_000);
      assert.equal(delivery.status, 'delivered');
      assert.deepEqual(
        delivery.attempts.map((attempt) => [attempt.response_status, attempt.latency_ms, attempt.error]),
        [
          [null, null, 'no result: the worker stopped during the attempt; retried when its lease ran out'],
          [204, delivery.attempts[1]?.latency_ms, null],
        ],
      );
      const requests = receiver.requestsFor(message_id);
      assert.equal(requests.length, 2);
      for (const request of requests) verifyWithStandardWebhooks(secret, request);
    } finally {
      second.kill('SIGTERM');
      assert.equal(await exited(second), 0, 'SIGTERM stops the worker gracefully');
      await receiver.close();
    }
  });

  test('quotient webhooks test, deliveries and redeliver: a ping is delivered, listed with its attempts, sent again', {
    timeout: SLOW_CLI_TEST_MS,
  }, async () => {
    const org = await createOrg(testDatabase());
    const receiver = await startReceiver();
    const added = await runCli(['webhooks', 'add', '--org', org.id, '--url', receiver.url, '--json'], LOCAL);
    assert.equal(added.code, 0, added.stderr);
    const endpoint = onlyJson(added) as { id: string; secret: string };
    const worker = startWorker(org.id);
    try {
      const sent = await webhooks(['test', endpoint.id, '--org', org.id]);
      assert.equal(sent.code, 0, sent.stderr);
      const ping = onlyJson(sent) as { message_id: string; endpoint_id: string; type: string };
      assert.match(ping.message_id, /^msg_/);
      assert.deepEqual({ ...ping, message_id: 'msg' }, { message_id: 'msg', endpoint_id: endpoint.id, type: 'ping' });

      type DeliveryJson = {
        message_id: string;
        type: string;
        status: string;
        attempts: { response_status: number; latency_ms: number; error: string | null; manual: boolean }[];
      };
      const listDeliveries = async () => {
        const result = await webhooks(['deliveries', endpoint.id, '--org', org.id, '--limit', '5']);
        assert.equal(result.code, 0, result.stderr);
        return (onlyJson(result) as { deliveries: DeliveryJson[] }).deliveries;
      };
      const [delivered] = await eventually(async () => {
        const deliveries = await listDeliveries();
        return deliveries[0]?.status === 'delivered' ? deliveries : undefined;
      }, 15_000);
      assert.equal(delivered?.message_id, ping.message_id);
      assert.equal(delivered?.type, 'ping');
      assert.equal(delivered?.attempts.length, 1);
      assert.equal(delivered?.attempts[0]?.response_status, 204);
      assert.equal(typeof delivered?.attempts[0]?.latency_ms, 'number');
      const [request] = receiver.requestsFor(ping.message_id);
      assert.ok(request);
      verifyWithStandardWebhooks(endpoint.secret, request);

      const redelivered = await webhooks(['redeliver', ping.message_id, '--org', org.id]);
      assert.equal(redelivered.code, 0, redelivered.stderr);
      assert.deepEqual(onlyJson(redelivered), {
        message_id: ping.message_id,
        redelivered: [{ endpoint_id: endpoint.id, previous_status: 'delivered' }],
      });
      const [again] = await eventually(async () => {
        const deliveries = await listDeliveries();
        return deliveries[0]?.attempts.length === 2 ? deliveries : undefined;
      }, 15_000);
      assert.equal(again?.status, 'delivered');
      assert.deepEqual(
        again?.attempts.map((attempt) => attempt.manual),
        [false, true],
      );
      assert.equal(receiver.requestsFor(ping.message_id).length, 2, 'the same webhook-id, so receivers deduplicate');

      const badLimit = await webhooks(['deliveries', endpoint.id, '--org', org.id, '--limit', '0']);
      assert.equal(badLimit.code, 2);
      const unknown = await webhooks(['redeliver', 'msg_01kpnvms3revwrpbdf7c9gyz1x', '--org', org.id]);
      assert.equal(unknown.code, 2);
      assert.equal((onlyJson(unknown) as { error: string }).error, 'not_found');
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  test('a deal event sent through the API reaches the receiver as a verified deal.updated matching the contract', async ({
    db,
    org,
    client,
  }) => {
    const receiver = await startReceiver();
    const { secret } = await createEndpoint(db, org.id, receiver.url, ['deal.updated']);
    const worker = startWorker(org.id);
    try {
      const ids = await client.deals.ingestEvent(dealEvent());
      const [deal] = (await client.deals.listPage()).deals;
      const request = await eventually(async () => receiver.received[0]);
      const payload = verifyWithStandardWebhooks(secret, request);
      assertMatchesContract(payload);
      assert.deepEqual(payload, {
        type: 'deal.updated',
        timestamp: deal?.updated_at,
        data: { deal, domain_event: { id: ids.domain_event_id, kind: 'deal.created' } },
      });
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });

  // That the attempt in flight is recorded before the process exits is shown for the worker itself (stop(), above):
  // here another run of the suite on the same database may hold the attempt, so only the outcome is checked.
  test('quotient serve delivers webhooks by default, and a SIGTERM mid-attempt still exits cleanly', async () => {
    const { org, receiver, endpoint, secret } = await setUp((request) => (request.number === 2 ? 'hold' : 204));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      QUOTIENT_WEBHOOKS_ALLOW_PRIVATE: 'true',
      QUOTIENT_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
      // Only this test's org: other test files, running alongside on the same database, own their deliveries.
      QUOTIENT_WEBHOOK_ORGS: org.id,
      LOG_LEVEL: 'warn',
    };
    delete env.QUOTIENT_WEBHOOK_WORKER;
    const { child } = await spawnServe(env);
    try {
      const first = await admin().test(org.id, endpoint.id);
      assert.equal((await settled(first.message_id, 10_000)).status, 'delivered');
      const [request] = receiver.requestsFor(first.message_id);
      assert.ok(request);
      verifyWithStandardWebhooks(secret, request);

      const second = await admin().test(org.id, endpoint.id);
      await eventually(async () => (receiver.requestsFor(second.message_id).length === 1 ? true : undefined), 10_000);
      child.kill('SIGTERM');
      setTimeout(() => receiver.release(200), 100);
      assert.equal(await exited(child), 0);
      assert.equal((await settled(second.message_id, 10_000)).status, 'delivered');
    } finally {
      child.kill('SIGKILL');
      await receiver.close();
    }
  });
});

const PERIOD = {
  id: '2026-04',
  kind: 'monthly',
  starts_on: '2026-04-01',
  ends_on: '2026-04-30',
  status: 'locked',
} as const;

/** `quotient worker --json`, resolved once it printed that it runs. */
function spawnWorker(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [QUOTIENT_BIN, 'worker', '--json'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      try {
        const { status } = JSON.parse(stdout) as { status: string };
        if (status === 'running') done(child);
      } catch {
        // the document is not complete yet
      }
    });
    child.on('exit', (code) => fail(new Error(`quotient worker exited with ${code}: ${stderr}`)));
  });
}
