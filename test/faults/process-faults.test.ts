import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createPrismaClient, type Database } from '../../src/db/prisma.ts';
import { createOrgWithKey } from '../factories/access.ts';
import { pause, startThrowawayCluster, type ThrowawayCluster } from './cluster.ts';
import { EventLoad, sendEvent } from './load.ts';

// `quotient serve` as a process, killed with SIGKILL under load or stopped with SIGTERM while a request outlives
// the grace period. What it acknowledged must be in the database with its audit entry; a request cut by the
// shutdown is either rolled back or audited. On a throwaway embedded cluster started here (see cluster.ts).

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

interface ServeProcess {
  child: ChildProcess;
  url: string;
}

async function startServe(env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['src/cli/main.ts', 'serve', '--json'], {
    env: {
      ...process.env,
      DATABASE_URL: cluster.url,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      QUOTIENT_WEBHOOK_WORKER: 'false',
      QUOTIENT_DB_POOL_SIZE: '8',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.resume();
  let output = '';
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    output += chunk.toString();
    try {
      return { child, url: (JSON.parse(output) as { url: string }).url };
    } catch {
      // The document is not complete yet.
    }
  }
  throw new Error(`quotient serve exited before serving: ${output}`);
}

async function auditedRequestIds(orgId: string, requestIds: string[]): Promise<Set<string>> {
  const rows = await cluster.query<{ request_id: string }>(
    'SELECT request_id FROM audit_entries WHERE org_id = $1 AND request_id = ANY($2::text[])',
    [orgId, requestIds],
  );
  return new Set(rows.map((row) => row.request_id));
}

describe('process faults', () => {
  test('kill -9 under load: every acknowledged event is in the database, with its audit entry', async () => {
    const { rawKey, org } = await createOrgWithKey(db, { rateLimit: 100_000 });
    const serve = await startServe();
    const load = new EventLoad(serve.url, rawKey).start(8);
    await load.until(() => load.acknowledged().length >= 60);
    serve.child.kill('SIGKILL');
    await once(serve.child, 'exit');
    await load.stop();

    const acknowledged = load.acknowledged();
    const keys = acknowledged.map((outcome) => outcome.dedupKey);
    const stored = await cluster.query<{ dedup_key: string }>(
      'SELECT dedup_key FROM source_events WHERE org_id = $1 AND dedup_key = ANY($2::text[])',
      [org.id, keys],
    );
    assert.equal(stored.length, keys.length, 'every acknowledged event is stored');
    const audited = await auditedRequestIds(
      org.id,
      acknowledged.map((outcome) => outcome.requestId),
    );
    const missing = acknowledged.filter((outcome) => !audited.has(outcome.requestId));
    assert.deepEqual(
      missing.map((outcome) => outcome.requestId),
      [],
      'every acknowledged write has its audit entry',
    );
  });

  test('SIGTERM while a request outlives the grace period: the request is rolled back or audited', async () => {
    const { rawKey, org } = await createOrgWithKey(db, { rateLimit: 100_000 });
    const serve = await startServe({ QUOTIENT_SHUTDOWN_GRACE_SECONDS: '1', QUOTIENT_DB_LOCK_TIMEOUT_MS: '600000' });
    assert.equal((await sendEvent(serve.url, rawKey, 'held-deal', 1)).status, 201);
    const lock = await cluster.holdInTransaction(
      'SELECT id FROM deals WHERE org_id = $1 AND external_id = $2 FOR UPDATE',
      [org.id, 'held-deal'],
    );
    const requestId = `req-held-${randomUUID()}`;
    const dedupKey = `held-${randomUUID()}`;
    const held = fetch(`${serve.url}/v1/deals/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({ external_id: 'held-deal', dedup_key: dedupKey, state: { amount_cents: 2 } }),
    }).then(
      (response) => response.status,
      () => null,
    );
    try {
      // The event's transaction is now waiting on the lock this test holds.
      while (
        (
          await cluster.query(
            "SELECT 1 FROM pg_stat_activity WHERE application_name LIKE 'quotient%' AND wait_event_type = 'Lock'",
          )
        ).length === 0
      ) {
        await pause(50);
      }
      serve.child.kill('SIGTERM');
      // The grace period ends and the server closes the request's connection without an answer.
      assert.equal(await held, null);
    } finally {
      await lock.release();
    }
    const [code] = (await once(serve.child, 'exit')) as [number | null];
    assert.equal(code, 0);

    const stored = await cluster.query('SELECT 1 FROM source_events WHERE org_id = $1 AND dedup_key = $2', [
      org.id,
      dedupKey,
    ]);
    const audited = await auditedRequestIds(org.id, [requestId]);
    assert.ok(stored.length === 0 || audited.has(requestId), 'the cut request was committed without an audit entry');
  });
});
