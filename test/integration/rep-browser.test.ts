import assert from 'node:assert/strict';
import request from 'supertest';
import { describe } from 'vitest';
import { cliJson, onlyJson, runCli } from '../helpers/cli.ts';
import { awaitFreshWindow, eventually } from '../helpers/clock.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';
import { repClient, repWorld } from '../helpers/repWorld.ts';
import { testServices } from '../helpers/services.ts';

// Rep tokens from a browser (docs/rep-tokens.md): CORS by the org's allowed origins (never for API keys), the rep's
// own rate limit, the audit log naming the rep, the admin API's setting, and the portal's own tokens.

const test = fixtureTest.extend('world', { scope: 'file' }, async ({ db, server }) => repWorld(db, server));

const INTRANET = 'https://intranet.example';

describe('CORS', () => {
  test("a preflight is answered for an origin some org allows; a rep token's answer carries it, a key's never", async ({
    db,
    server,
    world,
  }) => {
    await testServices({ db }).admin.repAccess.set(world.orgId, { corsAllowedOrigins: [`${INTRANET}/`] });
    const preflight = (origin: string) =>
      request(server.url)
        .options('/v1/users')
        .set('origin', origin)
        .set('access-control-request-method', 'GET')
        .set('access-control-request-headers', 'authorization');
    const allowed = await preflight(INTRANET);
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers['access-control-allow-origin'], INTRANET);
    assert.match(allowed.headers['access-control-allow-headers'] ?? '', /Authorization/);
    const refused = await preflight('https://elsewhere.example');
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
    assert.notEqual(refused.status, 204);

    const { minted } = await repClient(server, world, world.a);
    const call = (token: string, origin: string) =>
      request(server.url).get('/v1/users').set('authorization', `Bearer ${token}`).set('origin', origin);
    const fromIntranet = await call(minted.token, INTRANET);
    assert.equal(fromIntranet.status, 200);
    assert.equal(fromIntranet.headers['access-control-allow-origin'], INTRANET);
    assert.match(fromIntranet.headers['access-control-expose-headers'] ?? '', /X-RateLimit-Remaining/);
    assert.match(fromIntranet.headers.vary ?? '', /Origin/);
    const fromElsewhere = await call(minted.token, 'https://elsewhere.example');
    assert.equal(fromElsewhere.status, 200);
    assert.equal(fromElsewhere.headers['access-control-allow-origin'], undefined);
    const withKey = await call(world.rawKey, INTRANET);
    assert.equal(withKey.status, 200);
    assert.equal(withKey.headers['access-control-allow-origin'], undefined, 'API keys never get CORS headers');

    // Another org's rep token does not get the headers of an origin only this org allows.
    const other = await testServices({ db }).api.repTokens.mint({
      orgId: world.other.orgId,
      minter: { kind: 'api_key', keyId: 'key_01kmz3v0c8e4b9s7d2qx6w5n1a' },
      userId: world.other.userId,
    });
    const otherOrg = await call(other.token, INTRANET);
    assert.equal(otherOrg.status, 200);
    assert.equal(otherOrg.headers['access-control-allow-origin'], undefined);

    // A revoked token's 401 is readable by the page, so it can fetch a new token.
    await world.client.repTokens.revoke(minted.id);
    const revoked = await call(minted.token, INTRANET);
    assert.equal(revoked.status, 401);
    assert.equal(revoked.headers['access-control-allow-origin'], INTRANET);
  });

  test('origins that are not origins are refused, naming them, and nothing changes', async ({ db, world }) => {
    const repAccess = testServices({ db }).admin.repAccess;
    const before = await repAccess.get(world.orgId);
    for (const bad of ['intranet.example', 'https://intranet.example/path', 'ftp://x.example', '*']) {
      await assert.rejects(repAccess.set(world.orgId, { corsAllowedOrigins: [bad] }), {
        code: 'invalid_body',
        message: /cors_allowed_origins\[0\]/,
      });
    }
    await assert.rejects(repAccess.set(world.orgId, { repRateLimitPerMinute: 0 }), { code: 'invalid_body' });
    assert.deepEqual(await repAccess.get(world.orgId), before);
  });
});

describe('the admin API', () => {
  test('an admin reads and sets the rep access settings; a viewer only reads them', async ({ signedIn }) => {
    const { org, client } = await signedIn('admin');
    const initial = await client.api.GET('/admin/v1/rep-access');
    assert.deepEqual(initial.data, { cors_allowed_origins: [], rep_rate_limit_per_minute: 300 });
    const set = await client.api.PUT('/admin/v1/rep-access', {
      body: { cors_allowed_origins: ['https://Intranet.example'], rep_rate_limit_per_minute: 120 },
    });
    assert.equal(set.response.status, 200);
    assert.deepEqual(set.data, { cors_allowed_origins: ['https://intranet.example'], rep_rate_limit_per_minute: 120 });
    const bad = await client.api.PUT('/admin/v1/rep-access', { body: { cors_allowed_origins: ['nope'] } });
    assert.equal(bad.response.status, 400);
    const viewer = await signedIn('viewer', org.id);
    assert.equal((await viewer.client.api.GET('/admin/v1/rep-access')).data?.rep_rate_limit_per_minute, 120);
    const refused = await viewer.client.api.PUT('/admin/v1/rep-access', { body: { rep_rate_limit_per_minute: 5 } });
    assert.equal(refused.response.status, 403);
  });
});

describe('the CLI', () => {
  test('keys create takes rep_tokens:write; orgs rep-access shows, sets and refuses', { timeout: 240_000 }, async ({
    db,
    world,
  }) => {
    const key = await cliJson<{ scopes: string[] }>([
      'keys',
      'create',
      '--org',
      world.orgId,
      '--name',
      'intranet',
      '--scopes',
      'rep_tokens:write',
    ]);
    assert.deepEqual(key.scopes, ['rep_tokens:write']);
    const set = await cliJson<{ cors_allowed_origins: string[]; rep_rate_limit_per_minute: number }>([
      'orgs',
      'rep-access',
      '--org',
      world.orgId,
      '--cors-origins',
      'https://a.example, https://b.example:8443',
      '--rep-rate-limit',
      '250',
    ]);
    assert.deepEqual(set.cors_allowed_origins, ['https://a.example', 'https://b.example:8443']);
    assert.equal(set.rep_rate_limit_per_minute, 250);
    const refused = await runCli(['orgs', 'rep-access', '--org', world.orgId, '--cors-origins', 'a.example', '--json']);
    assert.notEqual(refused.code, 0);
    assert.match((onlyJson(refused) as { reason: string }).reason, /cors_allowed_origins\[0\]/);
    const repAccess = testServices({ db }).admin.repAccess;
    assert.deepEqual(await repAccess.get(world.orgId), {
      cors_allowed_origins: set.cors_allowed_origins,
      rep_rate_limit_per_minute: 250,
    });
    await repAccess.set(world.orgId, { corsAllowedOrigins: [], repRateLimitPerMinute: 300 });
  });
});

describe('rate limit and audit', () => {
  test("every call of a rep counts against the rep's own bucket, across their tokens", async ({
    db,
    server,
    world,
  }) => {
    const repAccess = testServices({ db }).admin.repAccess;
    await repAccess.set(world.orgId, { repRateLimitPerMinute: 3 });
    try {
      await awaitFreshWindow();
      const first = await repClient(server, world, world.b);
      const second = await repClient(server, world, world.b);
      const statuses: number[] = [];
      let last: request.Response | undefined;
      for (const token of [first.minted.token, second.minted.token, first.minted.token, second.minted.token]) {
        last = await request(server.url).get('/v1/').set('authorization', `Bearer ${token}`);
        statuses.push(last.status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      assert.equal(last?.body.error, 'rate_limited');
      assert.equal(last?.headers['x-ratelimit-limit'], '3');
      assert.equal(last?.headers['x-ratelimit-remaining'], '0');
      assert.ok(Number(last?.headers['retry-after']) >= 1);
      // Another rep of the org has a bucket of their own; the org's key is untouched.
      const other = await repClient(server, world, world.c);
      const ofC = await request(server.url).get('/v1/').set('authorization', `Bearer ${other.minted.token}`);
      assert.equal(ofC.status, 200);
      assert.equal(ofC.headers['x-ratelimit-remaining'], '2');
      const withKey = await request(server.url).get('/v1/').set('authorization', `Bearer ${world.rawKey}`);
      assert.equal(withKey.headers['x-ratelimit-limit'], '1000');
    } finally {
      await repAccess.set(world.orgId, { repRateLimitPerMinute: 300 });
    }
  });

  test('a rep token call is audited with actor type rep, the rep as actor and the token', async ({
    db,
    server,
    world,
  }) => {
    const { client, minted } = await repClient(server, world, world.c);
    await client.users.get(world.c.userId);
    const entry = await eventually(async () => {
      const found = await db.auditEntry.findFirst({
        where: { org_id: world.orgId, actor_type: 'rep', action: 'request', route: '/v1/users/{id}' },
      });
      return found ?? undefined;
    });
    assert.equal(entry.actor, world.c.userId);
    assert.equal(entry.key_id, null);
    assert.equal(entry.status, 200);
    assert.deepEqual(entry.details, { rep_token_id: minted.id });
    const mint = await db.auditEntry.findFirst({
      where: {
        org_id: world.orgId,
        action: 'rep_token.created',
        details: { path: ['rep_token_id'], equals: minted.id },
      },
    });
    assert.equal(mint?.actor_type, 'api_key');
  });
});

describe('POST /portal/token', () => {
  test('mints a rep token for the signed-in rep through the same service; sign-out revokes it', async ({
    db,
    server,
    world,
  }) => {
    const link = await testServices({ db }).admin.portalAccess.createSignInLink({ orgId: world.orgId, rep: 'rep-a' });
    const signIn = await request(server.url)
      .post('/portal/link')
      .set('origin', server.url)
      .type('form')
      .send({ token: link.token });
    assert.equal(signIn.status, 303);
    const cookie = (signIn.headers['set-cookie'] as unknown as string[])[0]?.split(';')[0] as string;
    const signedIn = await eventually(
      async () =>
        (await db.auditEntry.findFirst({ where: { org_id: world.orgId, action: 'portal.signed_in' } })) ?? undefined,
    );
    assert.equal(signedIn.actor_type, 'rep');
    assert.equal(signedIn.actor, world.a.userId);

    assert.equal((await request(server.url).post('/portal/token').set('origin', server.url)).status, 401);
    const crossSite = await request(server.url)
      .post('/portal/token')
      .set('cookie', cookie)
      .set('origin', 'https://evil.example');
    assert.equal(crossSite.status, 403);
    assert.deepEqual(crossSite.body, { error: 'forbidden', reason: 'cross-origin requests to the portal are refused' });
    const crossSiteOut = await request(server.url)
      .post('/portal/sign-out')
      .set('cookie', cookie)
      .set('origin', 'https://evil.example');
    assert.deepEqual(
      [crossSiteOut.status, crossSiteOut.body.reason],
      [403, 'cross-origin requests to the portal are refused'],
    );

    const minted = await request(server.url).post('/portal/token').set('cookie', cookie).set('origin', server.url);
    assert.equal(minted.status, 201);
    assert.equal(minted.headers['cache-control'], 'no-store');
    assert.match(minted.body.token, /^qrt_[0-9a-f]{64}$/);
    assert.equal(minted.body.user_id, world.a.userId);
    const lifetime = Date.parse(minted.body.expires_at) - Date.now();
    assert.ok(lifetime <= 15 * 60_000 && lifetime > 14 * 60_000, `lives at most 15 minutes (${lifetime} ms)`);
    const stored = await db.repToken.findFirstOrThrow({ where: { id: minted.body.id } });
    assert.ok(stored.rep_session_id, 'bound to the portal session');
    assert.equal(stored.api_key_id, null);

    const context = await request(server.url).get('/v1/').set('authorization', `Bearer ${minted.body.token}`);
    assert.equal(context.body.principal, 'rep');
    assert.deepEqual(context.body.rep.visible_user_ids, [world.a.userId, world.c.userId]);

    const out = await request(server.url).post('/portal/sign-out').set('cookie', cookie).set('origin', server.url);
    assert.equal(out.status, 204);
    const after = await request(server.url).get('/v1/').set('authorization', `Bearer ${minted.body.token}`);
    assert.equal(after.status, 401);
    assert.equal(after.body.reason, 'the rep token has been revoked');
    const twice = await request(server.url).post('/portal/sign-out').set('cookie', cookie).set('origin', server.url);
    assert.equal(twice.status, 204);
  });
});
