import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DealEventResult } from '../../sdk/src/index.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';
import { sdkClient } from '../helpers/sdk.ts';

// The SDK's safe retry of POST /v1/deals/events against the real server. A proxy between them lets the
// first request reach the server, waits for the server's answer, and then drops the connection instead
// of passing the answer on: the server has done the work but the client never hears of it.

const forwarded: Array<{ dedupKey: unknown; status: number; replayed: string | null }> = [];

const test = fixtureTest.extend('proxyUrl', { scope: 'file' }, async ({ server }, { onCleanup }) => {
  const proxy = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const upstream = await fetch(`${server.url}${request.url}`, {
      method: request.method ?? 'GET',
      headers: {
        authorization: request.headers.authorization ?? '',
        'content-type': request.headers['content-type'] ?? 'application/json',
      },
      ...(body ? { body } : {}),
    });
    const answer = await upstream.text();
    forwarded.push({
      dedupKey: body ? JSON.parse(body).dedup_key : undefined,
      status: upstream.status,
      replayed: upstream.headers.get('idempotent-replayed'),
    });
    if (forwarded.length === 1) {
      request.socket.destroy();
      return;
    }
    response.writeHead(upstream.status, { 'content-type': 'application/json' });
    response.end(answer);
  });
  await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
  onCleanup(async () => {
    proxy.closeAllConnections();
    await new Promise((closed) => proxy.close(closed));
  });
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});

test('a response lost after the server recorded the event: the SDK retries with the same dedup_key and the server keeps one event', async ({
  db,
  server,
  proxyUrl,
  newOrg,
}) => {
  const { org, rawKey } = await newOrg({ scopes: ['deals:write'] });
  const client = sdkClient({ ...server, url: proxyUrl }, rawKey);
  const event = { external_id: 'opp-lost-response', state: { stage: 'negotiation', amount_cents: 120_000 } };

  const outcome = await client.deals.ingestEvent(event).then(
    (result) => result,
    (error: unknown) => error,
  );

  assert.equal(forwarded.length, 2, `the event reached the server twice: ${JSON.stringify(forwarded)}`);
  const [first, second] = forwarded;
  assert.match(String(first?.dedupKey), /^sdk-/, 'the SDK filled the dedup_key');
  assert.equal(second?.dedupKey, first?.dedupKey, 'and sent the same one again');

  assert.ok(!(outcome instanceof Error), `ingestion failed: ${outcome}`);
  assert.deepEqual(
    forwarded.map(({ status, replayed }) => [status, replayed]),
    [
      [201, null],
      [200, 'true'],
    ],
    'the server recorded the event, then replayed its answer',
  );
  const sourceEvents = await db.sourceEvent.findMany({ where: { org_id: org.id } });
  assert.equal(sourceEvents.length, 1, 'one event, not two');
  assert.equal(sourceEvents[0]?.dedup_key, first?.dedupKey);
  assert.equal((outcome as DealEventResult).source_event_id, sourceEvents[0]?.id, 'the caller got the original ids');
});
