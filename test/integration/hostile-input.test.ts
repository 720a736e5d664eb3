import assert from 'node:assert/strict';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe } from 'vitest';
import { dealEvent, postEvent } from '../factories/deals.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';

// Input the validator lets through but PostgreSQL or JavaScript cannot hold, malformed compressed bodies, routes
// that differ only by a trailing slash, names the query parser drops: each is a 400 (or 404/415) in the error
// format, never a 500, and writes nothing. Also: the security headers every response carries.

// The test's own org and key, and requests with that key that the SDK would not send.
const test = fixtureTest
  /** POST with the body bytes as given (postEvent would serialise a Buffer as JSON). */
  .extend('postBytes', async ({ server, rawKey }) => {
    return (body: Buffer, headers: Record<string, string>) =>
      fetch(`${server.url}/v1/deals/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json', ...headers },
        body,
      });
  })
  .extend('get', async ({ server, rawKey }) => {
    return (path: string) => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${rawKey}` } });
  });

async function expectRefused(response: Response, status: number, error: string, reasonStart?: string) {
  const body = (await response.json()) as { error: string; reason?: string };
  assert.equal(response.status, status, JSON.stringify(body));
  assert.equal(body.error, error);
  if (reasonStart !== undefined) assert.ok(body.reason?.startsWith(reasonStart), body.reason);
}

describe('text PostgreSQL cannot store, in query and path parameters', () => {
  test('a NUL in a deals filter is 400 invalid_body naming the parameter', async ({ get }) => {
    for (const name of ['external_id', 'stage', 'owner_external_id']) {
      await expectRefused(await get(`/v1/deals?${name}=a%00b`), 400, 'invalid_body', `${name}:`);
    }
  });

  test('a NUL in an earning or plan id is 400 invalid_body naming id', async ({ get }) => {
    await expectRefused(await get('/v1/earnings/%00'), 400, 'invalid_body', 'id:');
    await expectRefused(await get('/v1/plans/plan_%00'), 400, 'invalid_body', 'id:');
  });

  test('a path id that is not UTF-8 percent-encoding is 400 invalid_body naming id', async ({ get }) => {
    await expectRefused(await get('/v1/earnings/%ff'), 400, 'invalid_body', 'id:');
  });

  test('a NUL in an earnings filter is 400 invalid_body naming it', async ({ get }) => {
    await expectRefused(await get('/v1/earnings?deal_id=%00'), 400, 'invalid_body', 'deal_id:');
  });
});

describe('numbers JavaScript turns into Infinity', () => {
  test('limit=1e309 is 400 invalid_body naming limit on every list', async ({ get }) => {
    for (const list of ['/v1/deals?', '/v1/earnings?', '/v1/users?', '/v1/payouts?period_id=2026-06&']) {
      await expectRefused(await get(`${list}limit=1e309`), 400, 'invalid_body', 'limit:');
    }
  });
});

describe('date-times JavaScript cannot hold', () => {
  test('a leap second in updated_since or created_since is 400 invalid_body naming it, as in a body', async ({
    get,
  }) => {
    await expectRefused(
      await get('/v1/deals?updated_since=2026-06-30T23:59:60Z'),
      400,
      'invalid_body',
      'updated_since:',
    );
    await expectRefused(
      await get('/v1/earnings?created_since=2026-06-30T23:59:60Z'),
      400,
      'invalid_body',
      'created_since:',
    );
  });

  test('an ordinary date-time in a query still works', async ({ get }) => {
    assert.equal((await get('/v1/deals?updated_since=2026-06-30T23:59:59Z')).status, 200);
  });
});

describe('query names the parser would drop', () => {
  test('__proto__[x]=1 is refused like constructor[x]=1', async ({ get }) => {
    await expectRefused(await get('/v1/deals?__proto__[x]=1'), 400, 'invalid_body', '__proto__:');
    await expectRefused(await get('/v1/deals?__proto__%5Bx%5D=1'), 400, 'invalid_body', '__proto__:');
    await expectRefused(await get('/v1/deals?constructor[x]=1'), 400, 'invalid_body');
    await expectRefused(await get('/v1/deals?toString=1'), 400, 'invalid_body', 'toString:');
  });
});

describe('Content-Encoding', () => {
  const body = JSON.stringify(dealEvent());

  test.for(['gzip', 'deflate', 'br'])(
    'a body labelled %s that does not inflate is 400 invalid_json, writing nothing',
    async (encoding, { db, org, postBytes }) => {
      const dedupKey = `bad-${encoding}-${Date.now()}`;
      const response = await postBytes(Buffer.from(JSON.stringify(dealEvent({ dedup_key: dedupKey }))), {
        'content-encoding': encoding,
      });
      await expectRefused(response, 400, 'invalid_json');
      const written = await db.sourceEvent.count({ where: { org_id: org.id, dedup_key: dedupKey } });
      assert.equal(written, 0);
    },
  );

  test('an encoding the server does not support is 415 unsupported_media_type', async ({ server, rawKey }) => {
    await expectRefused(
      await postEvent(server, rawKey, body, { 'content-encoding': 'compress' }),
      415,
      'unsupported_media_type',
    );
  });

  test('a body that is valid gzip or brotli is accepted', async ({ postBytes }) => {
    const gzipped = await postBytes(gzipSync(body), { 'content-encoding': 'gzip' });
    assert.equal(gzipped.status, 201);
    const brotli = await postBytes(brotliCompressSync(JSON.stringify(dealEvent())), { 'content-encoding': 'br' });
    assert.equal(brotli.status, 201);
  });
});

describe('amounts the engine must sum', () => {
  test('a deal above 10^14 cents is 400 naming state.amount_cents; two of the largest for one rep under a tiered plan are both earned', async ({
    db,
    server,
    org,
    rawKey,
  }) => {
    await applyPlan(db, org.id, planDocument());
    const won = (externalId: string, amount: number) =>
      postEvent(server, rawKey, {
        external_id: externalId,
        state: { amount_cents: amount, stage: 'closed_won', owner_external_id: 'rep-big', close_date: '2026-06-10' },
      });
    await expectRefused(await won('huge-1', 2 ** 52), 400, 'invalid_body', 'state.amount_cents:');
    await expectRefused(await won('huge-2', 2 ** 53 - 1), 400, 'invalid_body', 'state.amount_cents:');
    assert.equal((await won('largest-1', 100_000_000_000_000)).status, 201);
    assert.equal((await won('largest-2', 100_000_000_000_000)).status, 201);
    assert.equal((await won('after', 5_000_000)).status, 201);
    const earnings = await db.earning.count({ where: { org_id: org.id, status: 'pending' } });
    assert.ok(earnings > 0);
  });
});

describe('routes', () => {
  test('POST /v1/deals/events/ with a trailing slash is 404 like any unknown route, and writes nothing', async ({
    db,
    server,
    org,
    rawKey,
  }) => {
    const dedupKey = `slash-${Date.now()}`;
    const response = await fetch(`${server.url}/v1/deals/events/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(dealEvent({ dedup_key: dedupKey })),
    });
    await expectRefused(response, 404, 'not_found');
    assert.equal(await db.sourceEvent.count({ where: { org_id: org.id, dedup_key: dedupKey } }), 0);
  });

  test('GET /v1/deals/ is 404; the root /v1/ is served with its slash', async ({ get }) => {
    await expectRefused(await get('/v1/deals/'), 404, 'not_found');
    assert.equal((await get('/v1/')).status, 200);
  });
});

describe('audit of writes', () => {
  test('an accepted event has its audit entry as soon as it is answered, in the same transaction', async ({
    db,
    server,
    org,
    rawKey,
  }) => {
    const response = await postEvent(server, rawKey, dealEvent());
    assert.equal(response.status, 201);
    const requestId = response.headers.get('x-request-id') as string;
    const entries = await db.auditEntry.findMany({ where: { org_id: org.id, request_id: requestId } });
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.status, 201);
    assert.equal(entries[0]?.route, '/v1/deals/events');
  });
});

describe('security headers', () => {
  test('API responses, errors included, forbid sniffing, framing and any active content', async ({ server, get }) => {
    for (const response of [
      await get('/v1/'),
      await get('/v1/nowhere'),
      await fetch(`${server.url}/v1/openapi.json`),
    ]) {
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    }
  });

  test('/docs allows its own scripts and styles and nothing from elsewhere', async ({ server }) => {
    const response = await fetch(`${server.url}/docs`);
    assert.equal(response.status, 200);
    const policy = response.headers.get('content-security-policy') ?? '';
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /script-src 'self'(;|$)/);
    assert.match(policy, /frame-ancestors 'none'/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
  });

  test('the admin console page has the same page policy: its own scripts and API only, never framed', async ({
    server,
  }) => {
    const response = await fetch(`${server.url}/admin/sign-in`);
    const policy = response.headers.get('content-security-policy') ?? '';
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /script-src 'self'(;|$)/);
    assert.match(policy, /connect-src 'self'(;|$)/);
    assert.match(policy, /frame-ancestors 'none'/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
  });
});
