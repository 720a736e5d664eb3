import assert from 'node:assert/strict';
import request from 'supertest';
import { describe } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { onlyJson, runCli, SLOW_CLI_TEST_MS } from '../helpers/cli.ts';
import { awaitFreshWindow, eventually } from '../helpers/clock.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';
import { sdkClient } from '../helpers/sdk.ts';
import { startTestServer } from '../helpers/server.ts';
import { testServices } from '../helpers/services.ts';

// A second instance on the same database, for what must hold on every instance (revocation, shared limits).
const test = fixtureTest.extend('second', { scope: 'file' }, async ({ serverSettings }, { onCleanup }) => {
  const second = await startTestServer(serverSettings.env, serverSettings.options);
  onCleanup(() => second.close());
  return second;
});

// Calls that succeed or fail like an integrator's go through the SDK; supertest against the listening server
// stays where the test is about the wire itself: malformed headers and bodies, and the exact rate-limit and
// request-id headers.
function get(base: RunningServer, path: string, rawKey?: string) {
  const call = request(base.url).get(path);
  return rawKey ? call.set('authorization', `Bearer ${rawKey}`) : call;
}

describe('authentication', () => {
  test('a valid key reaches GET /v1/ and sees its org and its own metadata', async ({ newOrg }) => {
    const { org, key, rawKey, client } = await newOrg({ scopes: ['deals:read'], rateLimit: 77 });
    const context = await client.auth.get();
    assert.deepEqual(context.org, { id: org.id, name: org.name });
    assert.equal(context.principal, 'api_key');
    assert.ok(context.key, 'a key sees its own metadata');
    assert.equal(context.key.id, key.id);
    assert.equal(context.key.name, 'test key');
    assert.deepEqual(context.key.scopes, ['deals:read']);
    assert.equal(context.key.rate_limit_per_minute, 77);
    assert.equal(context.key.created_at, key.created_at.toISOString());
    assert.equal(JSON.stringify(context).includes(rawKey), false, 'the raw key is never echoed');
  });

  test('an unknown key is 401 invalid_key with the exact body', async ({ server }) => {
    const client = sdkClient(server, `qtn_${'a'.repeat(64)}`);
    await assert.rejects(client.auth.get(), {
      name: 'QuotientError',
      status: 401,
      body: { error: 'invalid_key', reason: 'the API key is unknown or revoked' },
    });
    assert.equal(client.lastRateLimit, undefined, 'a 401 is not an authenticated response');
  });

  test('a missing header is 401 unauthenticated with the exact body', async ({ server }) => {
    const response = await get(server, '/v1/');
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, {
      error: 'unauthenticated',
      reason: 'send the header "Authorization: Bearer <API key>"',
    });
  });

  test('a token of any other shape is invalid_key, not unauthenticated', async ({ server }) => {
    await assert.rejects(sdkClient(server, 'not-a-quotient-key').auth.get(), { status: 401, error: 'invalid_key' });
  });

  test('a revoked key stops working on the very next request, on every instance', async ({
    db,
    server,
    second,
    org,
    key,
    rawKey,
  }) => {
    const clients = [sdkClient(server, rawKey), sdkClient(second, rawKey)];
    for (const client of clients) assert.equal((await client.auth.get()).key?.id, key.id);
    await testServices({ db }).admin.keys.revoke(org.id, key.id);
    for (const client of clients) {
      await assert.rejects(client.auth.get(), { status: 401, error: 'invalid_key' });
    }
  });
});

describe('scopes', () => {
  test('a key without the scope gets 403 forbidden naming the scope', async ({ server, newOrg }) => {
    const { rawKey, client } = await newOrg({ scopes: ['deals:read'] });
    const cases: Array<[string, () => Promise<unknown>, string]> = [
      ['GET /v1/plans', () => client.plans.listPage(), 'plans:read'],
      ['GET /v1/plans/{id}', () => client.plans.get('plan_01jd0000000000000000000000'), 'plans:read'],
      ['GET /v1/earnings', () => client.earnings.listPage(), 'earnings:read'],
      ['GET /v1/earnings/{id}', () => client.earnings.get('earn_01jd0000000000000000000000'), 'earnings:read'],
    ];
    for (const [operation, call, scope] of cases) {
      await assert.rejects(
        call(),
        { status: 403, body: { error: 'forbidden', reason: `missing scope: ${scope}` } },
        operation,
      );
      assert.equal(client.lastRateLimit?.limit, 1000, 'a 403 carries the rate-limit headers');
    }
    const post = await request(server.url)
      .post('/v1/deals/events')
      .set('authorization', `Bearer ${rawKey}`)
      .set('content-type', 'application/json')
      .send('{"not valid json');
    assert.equal(post.status, 403, 'the scope is checked before the body');
    assert.deepEqual(post.body, { error: 'forbidden', reason: 'missing scope: deals:write' });
  });

  test('GET /v1/ needs no scope', async ({ newOrg }) => {
    const { org, client } = await newOrg({ scopes: ['plans:read'] });
    assert.equal((await client.auth.get()).org.id, org.id);
  });
});

describe('rate limits', () => {
  test('every authenticated response carries the rate-limit headers of the current window', async ({
    server,
    newOrg,
  }) => {
    const { rawKey } = await newOrg({ rateLimit: 5 });
    await awaitFreshWindow();
    const first = await get(server, '/v1/', rawKey);
    const secondResponse = await get(server, '/v1/', rawKey);
    const windowEnd = Math.floor(Date.now() / 60_000) * 60 + 60;
    assert.equal(first.get('x-ratelimit-limit'), '5');
    assert.equal(first.get('x-ratelimit-remaining'), '4');
    assert.equal(secondResponse.get('x-ratelimit-remaining'), '3');
    assert.equal(first.get('x-ratelimit-reset'), String(windowEnd));
    assert.equal(first.get('ratelimit-policy'), '"default";q=5;w=60');
    assert.match(secondResponse.get('ratelimit') ?? '', /^"default";r=3;t=\d+$/);
  });

  test('over the limit: 429 rate_limited with retry_after_seconds and Retry-After to the window end', async ({
    server,
    newOrg,
  }) => {
    const { rawKey } = await newOrg({ rateLimit: 2 });
    await awaitFreshWindow();
    await get(server, '/v1/', rawKey);
    await get(server, '/v1/', rawKey);
    const limited = await get(server, '/v1/', rawKey);
    assert.equal(limited.status, 429);
    const body = limited.body as { error: string; reason: string; retry_after_seconds: number };
    assert.equal(body.error, 'rate_limited');
    assert.ok(body.retry_after_seconds >= 1 && body.retry_after_seconds <= 60);
    assert.equal(limited.get('retry-after'), String(body.retry_after_seconds));
    assert.equal(limited.get('x-ratelimit-remaining'), '0');
    const expected = Math.ceil((Math.floor(Date.now() / 60_000) * 60_000 + 60_000 - Date.now()) / 1000);
    assert.ok(Math.abs(body.retry_after_seconds - expected) <= 1);
  });

  test('requests answered 4xx count against the limit too', async ({ server, newOrg }) => {
    const { rawKey } = await newOrg({ scopes: ['deals:read'], rateLimit: 3 });
    await awaitFreshWindow();
    assert.equal((await get(server, '/v1/plans', rawKey)).status, 403);
    assert.equal((await get(server, '/v1/plans', rawKey)).status, 403);
    const third = await get(server, '/v1/', rawKey);
    assert.equal(third.get('x-ratelimit-remaining'), '0');
    assert.equal((await get(server, '/v1/', rawKey)).status, 429);
  });

  test('rate limiting comes before the scope check', async ({ server, newOrg }) => {
    const { rawKey } = await newOrg({ scopes: ['deals:read'], rateLimit: 1 });
    await awaitFreshWindow();
    await get(server, '/v1/', rawKey);
    assert.equal((await get(server, '/v1/plans', rawKey)).status, 429);
  });

  test('60 concurrent requests on a key limited to 20 admit exactly 20, split across two instances', async ({
    server,
    second,
    newOrg,
  }) => {
    const { rawKey } = await newOrg({ rateLimit: 20 });
    await awaitFreshWindow(15);
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, index) => get(index % 2 === 0 ? server : second, '/v1/', rawKey)),
    );
    const statuses = responses.map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 200).length, 20);
    assert.equal(statuses.filter((status) => status === 429).length, 40);
    const remaining = responses
      .filter((response) => response.status === 200)
      .map((response) => Number(response.get('x-ratelimit-remaining')))
      .sort((a, b) => a - b);
    assert.deepEqual(
      remaining,
      Array.from({ length: 20 }, (_, index) => index),
    );
  });
});

describe('audit log and last use', () => {
  test('every authenticated request is audited off the response path and last_used_at moves', async ({
    db,
    server,
    second,
    newOrg,
  }) => {
    const { org, key, rawKey } = await newOrg({ scopes: ['deals:read'] });
    const ok = await get(server, '/v1/', rawKey);
    const forbidden = await get(second, '/v1/plans', rawKey);
    const entries = await eventually(async () => {
      const rows = await db.auditEntry.findMany({ where: { org_id: org.id, action: 'request' } });
      return rows.length === 2 ? rows : undefined;
    });
    const byRequest = new Map(entries.map((entry) => [entry.request_id, entry]));
    const okEntry = byRequest.get(ok.get('x-request-id') ?? null);
    assert.equal(okEntry?.route, '/v1/');
    assert.equal(okEntry?.method, 'GET');
    assert.equal(okEntry?.status, 200);
    assert.equal(okEntry?.key_id, key.id);
    assert.equal(byRequest.get(forbidden.get('x-request-id') ?? null)?.status, 403);
    const used = await eventually(async () => {
      const row = await db.apiKey.findFirst({ where: { id: key.id } });
      return row?.last_used_at ?? undefined;
    });
    assert.ok(used.getTime() > key.created_at.getTime());
  });

  test('a graceful shutdown under load loses no audit entry', async ({ db, newOrg }) => {
    const { org, rawKey } = await newOrg({ rateLimit: 100_000 });
    const instance = await startTestServer();
    const answered: string[] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) {
        try {
          const response = await get(instance, '/v1/', rawKey);
          answered.push(response.get('x-request-id') as string);
        } catch {
          return; // the server stopped accepting connections
        }
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    await eventually(async () => (answered.length >= 200 ? true : undefined), 30_000);
    await instance.close();
    stop = true;
    await Promise.all(workers);
    const audited = await db.auditEntry.findMany({
      where: { org_id: org.id, action: 'request' },
      select: { request_id: true },
    });
    const auditedIds = new Set(audited.map((entry) => entry.request_id));
    assert.ok(answered.length >= 200);
    assert.deepEqual(
      answered.filter((id) => !auditedIds.has(id)),
      [],
    );
    assert.equal(audited.length, answered.length);
  });
});

describe('quotient keys and audit commands', () => {
  test('keys create prints the raw key once; keys list never shows it', { timeout: SLOW_CLI_TEST_MS }, async () => {
    const org = onlyJson(await runCli(['orgs', 'create', '--name', 'Keys Inc', '--json'])) as { id: string };
    const created = await runCli([
      'keys',
      'create',
      '--org',
      org.id,
      '--name',
      'CRM sync',
      '--scopes',
      'deals:write,deals:read',
      '--rate-limit',
      '600',
      '--json',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const key = onlyJson(created) as Record<string, unknown>;
    assert.match(key.id as string, /^key_[0-7][0-9a-hjkmnp-tv-z]{25}$/);
    assert.match(key.key as string, /^qtn_[0-9a-f]{64}$/);
    assert.equal(key.name, 'CRM sync');
    assert.deepEqual(key.scopes, ['deals:write', 'deals:read']);
    assert.equal(key.rate_limit_per_minute, 600);

    const listed = await runCli(['keys', 'list', '--org', org.id, '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout.includes(key.key as string), false);
    const { keys } = onlyJson(listed) as { keys: Array<Record<string, unknown>> };
    assert.equal(keys.length, 1);
    assert.equal(keys[0]?.display_prefix, (key.key as string).slice(0, 12));
    assert.equal(keys[0]?.status, 'active');

    const revoked = await runCli(['keys', 'revoke', key.id as string, '--org', org.id, '--json']);
    assert.equal(revoked.code, 0, revoked.stderr);
    const first = onlyJson(revoked) as { status: string; revoked_at: string };
    assert.equal(first.status, 'revoked');
    assert.equal((first as { changed?: boolean }).changed, true);
    const revokedAgain = await runCli(['keys', 'revoke', key.id as string, '--org', org.id, '--json']);
    assert.equal(revokedAgain.code, 0, revokedAgain.stderr);
    const again = onlyJson(revokedAgain) as { revoked_at: string; changed: boolean };
    assert.equal(again.revoked_at, first.revoked_at, 'revoking twice keeps the first revocation time');
    assert.equal(again.changed, false, 'revoking a revoked key changes nothing');

    const audit = await runCli(['audit', '--org', org.id, '--json']);
    assert.equal(audit.code, 0, audit.stderr);
    const entries = (onlyJson(audit) as { entries: Array<{ action: string; target: string | null }> }).entries;
    assert.deepEqual(
      entries.map((entry) => [entry.action, entry.target]),
      [
        ['key.revoked', `key ${key.id}`],
        ['key.created', `key ${key.id}`],
      ],
    );
  });

  test("revoking a revoked key says nothing changed; the audit table names each action's key", async ({ org, key }) => {
    assert.equal((await runCli(['keys', 'revoke', key.id, '--org', org.id, '--json'])).code, 0);
    const human = await runCli(['keys', 'revoke', key.id, '--org', org.id]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /was already revoked .*; nothing changed/);
    const table = await runCli(['audit', '--org', org.id]);
    assert.equal(table.code, 0, table.stderr);
    const [header, ...lines] = table.stdout.trim().split('\n');
    assert.match(header ?? '', /\btarget\b/);
    assert.deepEqual(
      lines.map((line) => [/key\.(created|revoked)/.exec(line)?.[0], line.includes(`key ${key.id}`)]),
      [
        ['key.revoked', true],
        ['key.created', true],
      ],
    );
  });

  test('bad scopes, rate limits and unknown orgs are refused with clear errors', async () => {
    const org = onlyJson(await runCli(['orgs', 'create', '--name', 'Strict Inc', '--json'])) as { id: string };
    const cases: Array<[string[], string, RegExp]> = [
      [['--scopes', 'deals:delete'], 'invalid_argument', /unknown scope "deals:delete"/],
      [['--scopes', 'deals:read', '--rate-limit', '0'], 'invalid_argument', /from 1 to 100000/],
      [['--scopes', 'deals:read', '--rate-limit', '100001'], 'invalid_argument', /from 1 to 100000/],
      [['--scopes', 'deals:read', '--rate-limit', '2.5'], 'invalid_argument', /whole number/],
    ];
    for (const [extra, code, reason] of cases) {
      const result = await runCli(['keys', 'create', '--org', org.id, '--name', 'k', ...extra, '--json']);
      assert.equal(result.code, 2, extra.join(' '));
      const error = onlyJson(result) as { error: string; reason: string };
      assert.equal(error.error, code);
      assert.match(error.reason, reason);
    }
    const unknownOrg = await runCli([
      'keys',
      'create',
      '--org',
      'org_01jd0000000000000000000000',
      '--name',
      'k',
      '--scopes',
      'deals:read',
      '--json',
    ]);
    assert.equal(unknownOrg.code, 2);
    assert.equal((onlyJson(unknownOrg) as { error: string }).error, 'not_found');
    const listed = onlyJson(await runCli(['keys', 'list', '--org', org.id, '--json'])) as { keys: unknown[] };
    assert.deepEqual(listed.keys, [], 'nothing was created');
  });
});
