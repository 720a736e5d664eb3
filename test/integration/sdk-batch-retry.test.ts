import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test as fixtureTest } from '../helpers/fixtures.ts';
import { sdkClient } from '../helpers/sdk.ts';

// The SDK's safe retry of POST /v1/deals/events/batch against the real server. A proxy lets the first request
// reach the server, waits for its answer, and drops the connection instead of passing it on: the server applied
// the batch but the client never heard of it.

const forwarded: Array<{ dedupKeys: unknown[]; statuses: number[] }> = [];

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
      dedupKeys: (JSON.parse(body) as { events: Array<{ dedup_key?: unknown }> }).events.map((e) => e.dedup_key),
      statuses: (JSON.parse(answer) as { results: Array<{ status: number }> }).results.map((r) => r.status),
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

test('a batch whose response was lost: the SDK retries with the same dedup keys, the server replays every event', async ({
  db,
  server,
  proxyUrl,
  newOrg,
}) => {
  const { org, rawKey } = await newOrg({ scopes: ['deals:write'] });
  const client = sdkClient({ ...server, url: proxyUrl }, rawKey);
  const events = [
    { external_id: 'opp-a', state: { stage: 'negotiation', amount_cents: 120_000 } },
    { external_id: 'opp-b', dedup_key: 'crm-b', state: { stage: 'closed_won', amount_cents: 80_000 } },
  ];

  const { results } = await client.deals.ingestEvents(events);

  assert.equal(forwarded.length, 2, `the batch reached the server twice: ${JSON.stringify(forwarded)}`);
  const [first, second] = forwarded;
  assert.match(String(first?.dedupKeys[0]), /^sdk-/, 'the SDK filled the missing dedup_key');
  assert.equal(first?.dedupKeys[1], 'crm-b', 'and kept the given one');
  assert.deepEqual(second?.dedupKeys, first?.dedupKeys, 'and sent the same keys again');
  assert.deepEqual(
    forwarded.map(({ statuses }) => statuses),
    [
      [201, 201],
      [200, 200],
    ],
  );
  const sourceEvents = await db.sourceEvent.findMany({ where: { org_id: org.id }, orderBy: { dedup_key: 'asc' } });
  assert.equal(sourceEvents.length, 2, 'two events, not four');
  assert.deepEqual(
    results.map((result) => result.source_event_id).sort(),
    sourceEvents.map((row) => row.id).sort(),
    'the caller got the original ids',
  );
});
