import assert from 'node:assert/strict';
import request from 'supertest';
import { describe } from 'vitest';
import { test as fixtureTest } from '../helpers/fixtures.ts';
import { repClient, repWorld } from '../helpers/repWorld.ts';
import { sdkClient } from '../helpers/sdk.ts';
import { startTestServer } from '../helpers/server.ts';

// Rep tokens: minted and revoked by a key with rep_tokens:write, bounded lifetime, refused on the next call once
// revoked or expired, and the rep principal they carry (GET /v1/ says who).

const test = fixtureTest.extend('world', { scope: 'file' }, async ({ db, server }) => repWorld(db, server));

describe('POST /v1/rep-tokens', () => {
  test('mints a token for a rep by id or external id; the secret is shown once and stored hashed', async ({
    db,
    world,
  }) => {
    const byId = await world.client.repTokens.create({ user_id: world.a.userId });
    assert.match(byId.token, /^qrt_[0-9a-f]{64}$/);
    assert.match(byId.id, /^rtk_/);
    assert.equal(byId.user_id, world.a.userId);
    assert.equal(byId.revoked_at, null);
    const lifetime = Date.parse(byId.expires_at) - Date.parse(byId.created_at);
    assert.equal(lifetime, 900_000, 'the default lifetime is 15 minutes');
    const byExternal = await world.client.repTokens.create({ user_external_id: 'rep-b', ttl_seconds: 60 });
    assert.equal(byExternal.user_id, world.b.userId);
    assert.equal(Date.parse(byExternal.expires_at) - Date.parse(byExternal.created_at), 60_000);
    const stored = await db.repToken.findFirstOrThrow({ where: { id: byId.id } });
    assert.notEqual(stored.digest, byId.token);
    assert.equal(JSON.stringify(stored).includes(byId.token), false);
  });

  test('refuses a bad request, an unknown rep and a key without the scope', async ({ server, world, newOrg }) => {
    for (const body of [{}, { user_id: world.a.userId, user_external_id: 'rep-a' }]) {
      await assert.rejects(world.client.repTokens.create(body), { status: 400, error: 'invalid_body' });
    }
    for (const ttl of [59, 3601]) {
      await assert.rejects(world.client.repTokens.create({ user_id: world.a.userId, ttl_seconds: ttl }), {
        status: 400,
        error: 'invalid_body',
      });
    }
    await assert.rejects(world.client.repTokens.create({ user_external_id: 'rep-nobody' }), {
      status: 404,
      error: 'not_found',
    });
    await assert.rejects(world.client.repTokens.create({ user_id: world.other.userId }), {
      status: 404,
      error: 'not_found',
    });
    const { client } = await newOrg();
    await assert.rejects(client.repTokens.create({ user_external_id: 'rep-a' }), {
      status: 403,
      body: { error: 'forbidden', reason: 'missing scope: rep_tokens:write' },
    });
    const response = await request(server.url)
      .post('/v1/rep-tokens')
      .set('authorization', `Bearer ${world.rawKey}`)
      .send({ user_id: world.a.userId, extra: true });
    assert.equal(response.status, 400);
  });

  test('a rep token cannot mint or revoke tokens, nor write deals', async ({ server, world }) => {
    const { client, minted } = await repClient(server, world, world.a);
    await assert.rejects(client.repTokens.create({ user_id: world.a.userId }), {
      status: 403,
      body: { error: 'forbidden', reason: 'missing scope: rep_tokens:write' },
    });
    await assert.rejects(client.repTokens.revoke(minted.id), { status: 403, error: 'forbidden' });
    await assert.rejects(client.deals.ingestEvent({ external_id: 'x', state: { owner_external_id: 'rep-a' } }), {
      status: 403,
      body: { error: 'forbidden', reason: 'missing scope: deals:write' },
    });
  });
});

describe('the rep principal', () => {
  test('GET /v1/ says principal rep, the rep, the expiry and who the rep sees', async ({ server, world }) => {
    const { client, minted } = await repClient(server, world, world.a);
    const context = await client.auth.get();
    assert.equal(context.principal, 'rep');
    assert.equal(context.key, undefined);
    assert.equal(context.org.id, world.orgId);
    assert.deepEqual(context.rep, {
      token_id: minted.id,
      user_id: world.a.userId,
      external_id: 'rep-a',
      display_name: null,
      expires_at: minted.expires_at,
      visible_user_ids: [world.a.userId, world.c.userId],
    });
    const b = await repClient(server, world, world.b);
    assert.deepEqual((await b.client.auth.get()).rep?.visible_user_ids, [world.b.userId]);
  });

  test('reads are limited to the rep and their reports', async ({ server, world }) => {
    const { client } = await repClient(server, world, world.a);
    const users = await client.users.listPage();
    assert.deepEqual(users.users.map((user) => user.id).sort(), [world.a.userId, world.c.userId].sort());
    const earnings = await client.earnings.listPage();
    assert.deepEqual(
      [...new Set(earnings.earnings.map((row) => row.user_id))].sort(),
      [world.a.userId, world.c.userId].sort(),
    );
    const deals = await client.deals.listPage();
    assert.deepEqual(
      deals.deals.map((deal) => deal.id).sort(),
      [world.a.wonDealId, world.a.openDealId, world.c.wonDealId, world.c.openDealId].sort(),
    );
    const plans = await client.plans.listPage();
    assert.deepEqual(plans.plans.map((plan) => plan.id).sort(), [world.a.planId, world.c.planId].sort());
    assert.deepEqual(await client.users.listPage({ external_id: 'rep-b' }), { users: [], next_cursor: null });
    await assert.rejects(client.earnings.get(world.b.earningId), { status: 404, error: 'not_found' });
    assert.equal((await client.earnings.get(world.c.earningId)).id, world.c.earningId);
  });
});

describe('revocation and expiry', () => {
  test('a revoked token is 401 invalid_key on its next call; revoking again is the same answer', async ({
    server,
    world,
  }) => {
    const { client, minted } = await repClient(server, world, world.a);
    assert.equal((await client.auth.get()).principal, 'rep');
    const revoked = await world.client.repTokens.revoke(minted.id);
    assert.equal(revoked.id, minted.id);
    assert.equal(typeof revoked.revoked_at, 'string');
    assert.equal('token' in revoked, false, 'the secret is never returned again');
    await assert.rejects(client.auth.get(), {
      status: 401,
      body: { error: 'invalid_key', reason: 'the rep token has been revoked' },
    });
    const again = await world.client.repTokens.revoke(minted.id);
    assert.equal(again.revoked_at, revoked.revoked_at);
  });

  test("another org's token id is 404", async ({ server, world, newOrg }) => {
    const { minted } = await repClient(server, world, world.a);
    const { client } = await newOrg({ scopes: ['rep_tokens:write'] });
    await assert.rejects(client.repTokens.revoke(minted.id), { status: 404, error: 'not_found' });
  });

  test("expiry follows the server's clock: past expires_at, the next call is refused", async ({ server, world }) => {
    const { minted } = await repClient(server, world, world.a);
    const later = await startTestServer({}, { now: () => new Date(Date.now() + 16 * 60_000) });
    try {
      await assert.rejects(sdkClient(later, minted.token).auth.get(), {
        status: 401,
        body: { error: 'invalid_key', reason: 'the rep token has expired' },
      });
      assert.equal(
        (await sdkClient(server, minted.token).auth.get()).principal,
        'rep',
        'still live on a server at now',
      );
    } finally {
      await later.close();
    }
  });

  test('an expired token is 401 invalid_key saying so; an unknown one too', async ({ db, server, world }) => {
    const { client, minted } = await repClient(server, world, world.a, 60);
    assert.equal((await client.auth.get()).principal, 'rep');
    await db.repToken.updateMany({ where: { id: minted.id }, data: { expires_at: new Date(Date.now() - 1000) } });
    await assert.rejects(client.auth.get(), {
      status: 401,
      body: { error: 'invalid_key', reason: 'the rep token has expired' },
    });
    await assert.rejects(sdkClient(server, `qrt_${'0'.repeat(64)}`).auth.get(), {
      status: 401,
      body: { error: 'invalid_key', reason: 'the rep token is unknown' },
    });
  });
});
