import assert from 'node:assert/strict';
import request from 'supertest';
import { describe } from 'vitest';
import { test as fixtureTest } from '../helpers/fixtures.ts';

const SPEC_ENDPOINTS: Array<[string, string]> = [
  ['GET', '/v1/'],
  ['GET', '/v1/deals'],
  ['POST', '/v1/deals/events'],
  ['GET', '/v1/earnings'],
  ['GET', '/v1/earnings/{id}'],
  ['GET', '/v1/plans'],
  ['GET', '/v1/plans/{id}'],
  ['GET', '/v1/openapi.json'],
];

// Requests the SDK would not send, against the file's server, with the test's own key where they need one.
const test = fixtureTest
  .extend('call', async ({ server }) => {
    return (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init);
  })
  /** supertest against the real listening server, for what the SDK would not send: malformed bodies and headers. */
  .extend('raw', async ({ server }) => {
    return () => request(server.url);
  })
  .extend('bearer', async ({ rawKey }) => {
    return (): Record<string, string> => ({ authorization: `Bearer ${rawKey}` });
  })
  .extend('withKey', async ({ rawKey }) => {
    return (init: RequestInit = {}): RequestInit => ({
      ...init,
      headers: { authorization: `Bearer ${rawKey}`, ...(init.headers as Record<string, string>) },
    });
  });

describe('operations endpoints', () => {
  test('healthz answers ok with a request id', async ({ call }) => {
    const response = await call('/healthz');
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok' });
    assert.match(response.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
  });

  test('readyz answers ready when the database is reachable', async ({ call }) => {
    const response = await call('/readyz');
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ready' });
  });

  test('a caller-supplied X-Request-Id is echoed back', async ({ raw }) => {
    const response = await raw().get('/healthz').set('x-request-id', 'crm-sync-42');
    assert.equal(response.headers['x-request-id'], 'crm-sync-42');
  });

  test('metrics are served in the Prometheus text format', async ({ call }) => {
    await call('/healthz');
    const response = await call('/metrics');
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await response.text();
    assert.match(text, /quotient_http_requests_total/);
    assert.match(text, /quotient_http_request_duration_seconds_bucket/);
    assert.match(text, /quotient_audit_queue_depth/);
  });

  test('the API reference page loads its renderer from this server, not a CDN', async ({ call }) => {
    const page = await call('/docs');
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /spec-url="\/v1\/openapi.json"/);
    assert.doesNotMatch(html, /https?:\/\//);
    const script = await call('/docs/redoc.standalone.js');
    assert.equal(script.status, 200);
    assert.ok((await script.text()).length > 100_000);
  });
});

describe('the contract', () => {
  test('is served without a key as OpenAPI 3.1 and describes every endpoint of the spec', async ({ call }) => {
    const response = await call('/v1/openapi.json');
    assert.equal(response.status, 200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    assert.match(document.openapi, /^3\.1\./);
    for (const [method, path] of SPEC_ENDPOINTS) {
      assert.ok(document.paths[path]?.[method.toLowerCase()], `${method} ${path} is in the contract`);
    }
  });
});

describe('authentication plumbing', () => {
  test.for(SPEC_ENDPOINTS.filter(([, path]) => path !== '/v1/openapi.json'))(
    '%s %s without a key answers 401 unauthenticated',
    async ([method, template], { call }) => {
      const response = await call(template.replace('{id}', 'earn_01jd0000000000000000000000'), { method });
      assert.equal(response.status, 401);
      assert.equal(((await response.json()) as { error: string }).error, 'unauthenticated');
      assert.ok(response.headers.get('x-request-id'));
    },
  );

  test('a header that is not "Bearer <token>" is unauthenticated', async ({ rawKey, raw }) => {
    for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', rawKey]) {
      const response = await raw().get('/v1/').set('authorization', header);
      assert.equal(response.status, 401, header);
      assert.equal(response.body.error, 'unauthenticated');
    }
  });

  test('a well-formed header with an unknown key is invalid_key', async ({ raw }) => {
    const response = await raw()
      .get('/v1/')
      .set('authorization', `Bearer qtn_${'0'.repeat(64)}`);
    assert.equal(response.status, 401);
    assert.equal(response.body.error, 'invalid_key');
  });

  test('an unauthenticated request with a broken body gets 401, not 400', async ({ raw }) => {
    const response = await raw()
      .post('/v1/deals/events')
      .set('content-type', 'application/json')
      .send('{"external_id": ');
    assert.equal(response.status, 401);
  });
});

describe('handlers', () => {
  test('every operation of the served contract has a handler: none answers 500 with a valid key', async ({
    call,
    withKey,
  }) => {
    const document = (await (await call('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    for (const [template, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item).filter((name) => ['get', 'post'].includes(name))) {
        const path = template.replace('{id}', 'earn_01jd0000000000000000000000');
        const init: RequestInit = { method: method.toUpperCase() };
        if (method === 'post') {
          init.headers = { 'content-type': 'application/json' };
          init.body = JSON.stringify({ external_id: 'handler-check', state: {} });
        }
        const response = await call(path, withKey(init));
        assert.ok(response.status < 500, `${method.toUpperCase()} ${template} answered ${response.status}`);
      }
    }
  });
});

describe('error plumbing', () => {
  test('an unknown route is 404 not_found', async ({ raw, bearer }) => {
    const response = await raw().get('/v1/nothing-here').set(bearer());
    assert.equal(response.status, 404);
    assert.equal(response.body.error, 'not_found');
  });

  test('a known route with the wrong method is 405 with Allow', async ({ raw, bearer }) => {
    const response = await raw().delete('/v1/plans').set(bearer());
    assert.equal(response.status, 405);
    assert.equal(response.headers.allow, 'GET, HEAD');
    assert.equal(response.body.error, 'method_not_allowed');
  });

  test('a body that is not JSON is 400 invalid_json', async ({ raw, bearer }) => {
    const response = await raw()
      .post('/v1/deals/events')
      .set(bearer())
      .set('content-type', 'application/json')
      .send('{"external_id": ');
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, { error: 'invalid_json', reason: 'the request body is not valid JSON' });
  });

  test.for<[unknown, RegExp]>([
    [{ state: {} }, /^external_id: /],
    [{ external_id: '', state: {} }, /^external_id: /],
    [{ external_id: 'd1', state: { amount_cents: 'lots' } }, /^state\.amount_cents: /],
    [{ external_id: 'd1', state: {}, event_type: 'merge' }, /^event_type: /],
    [{ external_id: 'd1' }, /^state: /],
  ])(
    'a body that does not match the schema is 400 invalid_body naming the field: %j',
    async ([body, reason], { raw, bearer }) => {
      const response = await raw()
        .post('/v1/deals/events')
        .set(bearer())
        .set('content-type', 'application/json')
        .send(JSON.stringify(body));
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(response.body.error, 'invalid_body');
      assert.match(response.body.reason, reason);
    },
  );

  test('a body over 1 MiB is 413 payload_too_large', async ({ raw, bearer }) => {
    const body = JSON.stringify({ external_id: 'd1', state: { notes: 'x'.repeat(1024 * 1024) } });
    const response = await raw()
      .post('/v1/deals/events')
      .set(bearer())
      .set('content-type', 'application/json')
      .send(body);
    assert.equal(response.status, 413);
    assert.equal(response.body.error, 'payload_too_large');
  });

  test('a body that is not application/json is 415 unsupported_media_type', async ({ raw, bearer }) => {
    const response = await raw()
      .post('/v1/deals/events')
      .set(bearer())
      .set('content-type', 'text/plain')
      .send('external_id=d1');
    assert.equal(response.status, 415);
    assert.equal(response.body.error, 'unsupported_media_type');
  });

  test('an unknown query parameter is 400 invalid_body naming it', async ({ raw, bearer }) => {
    const response = await raw().get('/v1/plans?colour=blue').set(bearer());
    assert.equal(response.status, 400);
    assert.equal(response.body.error, 'invalid_body');
    assert.match(response.body.reason, /colour/);
  });
});
