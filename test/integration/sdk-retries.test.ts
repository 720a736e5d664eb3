import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, test } from 'vitest';
import {
  type ClientOptions,
  createClient,
  QuotientConnectionError,
  QuotientError,
  QuotientTimeoutError,
} from '../../sdk/src/index.ts';

// The SDK's retry policy against a real HTTP server on port 0 that fails on purpose. Each fake server
// answers its n-th request with the n-th handler (the last one repeats) and records what it received.

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

type Handler = (request: Received, response: ServerResponse, socket: IncomingMessage['socket']) => void;

const servers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function fakeApi(...handlers: Handler[]) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(entry);
      const handler = handlers[Math.min(received.length, handlers.length) - 1];
      handler?.(entry, response, request.socket);
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((closed) => {
      server.closeAllConnections();
      server.close(() => closed());
    });
  servers.push({ close });
  return { url, received, close };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${status}`, ...headers });
    response.end(JSON.stringify(body));
  };
}

const dropConnection: Handler = (_request, _response, socket) => socket.destroy();
const neverAnswer: Handler = () => {};
const dropHalfwayThroughBody: Handler = (_request, response, socket) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
  response.write('{"org": {"id": ', () => socket.destroy());
};
const stallHalfwayThroughBody: Handler = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
  response.write('{"org": {"id": ');
};

const authContext = {
  org: { id: 'org_01kjpwd6m0f5pr4eb1a1rj5kc1', name: 'Acme' },
  key: {
    id: 'key_01kjpwpbk0e3mrfy75dj8kqqye',
    name: 'crm-sync',
    scopes: ['deals:write'],
    rate_limit_per_minute: 1000,
    created_at: '2026-04-22T10:00:00.000Z',
    last_used_at: null,
  },
};
const ingested = {
  source_event_id: 'se_01kpnvmrz8eyhbxhppkkbjkna2',
  domain_event_id: 'de_01kpnvmrz9ffzs5k8jyrg484rq',
  deal_id: 'deal_01kpnvmrz8f7z8pdg8ny07g73y',
};
const event = { external_id: 'opp-1043', state: { stage: 'closed_won', amount_cents: 5_000_000 } };
const serverError = json(500, { error: 'internal_error', reason: 'request id req_500' });
const unavailable = json(503, { error: 'unavailable', reason: 'the database is unreachable' });

function clientFor(url: string, options: Partial<ClientOptions> = {}) {
  return createClient({
    baseUrl: url,
    apiKey: 'qtn_test',
    backoff: { initialDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
}

describe('SDK retries: 5xx and connection failures', () => {
  test('a 500 then a 200: the call succeeds on the second attempt', async () => {
    const api = await fakeApi(serverError, json(200, authContext));
    assert.deepEqual(await clientFor(api.url).auth.get(), authContext);
    assert.equal(api.received.length, 2);
  });

  test('when every attempt fails with 5xx: three attempts by default, then the last error', async () => {
    const api = await fakeApi(serverError, serverError, unavailable);
    const failure = await clientFor(api.url)
      .auth.get()
      .then(
        () => assert.fail('expected a QuotientError'),
        (error: unknown) => error,
      );
    assert.ok(failure instanceof QuotientError);
    assert.equal(failure.status, 503);
    assert.equal(failure.error, 'unavailable');
    assert.equal(failure.requestId, 'req_503');
    assert.equal(api.received.length, 3);
  });

  test('maxRetries sets the attempts: 4 retries make five attempts, 0 makes one', async () => {
    const five = await fakeApi(serverError);
    await assert.rejects(clientFor(five.url, { maxRetries: 4 }).auth.get(), QuotientError);
    assert.equal(five.received.length, 5);
    const one = await fakeApi(serverError);
    await assert.rejects(clientFor(one.url).auth.get({ maxRetries: 0 }), QuotientError);
    assert.equal(one.received.length, 1);
  });

  test('maxRetries outside 0 to 4 is refused, since the API allows 5 attempts at most', async () => {
    for (const maxRetries of [-1, 5, 1.5, Number.NaN]) {
      assert.throws(() => clientFor('http://127.0.0.1:1', { maxRetries }), RangeError, String(maxRetries));
    }
    await assert.rejects(clientFor('http://127.0.0.1:1').auth.get({ maxRetries: 5 }), RangeError, 'per call');
  });

  test('every 5xx is retried, as the client guidance says', async () => {
    const api = await fakeApi(
      json(501, { error: 'internal_error' }),
      json(505, { error: 'internal_error' }),
      json(200, authContext),
    );
    assert.deepEqual(await clientFor(api.url).auth.get(), authContext);
    assert.equal(api.received.length, 3);
  });

  test('a dropped connection is retried, and after every attempt fails it is a QuotientConnectionError', async () => {
    const recovering = await fakeApi(dropConnection, json(200, authContext));
    assert.deepEqual(await clientFor(recovering.url).auth.get(), authContext);
    assert.equal(recovering.received.length, 2);

    const dead = await fakeApi(dropConnection);
    const failure = await clientFor(dead.url)
      .auth.get()
      .then(
        () => assert.fail('expected a connection error'),
        (error: unknown) => error,
      );
    assert.ok(failure instanceof QuotientConnectionError);
    assert.equal(failure instanceof QuotientTimeoutError, false);
    assert.equal(failure.attempts, 3);
    assert.match(failure.message, /^GET http:\/\/127\.0\.0\.1:\d+\/v1\/: connection failed, 3 attempts/);
    assert.equal(dead.received.length, 3);
  });

  test('a connection dropped or stalled halfway through the response body is retried too', async () => {
    const api = await fakeApi(dropHalfwayThroughBody, stallHalfwayThroughBody, json(200, authContext));
    assert.deepEqual(await clientFor(api.url, { timeoutMs: 200 }).auth.get(), authContext);
    assert.equal(api.received.length, 3);
  });

  test('a server that never answers: each attempt times out, then a QuotientTimeoutError', async () => {
    const api = await fakeApi(neverAnswer);
    const started = Date.now();
    const failure = await clientFor(api.url, { timeoutMs: 100, maxRetries: 1 })
      .auth.get()
      .then(
        () => assert.fail('expected a timeout'),
        (error: unknown) => error,
      );
    assert.ok(failure instanceof QuotientTimeoutError);
    assert.equal(failure.timeoutMs, 100);
    assert.equal(failure.attempts, 2);
    assert.equal(api.received.length, 2);
    assert.ok(Date.now() - started >= 200);
  });
});

describe('SDK retries: 429 and 4xx', () => {
  test('429 with Retry-After: the client waits that long, then retries once the window has reset', async () => {
    const api = await fakeApi(
      json(429, { error: 'rate_limited', reason: 'over the limit', retry_after_seconds: 1 }, { 'retry-after': '1' }),
      json(200, authContext),
    );
    assert.deepEqual(await clientFor(api.url).auth.get(), authContext);
    const [limited, retried] = api.received;
    assert.ok(limited && retried);
    assert.ok(retried.at - limited.at >= 990, `retried after ${retried.at - limited.at} ms`);
  });

  test('429 whose Retry-After is over maxRetryAfterSeconds fails at once, telling how long to wait', async () => {
    const api = await fakeApi(
      json(429, { error: 'rate_limited', reason: 'over the limit', retry_after_seconds: 42 }, { 'retry-after': '42' }),
    );
    const failure = await clientFor(api.url, { maxRetryAfterSeconds: 5 })
      .auth.get()
      .then(
        () => assert.fail('expected a QuotientError'),
        (error: unknown) => error,
      );
    assert.ok(failure instanceof QuotientError);
    assert.equal(failure.status, 429);
    assert.equal(failure.error, 'rate_limited');
    assert.equal(failure.retryAfterSeconds, 42);
    assert.equal(api.received.length, 1);
  });

  test('4xx is never retried, and the error carries status, code, reason and request id', async () => {
    const cases: Array<[number, string]> = [
      [400, 'invalid_body'],
      [401, 'invalid_key'],
      [403, 'forbidden'],
      [404, 'not_found'],
      [422, 'dedup_conflict'],
    ];
    for (const [status, code] of cases) {
      const api = await fakeApi(json(status, { error: code, reason: `because ${code}` }));
      const failure = await clientFor(api.url)
        .deals.ingestEvent(event)
        .then(
          () => assert.fail('expected a QuotientError'),
          (error: unknown) => error,
        );
      assert.ok(failure instanceof QuotientError);
      assert.equal(failure.status, status);
      assert.equal(failure.error, code);
      assert.equal(failure.reason, `because ${code}`);
      assert.equal(failure.requestId, `req_${status}`);
      assert.equal(failure.retryAfterSeconds, undefined);
      assert.equal(failure.message, `Quotient API ${status} ${code}: because ${code} (request id req_${status})`);
      assert.equal(api.received.length, 1, `${status} was sent once`);
    }
  });

  test('an error body that is not a Quotient error still becomes a QuotientError', async () => {
    const api = await fakeApi((_request, response) => {
      response.writeHead(418, { 'content-type': 'text/html' });
      response.end('<html>teapot</html>');
    });
    await assert.rejects(clientFor(api.url).auth.get(), {
      status: 418,
      error: 'http_418',
      body: '<html>teapot</html>',
    });
  });

  test('a signal aborts the wait before a retry', async () => {
    const api = await fakeApi(json(503, { error: 'unavailable' }, { 'retry-after': '30' }));
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(clientFor(api.url).auth.get({ signal: controller.signal }), { name: 'AbortError' });
    assert.ok(Date.now() - started < 5_000);
    assert.equal(api.received.length, 1);
  });
});

describe('SDK retries: POST /v1/deals/events stays idempotent', () => {
  test('a connection dropped after the server read the event: the retry carries the same SDK-made dedup_key', async () => {
    const api = await fakeApi(dropConnection, json(200, ingested, { 'idempotent-replayed': 'true' }));
    assert.deepEqual(await clientFor(api.url).deals.ingestEvent(event), ingested);
    assert.equal(api.received.length, 2, 'the server saw the event twice');
    const [first, second] = api.received.map((request) => JSON.parse(request.body));
    assert.match(first.dedup_key, /^sdk-[0-9a-f-]{36}$/);
    assert.equal(second.dedup_key, first.dedup_key);
    assert.deepEqual(second, { ...event, dedup_key: first.dedup_key });
  });

  test('5xx on POST is retried with the same dedup_key too', async () => {
    const api = await fakeApi(serverError, unavailable, json(201, ingested));
    await clientFor(api.url).deals.ingestEvent(event);
    const keys = new Set(api.received.map((request) => JSON.parse(request.body).dedup_key));
    assert.equal(api.received.length, 3);
    assert.equal(keys.size, 1);
  });

  test("the caller's own dedup_key is sent as it is", async () => {
    const api = await fakeApi(dropConnection, json(201, ingested));
    await clientFor(api.url).deals.ingestEvent({ ...event, dedup_key: 'crm-evt-88412:update' });
    assert.deepEqual(
      api.received.map((request) => JSON.parse(request.body).dedup_key),
      ['crm-evt-88412:update', 'crm-evt-88412:update'],
    );
  });

  test('each logical call gets its own key', async () => {
    const api = await fakeApi(json(201, ingested));
    const client = clientFor(api.url);
    await client.deals.ingestEvent(event);
    await client.deals.ingestEvent(event);
    const [first, second] = api.received.map((request) => JSON.parse(request.body).dedup_key);
    assert.notEqual(first, second);
  });

  test('the raw client fills and reuses the dedup_key as well', async () => {
    const api = await fakeApi(dropConnection, json(201, ingested));
    const { data, response } = await clientFor(api.url).raw.POST('/v1/deals/events', { body: event });
    assert.equal(response.status, 201);
    assert.deepEqual(data, ingested);
    const [first, second] = api.received.map((request) => JSON.parse(request.body).dedup_key);
    assert.match(first, /^sdk-/);
    assert.equal(second, first);
  });
});

describe('SDK requests', () => {
  test('every request carries the bearer key and a User-Agent naming the SDK and the application', async () => {
    const api = await fakeApi(json(200, authContext));
    await clientFor(api.url, { apiKey: 'qtn_abc', userAgent: 'acme-sync/2.3' }).auth.get({
      headers: { 'X-Request-Id': 'crm-sync-42' },
    });
    const [request] = api.received;
    assert.equal(request?.headers.authorization, 'Bearer qtn_abc');
    assert.match(request?.headers['user-agent'] ?? '', /^acme-sync\/2\.3 quotient-sdk-node\/0\.1\.0 node\/\d+/);
    assert.equal(request?.headers['x-request-id'], 'crm-sync-42');
  });

  test('lastRateLimit holds the rate-limit headers of the last response that had them', async () => {
    const api = await fakeApi(
      json(200, authContext, {
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '99',
        'x-ratelimit-reset': '1776852060',
      }),
      json(
        403,
        { error: 'forbidden' },
        { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '98', 'x-ratelimit-reset': '1776852060' },
      ),
      json(401, { error: 'invalid_key' }),
    );
    const client = clientFor(api.url);
    const lastRateLimit = () => client.lastRateLimit; // read afresh: TypeScript would keep an asserted value narrowed
    assert.equal(lastRateLimit(), undefined);
    await client.auth.get();
    assert.deepEqual(lastRateLimit(), { limit: 100, remaining: 99, resetAt: new Date(1_776_852_060_000) });
    await assert.rejects(client.plans.listPage(), { status: 403 });
    assert.equal(lastRateLimit()?.remaining, 98, 'error responses count');
    await assert.rejects(client.auth.get(), { status: 401 });
    assert.equal(lastRateLimit()?.remaining, 98, 'a response without the headers leaves the last values');
  });

  test('list iterates every item across pages, following next_cursor with the same filters', async () => {
    const deal = (id: string) => ({ id, external_id: id });
    const api = await fakeApi(
      json(200, { deals: [deal('deal_a'), deal('deal_b')], next_cursor: 'c2' }),
      json(200, { deals: [deal('deal_c')], next_cursor: 'c3' }),
      json(200, { deals: [], next_cursor: null }),
    );
    const ids: string[] = [];
    for await (const item of clientFor(api.url).deals.list({ status: 'won', limit: 2 })) ids.push(item.id);
    assert.deepEqual(ids, ['deal_a', 'deal_b', 'deal_c']);
    assert.deepEqual(
      api.received.map((request) => request.url),
      [
        '/v1/deals?status=won&limit=2',
        '/v1/deals?status=won&limit=2&cursor=c2',
        '/v1/deals?status=won&limit=2&cursor=c3',
      ],
    );
  });

  test('list fetches nothing until iterated and stops fetching when the loop breaks', async () => {
    const api = await fakeApi(json(200, { earnings: [{ id: 'earn_a' }, { id: 'earn_b' }], next_cursor: 'c2' }));
    const earnings = clientFor(api.url).earnings.list({ status: ['pending', 'approved'] });
    assert.equal(api.received.length, 0);
    for await (const earning of earnings) {
      assert.equal(earning.id, 'earn_a');
      break;
    }
    assert.deepEqual(
      api.received.map((request) => request.url),
      ['/v1/earnings?status=pending&status=approved'],
    );
  });

  test('pages() yields whole pages; a plan list is one page', async () => {
    const api = await fakeApi(json(200, { plans: [{ id: 'plan_a' }, { id: 'plan_b' }] }));
    const pages = [];
    for await (const page of clientFor(api.url).plans.list().pages()) pages.push(page);
    assert.equal(pages.length, 1);
    assert.equal(pages[0]?.plans.length, 2);
    assert.equal(api.received.length, 1);
  });

  test('path and query parameters are encoded', async () => {
    const api = await fakeApi(json(200, { id: 'plan_a' }));
    await clientFor(api.url).plans.get('plan/a b', { include: 'chips' });
    assert.equal(api.received[0]?.url, '/v1/plans/plan%2Fa%20b?include=chips');
  });
});
