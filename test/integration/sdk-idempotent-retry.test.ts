import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DealEventResult } from '../../sdk/src/index.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';
import { sdkClient } from '../helpers/sdk.ts';

// The SDK's safe retry of POST /v1/deals/events and POST /v1/deals/events/batch against the real server. A proxy
// between them lets the first request to each path reach the server, waits for the server's answer, and then drops
// the connection instead of passing the answer on: the server has done the work but the client never hears of it.

interface Forwarded {
  body: Record<string, unknown>;
  answer: Record<string, unknown>;
  status: number;
  replayed: string | null;
}

const forwarded = new Map<string, Forwarded[]>();

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
    const seen = forwarded.get(request.url ?? '') ?? [];
    forwarded.set(request.url ?? '', seen);
    seen.push({
      body: body ? JSON.parse(body) : {},
      answer: JSON.parse(answer),
      status: upstream.status,
      replayed: upstream.headers.get('idempotent-replayed'),
    });
    if (seen.length === 1) {
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

  const sent = forwarded.get('/v1/deals/events') ?? [];
  assert.equal(sent.length, 2, `the event reached the server twice: ${JSON.stringify(sent)}`);
  const [first, second] = sent.map(({ body }) => ({ dedupKey: body.dedup_key }));
  assert.match(String(first?.dedupKey), /^sdk-/, 'the SDK filled the dedup_key');
  assert.equal(second?.dedupKey, first?.dedupKey, 'and sent the same one again');

  assert.ok(!(outcome instanceof Error), `ingestion failed: ${outcome}`);
  assert.deepEqual(
    sent.map(({ status, replayed }) => [status, replayed]),
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

  const sent = (forwarded.get('/v1/deals/events/batch') ?? []).map(({ body, answer }) => ({
    dedupKeys: (body.events as Array<{ dedup_key?: unknown }>).map((event) => event.dedup_key),
    statuses: (answer.results as Array<{ status: number }>).map((result) => result.status),
  }));
  assert.equal(sent.length, 2, `the batch reached the server twice: ${JSON.stringify(sent)}`);
  const [first, second] = sent;
  assert.match(String(first?.dedupKeys[0]), /^sdk-/, 'the SDK filled the missing dedup_key');
  assert.equal(first?.dedupKeys[1], 'crm-b', 'and kept the given one');
  assert.deepEqual(second?.dedupKeys, first?.dedupKeys, 'and sent the same keys again');
  assert.deepEqual(
    sent.map(({ statuses }) => statuses),
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
