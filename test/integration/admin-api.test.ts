import assert from 'node:assert/strict';
import { describe, expect } from 'vitest';
import { stringify } from 'yaml';
import { loadAdminContract } from '../../src/http/contract.ts';
import { OperationTable } from '../../src/http/operations.ts';
import { createOrg } from '../factories/access.ts';
import { createAdmin } from '../factories/admins.ts';
import { dealEvent, ingest } from '../factories/deals.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { adminClient } from '../helpers/adminClient.ts';
import { test } from '../helpers/fixtures.ts';

// The admin API end to end: a real server on port 0, the real database, and openapi-fetch typed from the admin
// contract; the server validates its own responses against that contract. The sessions' clock is this file's,
// so expiry and the throttle window move without waiting.

let clock = new Date('2031-03-01T09:00:00.000Z').getTime();
const advance = (ms: number) => {
  clock += ms;
};

test.override('serverSettings', {
  env: { QUOTIENT_WEBHOOKS_ALLOW_PRIVATE: 'true' },
  options: { now: () => new Date(clock) },
});

const MINUTE = 60_000;

describe('admin sign-in and sessions', () => {
  test('signing in sets an HttpOnly SameSite=Strict cookie on /admin and returns the admin, the org and a CSRF token', async ({
    db,
    server,
  }) => {
    const org = await createOrg(db);
    const account = await createAdmin(db, org.id);
    const response = await fetch(`${server.url}/admin/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.200.0.1' },
      body: JSON.stringify({ email: account.email.toUpperCase(), password: account.password }),
    });
    assert.equal(response.status, 201);
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(
      /^quotient_admin_session=[A-Za-z0-9_-]{43}; Path=\/admin; Max-Age=\d+; HttpOnly; SameSite=Strict$/,
    );
    const body = (await response.json()) as { admin: { email: string }; org: unknown; csrf_token: unknown };
    assert.equal(body.admin.email, account.email);
    assert.deepEqual(body.org, { id: org.id, name: org.name });
    assert.equal(typeof body.csrf_token, 'string');
    assert.ok(response.headers.get('x-request-id'));
  });

  test('behind HTTPS (a trusted proxy says so) the cookie is Secure too', async ({ db, server }) => {
    const account = await createAdmin(db, (await createOrg(db)).id);
    const response = await fetch(`${server.url}/admin/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https', 'x-forwarded-for': '10.200.0.2' },
      body: JSON.stringify({ email: account.email, password: account.password }),
    });
    assert.equal(response.status, 201);
    expect(response.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  test('a wrong password and an unknown email get the same 401 invalid_credentials', async ({ db, server }) => {
    const account = await createAdmin(db, (await createOrg(db)).id);
    const client = adminClient(server);
    const wrong = await client.signIn(account.email, 'not the password');
    const unknown = await client.signIn(`nobody-${Date.now()}@example.com`, 'not the password');
    assert.equal(wrong.response.status, 401);
    assert.equal(unknown.response.status, 401);
    assert.deepEqual(wrong.error, unknown.error);
    assert.deepEqual(wrong.error, { error: 'invalid_credentials', reason: 'the email or the password is wrong' });
  });

  test('calls without the session cookie are 401 unauthenticated', async ({ server }) => {
    const client = adminClient(server);
    for (const call of [
      () => client.api.GET('/admin/v1/me'),
      () => client.api.GET('/admin/v1/api-keys'),
      () => client.api.POST('/admin/v1/api-keys', { body: { name: 'x', scopes: ['deals:read'] } }),
    ]) {
      const { response, error } = await call();
      assert.equal(response.status, 401);
      assert.equal(error?.error, 'unauthenticated');
    }
  });

  test('a change without the CSRF token, or from another origin, is 403 and changes nothing', async ({
    server,
    signedIn,
  }) => {
    const { account } = await signedIn();
    const noToken = adminClient(server, { csrf: false });
    await noToken.signIn(account.email, account.password);
    const refused = await noToken.api.POST('/admin/v1/api-keys', { body: { name: 'x', scopes: ['deals:read'] } });
    assert.equal(refused.response.status, 403);
    assert.equal(refused.error?.error, 'forbidden');
    expect(refused.error?.reason).toMatch(/X-CSRF-Token/);

    const otherSite = adminClient(server, { origin: 'https://evil.example' });
    await otherSite.signIn(account.email, account.password).catch(() => undefined);
    const crossOrigin = await otherSite.api.POST('/admin/v1/api-keys', { body: { name: 'x', scopes: ['deals:read'] } });
    assert.equal(crossOrigin.response.status, 403);

    const keys = await noToken.api.GET('/admin/v1/api-keys');
    assert.deepEqual(keys.data?.keys, []);
  });

  test('sign-in from another origin is refused', async ({ db, server }) => {
    const account = await createAdmin(db, (await createOrg(db)).id);
    const client = adminClient(server, { origin: 'https://evil.example' });
    const { response } = await client.signIn(account.email, account.password);
    assert.equal(response.status, 403);
  });

  test('sign-out ends the session on the server: the same cookie no longer works', async ({ signedIn }) => {
    const { client } = await signedIn();
    const cookie = client.cookie();
    const out = await client.api.DELETE('/admin/v1/sessions/current');
    assert.equal(out.response.status, 204);
    assert.equal(client.cookie(), '');
    client.setCookie(cookie);
    const after = await client.api.GET('/admin/v1/me');
    assert.equal(after.response.status, 401);
  });

  test('a session unused for the idle time ends; one in use ends at its absolute expiry', async ({ signedIn }) => {
    const { client } = await signedIn();
    advance(29 * MINUTE);
    assert.equal((await client.api.GET('/admin/v1/me')).response.status, 200);
    advance(31 * MINUTE);
    assert.equal((await client.api.GET('/admin/v1/me')).response.status, 401);

    const busy = await signedIn();
    for (let hours = 0; hours < 12 * 3; hours++) {
      advance(20 * MINUTE);
      const { response } = await busy.client.api.GET('/admin/v1/me');
      if (hours < 12 * 3 - 1) assert.equal(response.status, 200, `after ${(hours + 1) * 20} minutes`);
      else assert.equal(response.status, 401, 'at 12 hours');
    }
  });

  test("a disabled admin's session stops at once, and the account can no longer sign in", async ({
    services,
    server,
    signedIn,
  }) => {
    const { org, account, client } = await signedIn();
    assert.equal((await client.api.GET('/admin/v1/me')).response.status, 200);
    await services.admin.admins.disable(org.id, account.email);
    assert.equal((await client.api.GET('/admin/v1/me')).response.status, 401);
    const again = await adminClient(server).signIn(account.email, account.password);
    assert.equal(again.response.status, 401);
  });

  test('five failures for an email throttle it with 429 and retry_after_seconds, the right password too, until the window passes', async ({
    db,
    server,
  }) => {
    const account = await createAdmin(db, (await createOrg(db)).id);
    for (let attempt = 0; attempt < 5; attempt++) {
      // From different addresses: the account's own limit is what stops the sixth.
      const { response } = await adminClient(server).signIn(account.email, 'wrong');
      assert.equal(response.status, 401);
    }
    const throttled = await adminClient(server).signIn(account.email, account.password);
    assert.equal(throttled.response.status, 429);
    assert.equal(throttled.error?.error, 'rate_limited');
    assert.equal(throttled.error?.retry_after_seconds, 15 * 60);
    assert.equal(throttled.response.headers.get('retry-after'), String(15 * 60));
    advance(15 * MINUTE + 1000);
    assert.equal((await adminClient(server).signIn(account.email, account.password)).response.status, 201);
  });

  test('twenty failures from one address throttle that address, whatever the email', async ({ db, server }) => {
    const client = adminClient(server);
    for (let attempt = 0; attempt < 20; attempt++) {
      const { response } = await client.signIn(`guess-${attempt}-${Date.now()}@example.com`, 'wrong');
      assert.equal(response.status, 401);
    }
    const account = await createAdmin(db, (await createOrg(db)).id);
    assert.equal((await client.signIn(account.email, account.password)).response.status, 429);
    assert.equal((await adminClient(server).signIn(account.email, account.password)).response.status, 201);
    advance(15 * MINUTE + 1000);
  });
});

describe('admin API: roles and orgs', () => {
  test('a viewer reads everything and gets 403 on every change', async ({ server, signedIn }) => {
    const { client } = await signedIn('viewer');
    assert.equal((await client.api.GET('/admin/v1/api-keys')).response.status, 200);
    assert.equal((await client.api.GET('/admin/v1/periods')).response.status, 200);
    // Every operation that changes something, but signing in and out.
    const changes = new OperationTable(loadAdminContract() as never)
      .all()
      .filter(
        (operation) =>
          operation.method !== 'GET' && !['createSession', 'deleteSession'].includes(operation.operationId),
      );
    // Every change an admin API operation makes is the admin's only (each branch of work adds some: no fixed count).
    assert.ok(changes.length >= 18);
    for (const operation of changes) {
      assert.deepEqual(operation.requiredScopes, ['admin'], `${operation.operationId} needs the admin role`);
      const path = operation.pathTemplate.replace(
        '{id}',
        operation.pathTemplate.includes('periods') ? '2026-04' : 'x_1',
      );
      const response = await fetch(`${server.url}${path}`, {
        method: operation.method,
        headers: {
          cookie: client.cookie(),
          'x-csrf-token': client.csrf() ?? '',
          'content-type': 'application/json',
        },
        body: '{}',
      });
      assert.equal(response.status, 403, `${operation.operationId} must refuse a viewer`);
      assert.equal(((await response.json()) as { error: string }).error, 'forbidden');
    }
  });

  test('a session of org A sees nothing of org B: lists leave it out, ids are 404', async ({
    db,
    server,
    newOrg,
    signedIn,
  }) => {
    const other = await newOrg({ name: 'org B key' });
    const otherEndpoint = await createEndpoint(db, other.org.id, 'http://127.0.0.1:9/b');
    const otherPlan = await applyPlan(db, other.org.id, planDocument());
    await ingest(server, other.rawKey, dealEvent({}, { owner_external_id: 'rep-of-b' }));
    const { client } = await signedIn();

    assert.deepEqual((await client.api.GET('/admin/v1/api-keys')).data?.keys, []);
    assert.deepEqual((await client.api.GET('/admin/v1/plans')).data?.plans, []);
    assert.deepEqual((await client.api.GET('/admin/v1/webhook-endpoints')).data?.endpoints, []);
    assert.deepEqual((await client.api.GET('/admin/v1/reps')).data?.reps, []);
    assert.deepEqual((await client.api.GET('/admin/v1/admins')).data?.admins.length, 1);
    const otherRep = await db.user.findFirstOrThrow({ where: { org_id: other.org.id } });

    const byId = [
      await client.api.POST('/admin/v1/api-keys/{id}/revoke', { params: { path: { id: other.key.id } } }),
      await client.api.GET('/admin/v1/plans/{id}', { params: { path: { id: otherPlan.plan_id } } }),
      await client.api.POST('/admin/v1/plans/{id}/archive', { params: { path: { id: otherPlan.plan_id } } }),
      await client.api.GET('/admin/v1/webhook-endpoints/{id}/deliveries', {
        params: { path: { id: otherEndpoint.endpoint.id } },
      }),
      await client.api.POST('/admin/v1/webhook-endpoints/{id}/rotate-secret', {
        params: { path: { id: otherEndpoint.endpoint.id } },
      }),
      await client.api.GET('/admin/v1/reps/{id}/earnings', {
        params: { path: { id: otherRep.id }, query: { period: '2026-04' } },
      }),
      await client.api.POST('/admin/v1/reps/{id}/sign-in-links', { params: { path: { id: otherRep.id } } }),
      await client.api.POST('/admin/v1/reps/{id}/invitations', {
        params: { path: { id: otherRep.id } },
        body: { email: 'someone@example.com' },
      }),
    ];
    for (const { response } of byId) assert.equal(response.status, 404, response.url);
    const keyOfB = await db.apiKey.findFirstOrThrow({ where: { id: other.key.id } });
    assert.equal(keyOfB.revoked_at, null);
  });
});

describe('admin API: what the console does', () => {
  test('a key is created with its raw key once, used on /v1, listed with last_used_at, revoked, and refused after', async ({
    server,
    signedIn,
  }) => {
    const { client } = await signedIn();
    const created = await client.api.POST('/admin/v1/api-keys', {
      body: { name: 'CRM sync', scopes: ['deals:read'], rate_limit_per_minute: 120 },
    });
    assert.equal(created.response.status, 201);
    const raw = created.data?.raw_key as string;
    const id = created.data?.key.id as string;
    assert.equal(created.data?.key.rate_limit_per_minute, 120);
    const listed = await client.api.GET('/admin/v1/api-keys');
    assert.ok(!JSON.stringify(listed.data).includes(raw), 'the raw key is never listed');

    assert.equal((await fetch(`${server.url}/v1/`, { headers: { authorization: `Bearer ${raw}` } })).status, 200);
    let lastUsed: string | null | undefined = null;
    for (let tries = 0; tries < 100 && !lastUsed; tries++) {
      lastUsed = (await client.api.GET('/admin/v1/api-keys')).data?.keys.find((key) => key.id === id)?.last_used_at;
      if (!lastUsed) await new Promise((done) => setTimeout(done, 50));
    }
    assert.ok(lastUsed, 'last_used_at moves after a call');

    const revoked = await client.api.POST('/admin/v1/api-keys/{id}/revoke', { params: { path: { id } } });
    assert.equal(revoked.data?.status, 'revoked');
    const after = await fetch(`${server.url}/v1/`, { headers: { authorization: `Bearer ${raw}` } });
    assert.equal(after.status, 401);
    assert.equal(((await after.json()) as { error: string }).error, 'invalid_key');
  });

  test('a bad key request is 400 invalid_body and creates nothing', async ({ signedIn }) => {
    const { client } = await signedIn();
    const { response, error } = await client.api.POST('/admin/v1/api-keys', {
      body: { name: 'x', scopes: ['nope' as 'deals:read'] },
    });
    assert.equal(response.status, 400);
    assert.equal(error?.error, 'invalid_body');
    assert.deepEqual((await client.api.GET('/admin/v1/api-keys')).data?.keys, []);
  });

  test('a broken plan file is 422 with every problem, path and line, and nothing is applied', async ({ signedIn }) => {
    const { client } = await signedIn();
    const text =
      'key: broken\nname: Broken\nassignees: all\nchips:\n  - key: base\n    name: Base\n    kind: commission\n    rate_bps: lots\n';
    const { response, error } = await client.api.POST('/admin/v1/plan-files', {
      body: { text, file_name: 'broken.yaml' },
    });
    assert.equal(response.status, 422);
    assert.equal(error?.error, 'invalid_plan_file');
    expect(error?.reason).toMatch(/^broken\.yaml has 1 problem; nothing was applied$/);
    assert.deepEqual(error?.problems, [{ path: 'chips[0].rate_bps', line: 8, message: 'must be a number' }]);
    assert.deepEqual((await client.api.GET('/admin/v1/plans')).data?.plans, []);
  });

  test('plans: apply, a second version, the versions with chips in words and what changed, archive', async ({
    signedIn,
  }) => {
    const { client } = await signedIn();
    const document = planDocument();
    const first = await client.api.POST('/admin/v1/plan-files', { body: { text: stringify(document) } });
    assert.equal(first.response.status, 200, JSON.stringify(first.error));
    const planId = first.data?.plan_id as string;
    const chips = document.chips.slice(0, 3);
    (chips[0] as Record<string, unknown>).rate_bps = 1200;
    const second = await client.api.POST('/admin/v1/plan-files', {
      body: { text: JSON.stringify({ ...document, chips }), format: 'json' },
    });
    assert.equal(second.data?.version, 2);

    const plan = await client.api.GET('/admin/v1/plans/{id}', { params: { path: { id: planId } } });
    assert.equal(plan.data?.plan.current_version, 2);
    const [latest, earliest] = plan.data?.versions ?? [];
    assert.deepEqual(latest?.changes, {
      added: [],
      changed: ['base'],
      removed: ['quota-bonus'],
      unchanged: ['accelerator', 'new-logo'],
    });
    assert.deepEqual(earliest?.changes.added, ['base', 'accelerator', 'new-logo', 'quota-bonus']);
    assert.equal(latest?.chips[0]?.summary, 'Commission: 12.00% of the deal amount');
    assert.equal(latest?.chips[0]?.when, 'custom.region is one of EMEA, NA');
    expect(latest?.file).toMatch(/rate_bps: 1200/);

    const archived = await client.api.POST('/admin/v1/plans/{id}/archive', { params: { path: { id: planId } } });
    assert.equal(archived.data?.plan.status, 'archived');
    assert.equal(archived.data?.changed, true);
  });

  test("plans: the summary shows the current version's cap and draw, null without them", async ({ signedIn }) => {
    const { client } = await signedIn();
    const capped = planDocument({ cap_cents: 1_500_000, draw: { amount_cents: 300_000, recoverable: true } });
    const applied = await client.api.POST('/admin/v1/plan-files', { body: { text: stringify(capped) } });
    assert.equal(applied.response.status, 200, JSON.stringify(applied.error));
    const planId = applied.data?.plan_id as string;
    const plain = await client.api.POST('/admin/v1/plan-files', { body: { text: stringify(planDocument()) } });
    const plans = (await client.api.GET('/admin/v1/plans')).data?.plans ?? [];
    assert.deepEqual(
      plans.map((plan) => [plan.id, plan.cap_cents, plan.draw]),
      [
        [planId, 1_500_000, { amount_cents: 300_000, recoverable: true }],
        [plain.data?.plan_id, null, null],
      ],
    );
    const plan = await client.api.GET('/admin/v1/plans/{id}', { params: { path: { id: planId } } });
    assert.deepEqual(
      [plan.data?.plan.cap_cents, plan.data?.plan.draw],
      [1_500_000, { amount_cents: 300_000, recoverable: true }],
    );
  });

  test('periods: totals per status, lock and mark paid each report the rows they moved', async ({
    server,
    org,
    rawKey,
    signedIn,
  }) => {
    const { client } = await signedIn('admin', org.id);
    const applied = await client.api.POST('/admin/v1/plan-files', {
      body: {
        text: stringify({
          key: 'simple',
          name: 'Simple',
          period: 'monthly',
          assignees: 'all',
          chips: [{ key: 'base', name: 'Base', kind: 'commission', rate_bps: 1000 }],
        }),
      },
    });
    assert.equal(applied.response.status, 200);
    await ingest(
      server,
      rawKey,
      dealEvent({}, { stage: 'closed_won', close_date: '2026-02-10', amount_cents: 1_000_000 }),
    );
    await ingest(
      server,
      rawKey,
      dealEvent({}, { stage: 'closed_won', close_date: '2026-02-11', amount_cents: 500_000 }),
    );

    const periods = await client.api.GET('/admin/v1/periods');
    const february = periods.data?.periods.find((period) => period.id === '2026-02');
    assert.deepEqual(february?.totals, [{ status: 'pending', currency: 'USD', rows: 2, amount_cents: 150_000 }]);

    const locked = await client.api.POST('/admin/v1/periods/{id}/lock', { params: { path: { id: '2026-02' } } });
    assert.equal(locked.data?.rows_moved, 2);
    assert.deepEqual(locked.data?.period.totals, [
      { status: 'approved', currency: 'USD', rows: 2, amount_cents: 150_000 },
    ]);
    const again = await client.api.POST('/admin/v1/periods/{id}/lock', { params: { path: { id: '2026-02' } } });
    assert.deepEqual([again.data?.changed, again.data?.rows_moved], [false, 0]);
    const paid = await client.api.POST('/admin/v1/periods/{id}/mark-paid', { params: { path: { id: '2026-02' } } });
    assert.equal(paid.data?.rows_moved, 2);
    assert.equal(paid.data?.period.status, 'paid');
    const relock = await client.api.POST('/admin/v1/periods/{id}/lock', { params: { path: { id: '2026-02' } } });
    assert.equal(relock.response.status, 409);
    assert.equal(relock.error?.error, 'invalid_state');

    const reps = await client.api.GET('/admin/v1/reps');
    const rep = reps.data?.reps[0];
    assert.deepEqual(rep?.periods, [{ period_id: '2026-02', rows: 2, amount_cents: 150_000 }]);
    const earnings = await client.api.GET('/admin/v1/reps/{id}/earnings', {
      params: { path: { id: rep?.id as string }, query: { period: '2026-02' } },
    });
    assert.equal(earnings.data?.earnings.length, 2);
    assert.equal(earnings.data?.earnings[0]?.status, 'paid');
    assert.ok((earnings.data?.earnings[0]?.explanation.length ?? 0) > 0);
  });

  test('webhooks: add with the secret once, rotate, list deliveries, redeliver', async ({ signedIn }) => {
    const { client } = await signedIn();
    const created = await client.api.POST('/admin/v1/webhook-endpoints', {
      body: { url: 'http://127.0.0.1:9/hook', events: ['period.locked'] },
    });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    const id = created.data?.endpoint.id as string;
    expect(created.data?.secret).toMatch(/^whsec_/);
    const rotated = await client.api.POST('/admin/v1/webhook-endpoints/{id}/rotate-secret', {
      params: { path: { id } },
    });
    assert.notEqual(rotated.data?.secret, created.data?.secret);
    assert.ok(rotated.data?.endpoint.previous_secret_expires_at);

    await client.api.POST('/admin/v1/periods/{id}/lock', { params: { path: { id: '2026-01' } } });
    const deliveries = await client.api.GET('/admin/v1/webhook-endpoints/{id}/deliveries', {
      params: { path: { id } },
    });
    const [delivery] = deliveries.data?.deliveries ?? [];
    assert.equal(delivery?.type, 'period.locked');
    const redelivered = await client.api.POST('/admin/v1/webhook-messages/{id}/redeliver', {
      params: { path: { id: delivery?.message_id as string } },
      body: {},
    });
    assert.equal(redelivered.response.status, 200, JSON.stringify(redelivered.error));
    assert.deepEqual(redelivered.data?.redelivered, [{ endpoint_id: id, previous_status: 'pending' }]);
  });

  test('the audit log has every change with the admin email as actor, filtered and paginated newest first', async ({
    signedIn,
  }) => {
    const { client, account } = await signedIn();
    for (const name of ['one', 'two', 'three']) {
      await client.api.POST('/admin/v1/api-keys', { body: { name, scopes: ['plans:read'] } });
    }
    const firstPage = await client.api.GET('/admin/v1/audit-entries', {
      params: { query: { actor: account.email, action: 'key.created', limit: 2 } },
    });
    assert.deepEqual(
      firstPage.data?.entries.map((entry) => [entry.actor, entry.action, entry.details?.name]),
      [
        [account.email, 'key.created', 'three'],
        [account.email, 'key.created', 'two'],
      ],
    );
    assert.ok(firstPage.data?.entries[0]?.request_id);
    const cursor = firstPage.data?.next_cursor as string;
    const secondPage = await client.api.GET('/admin/v1/audit-entries', {
      params: { query: { actor: account.email, action: 'key.created', limit: 2, cursor } },
    });
    assert.deepEqual(
      secondPage.data?.entries.map((entry) => entry.details?.name),
      ['one'],
    );
    assert.equal(secondPage.data?.next_cursor, null);

    const otherFilters = await client.api.GET('/admin/v1/audit-entries', { params: { query: { cursor } } });
    assert.equal(otherFilters.response.status, 400);
    const signIns = await client.api.GET('/admin/v1/audit-entries', {
      params: { query: { action: 'admin.signed_in' } },
    });
    assert.equal(signIns.data?.entries.length, 1);
  });
});

describe('the admin contract', () => {
  test('is served at /admin/v1/openapi.json without a session and is not part of /v1/openapi.json', async ({
    server,
  }) => {
    const admin = (await (await fetch(`${server.url}/admin/v1/openapi.json`)).json()) as { info: { title: string } };
    assert.equal(admin.info.title, 'Quotient Admin API');
    const publicContract = await (await fetch(`${server.url}/v1/openapi.json`)).text();
    assert.ok(!publicContract.includes('/admin/v1'));
  });

  test('unknown admin routes are 404 and wrong methods 405, in the error format', async ({ server }) => {
    const missing = await fetch(`${server.url}/admin/v1/nothing-here`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: string }).error, 'not_found');
    const wrongMethod = await fetch(`${server.url}/admin/v1/me`, { method: 'PUT' });
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get('allow'), 'GET, HEAD');
  });
});
