import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { describe } from 'vitest';
import { composeServices } from '../../src/composition.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/prisma.ts';
import { newId } from '../../src/lib/ids.ts';
import type { RunningServer } from '../../src/main.ts';
import type { AdminClient } from '../helpers/adminClient.ts';
import { collectConsoleErrors, seriousAccessibilityViolations } from '../helpers/browser.ts';
import { cliJson, runCli, SLOW_CLI_TEST_MS } from '../helpers/cli.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';
import { startTestIdentityProvider, type TestAccount, type TestIdentityProvider } from '../helpers/oidcProvider.ts';
import { testServices } from '../helpers/services.ts';

// Sign-in to the rep portal end to end: a real OpenID provider (oidc-provider, its own login and consent pages) on a
// loopback port, the real server and database, and Chromium clicking through. Every refusal is checked to show its
// page, set no session and leave no session behind.

/** The server's clock runs this far ahead of the real one (to expire sign-in links without waiting). */
let clockAheadMs = 0;

const test = fixtureTest.extend('idp', { scope: 'file' }, async ({ server }, { onCleanup }) => {
  const idp = await startTestIdentityProvider({ redirectUri: `${server.url}/portal/callback` });
  onCleanup(() => idp.close());
  return idp;
});

/** The server's and the CLI's key for sealing client secrets. */
const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');

test.override('serverSettings', {
  env: { QUOTIENT_SECRET_KEY: SECRET_KEY },
  options: { now: () => new Date(Date.now() + clockAheadMs) },
});

let counter = 0;

async function createRep(db: Database, orgId: string, externalId: string, displayName: string | null = null) {
  return db.user.create({
    data: { id: newId('user'), org_id: orgId, external_id: externalId, display_name: displayName },
  });
}

async function addProvider(
  client: AdminClient,
  issuer: string,
  clientId: string,
  clientSecret: string,
  name = 'test-idp',
) {
  const created = await client.api.POST('/admin/v1/identity-providers', {
    body: {
      name,
      issuer,
      client_id: clientId,
      client_secret: clientSecret,
      email_domains: ['example.com'],
      owner_id_claim: 'crm_owner_id',
      admins_allowed: true,
    },
  });
  assert.equal(created.response.status, 201);
  return created.data as NonNullable<typeof created.data>;
}

/** A login at the test provider with these claims, unique to the test. */
function account(accounts: Map<string, TestAccount>, claims: TestAccount): string {
  const login = `person-${++counter}`;
  accounts.set(login, claims);
  return login;
}

interface Setup {
  db: Database;
  idp: TestIdentityProvider;
  signedIn: () => Promise<{ org: { id: string }; client: AdminClient }>;
}

/**
 * An org with the test provider connected (by its admin, through the admin API), a rep when `rep` names one, and a
 * login at the provider with `claims`.
 */
async function orgAtProvider(setup: Setup, claims: TestAccount, rep?: { externalId: string; displayName?: string }) {
  const { org, client } = await setup.signedIn();
  await addProvider(client, setup.idp.issuer, setup.idp.clientId, setup.idp.clientSecret);
  const repRow = rep ? await createRep(setup.db, org.id, rep.externalId, rep.displayName ?? null) : undefined;
  return { org, client, rep: repRow, login: account(setup.idp.accounts, claims) };
}

/** Opens the portal as the org gives it to reps, and signs in at the provider's own pages. */
async function signInThroughProvider(page: Page, server: RunningServer, orgId: string, login: string) {
  await page.goto(`${server.url}/portal/?org=${orgId}&provider=test-idp`);
  await page.getByRole('link', { name: 'Sign in with your company account' }).click();
  await loginAtProvider(page, login);
}

async function loginAtProvider(page: Page, login: string) {
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password will do');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  const callback = page.waitForResponse((response) => response.url().includes('/portal/callback'));
  await page.getByRole('button', { name: 'Continue' }).click();
  return callback;
}

async function liveSessions(db: Database, orgId: string): Promise<number> {
  return db.repSession.count({ where: { org_id: orgId, ended_at: null } });
}

async function portalCookie(context: BrowserContext) {
  return (await context.cookies()).find((cookie) => cookie.name === 'quotient_portal_session');
}

const INTERNALS = /jw[stk]|nonce|audience|\baud\b|signature|oauth|stack|exception|Error:/i;

/** The refusal page: its heading, nothing signed in, no internals shown. */
async function assertRefused(page: Page, context: BrowserContext, db: Database, orgId: string, heading: string) {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  assert.doesNotMatch(await page.locator('body').innerText(), INTERNALS);
  assert.equal(await portalCookie(context), undefined);
  assert.equal(await liveSessions(db, orgId), 0);
}

describe('rep portal sign-in through an OpenID Connect provider', () => {
  test('a rep signs in at the provider, sees who is signed in, and signing out ends the session on the server', async ({
    db,
    server,
    idp,
    page,
    context,
    signedIn,
  }) => {
    const { org, login } = await orgAtProvider(
      { db, idp, signedIn },
      { email: 'Ada@Example.com', crm_owner_id: 'rep-ada' },
      { externalId: 'rep-ada', displayName: 'Ada Lovelace' },
    );
    const signInPageErrors = collectConsoleErrors(page);

    await page.goto(`${server.url}/portal/?org=${org.id}&provider=test-idp`);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    assert.deepEqual(signInPageErrors, []);
    const authorizationRequest = page.waitForRequest((request) => request.url().startsWith(`${idp.issuer}/auth`));
    await page.getByRole('link', { name: 'Sign in with your company account' }).click();
    const authorization = new URL((await authorizationRequest).url());
    assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(authorization.searchParams.get('code_challenge'));
    assert.ok(authorization.searchParams.get('state'));
    assert.ok(authorization.searchParams.get('nonce'));
    const callback = await loginAtProvider(page, login);
    assert.equal(callback.status(), 303);
    // The provider's own pages are not ours to judge (they ask for web fonts this machine cannot reach).
    const consoleErrors = collectConsoleErrors(page);

    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
    await page.getByText('Signed in as Ada Lovelace (rep-ada)').waitFor();
    assert.equal(new URL(page.url()).pathname, '/portal/');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    const cookie = await portalCookie(context);
    assert.ok(cookie);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    assert.equal(cookie.path, '/portal');
    assert.equal(await liveSessions(db, org.id), 1);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    assert.equal(await portalCookie(context), undefined);
    assert.equal(await liveSessions(db, org.id), 0);
    // The old cookie no longer works anywhere.
    const replayed = await fetch(`${server.url}/portal/session`, {
      headers: { cookie: `quotient_portal_session=${cookie.value}` },
    });
    assert.deepEqual(await replayed.json(), { signed_in: false });
    assert.deepEqual(consoleErrors, []);
  });

  test('an email an admin invited signs in as that rep, whatever owner id the token carries', async ({
    db,
    server,
    idp,
    page,
    signedIn,
  }) => {
    const { org, client, rep, login } = await orgAtProvider(
      { db, idp, signedIn },
      { email: 'grace@example.com' },
      { externalId: 'rep-grace', displayName: 'Grace Hopper' },
    );
    assert.ok(rep);
    const invited = await client.api.POST('/admin/v1/reps/{id}/invitations', {
      params: { path: { id: rep.id } },
      body: { email: 'GRACE@example.com' },
    });
    assert.equal(invited.response.status, 201);
    assert.deepEqual(invited.data, { rep_id: rep.id, email: 'grace@example.com' });

    await signInThroughProvider(page, server, org.id, login);
    await page.getByText('Signed in as Grace Hopper (rep-grace)').waitFor();
  });

  test("the provider's name becomes the rep's display name and follows the provider, until an admin sets one", async ({
    db,
    server,
    idp,
    browser,
    signedIn,
  }) => {
    const { org, client, rep, login } = await orgAtProvider(
      { db, idp, signedIn },
      { email: 'kay@example.com', crm_owner_id: 'rep-kay', name: 'Kay  Johnson' },
      { externalId: 'rep-kay' },
    );
    assert.ok(rep);
    /** A sign-in in a browser of its own (no session at the provider or here), greeted as `greeting`. */
    const signInAs = async (greeting: string) => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await signInThroughProvider(page, server, org.id, login);
        await page.getByText(`Signed in as ${greeting} (rep-kay)`).waitFor();
      } finally {
        await context.close();
      }
    };
    const stored = async () =>
      db.user.findUniqueOrThrow({
        where: { org_id_id: { org_id: org.id, id: rep.id } },
        select: { display_name: true, display_name_source: true },
      });

    await signInAs('Kay Johnson');
    assert.deepEqual(await stored(), { display_name: 'Kay Johnson', display_name_source: 'idp' });
    // The provider's name changes: a name that came from the provider follows it.
    idp.accounts.set(login, { email: 'kay@example.com', crm_owner_id: 'rep-kay', name: 'Katherine Johnson' });
    await signInAs('Katherine Johnson');
    const fromProvider = await db.auditEntry.findMany({
      where: { org_id: org.id, action: 'rep.display_name_set' },
      orderBy: { occurred_at: 'asc' },
    });
    assert.deepEqual(
      fromProvider.map((entry) => [
        entry.actor_type,
        entry.actor,
        (entry.details as Record<string, unknown>).display_name,
      ]),
      [
        ['rep', rep.id, 'Kay Johnson'],
        ['rep', rep.id, 'Katherine Johnson'],
      ],
    );

    // An admin's name wins: the next sign-in leaves it as it is.
    const set = await client.api.POST('/admin/v1/reps/{id}/display-name', {
      params: { path: { id: rep.id } },
      body: { display_name: 'Katherine G. Johnson' },
    });
    assert.equal(set.response.status, 200, JSON.stringify(set.error));
    await signInAs('Katherine G. Johnson');
    assert.deepEqual(await stored(), { display_name: 'Katherine G. Johnson', display_name_source: 'admin' });
    assert.equal(await db.auditEntry.count({ where: { org_id: org.id, action: 'rep.display_name_set' } }), 3);
  });

  test('an ID token re-signed by the provider with its claims unchanged signs in: the rewriting alone refuses nothing', async ({
    db,
    server,
    idp,
    page,
    signedIn,
  }) => {
    const { org, login } = await orgAtProvider(
      { db, idp, signedIn },
      { email: 'alan@example.com', crm_owner_id: 'rep-alan' },
      { externalId: 'rep-alan' },
    );
    idp.rewriteNextIdToken((claims) => claims);
    await signInThroughProvider(page, server, org.id, login);
    await page.getByText('Signed in as rep-alan (rep-alan)').waitFor();
  });

  const UNVERIFIED = 'Your sign-in could not be verified';
  for (const [refusal, rewrite, signer] of [
    ['a signature by another key', (claims: Record<string, unknown>) => claims, 'stranger'],
    ['another audience', (claims: Record<string, unknown>) => ({ ...claims, aud: 'another-client' }), 'provider'],
    [
      'an expired token',
      (claims: Record<string, unknown>) => {
        const now = Math.floor(Date.now() / 1000);
        return { ...claims, iat: now - 7200, exp: now - 3600 };
      },
      'provider',
    ],
    [
      'another issuer',
      (claims: Record<string, unknown>) => ({ ...claims, iss: 'https://idp.attacker.test' }),
      'provider',
    ],
  ] as const) {
    test(`an ID token with ${refusal} is refused with a clear page, and nothing is signed in`, async ({
      db,
      server,
      idp,
      page,
      context,
      signedIn,
    }) => {
      const { org, login } = await orgAtProvider(
        { db, idp, signedIn },
        { email: 'mallory@example.com', crm_owner_id: 'rep-mallory' },
        { externalId: 'rep-mallory' },
      );
      idp.rewriteNextIdToken(rewrite, signer);

      await page.goto(`${server.url}/portal/?org=${org.id}&provider=test-idp`);
      await page.getByRole('link', { name: 'Sign in with your company account' }).click();
      const callback = await loginAtProvider(page, login);
      assert.equal(callback.status(), 400);
      await assertRefused(page, context, db, org.id, UNVERIFIED);
    });
  }

  test("an ID token carrying an earlier sign-in's nonce is refused", async ({
    db,
    server,
    idp,
    page,
    context,
    signedIn,
  }) => {
    const { org, login } = await orgAtProvider(
      { db, idp, signedIn },
      { email: 'eve@example.com', crm_owner_id: 'rep-eve' },
      { externalId: 'rep-eve' },
    );
    // An earlier sign-in, started and left at the provider: its nonce is the one replayed.
    const earlier = page.waitForRequest((request) => request.url().startsWith(`${idp.issuer}/auth`));
    await page.goto(`${server.url}/portal/sign-in?org=${org.id}&provider=test-idp`);
    const earlierNonce = new URL((await earlier).url()).searchParams.get('nonce');
    assert.ok(earlierNonce);
    idp.rewriteNextIdToken((claims) => ({ ...claims, nonce: earlierNonce }));

    await signInThroughProvider(page, server, org.id, login);
    await assertRefused(page, context, db, org.id, UNVERIFIED);
  });

  test('a callback replayed after its sign-in is refused: a state answers once', async ({
    db,
    server,
    idp,
    page,
    signedIn,
  }) => {
    const { org, login } = await orgAtProvider(
      { db, idp, signedIn },
      { email: 'trudy@example.com', crm_owner_id: 'rep-trudy' },
      { externalId: 'rep-trudy' },
    );
    const callbackRequest = page.waitForRequest((request) => request.url().includes('/portal/callback'));
    await signInThroughProvider(page, server, org.id, login);
    await page.getByText('Signed in as rep-trudy (rep-trudy)').waitFor();
    const request = await callbackRequest;
    const headers = await request.allHeaders();
    assert.match(headers.cookie ?? '', /quotient_sso_state=/);

    const replayed = await fetch(request.url(), { headers: { cookie: headers.cookie ?? '' }, redirect: 'manual' });
    assert.equal(replayed.status, 400);
    assert.match(await replayed.text(), /This sign-in has expired or was already used/);
    assert.doesNotMatch(replayed.headers.get('set-cookie') ?? '', /quotient_portal_session=[^;]/);
    assert.equal(await liveSessions(db, org.id), 1);

    // Nor does a callback answer in a browser that did not start the sign-in (no state cookie).
    const elsewhere = await fetch(request.url(), { redirect: 'manual' });
    assert.equal(elsewhere.status, 400);
    assert.equal(await liveSessions(db, org.id), 1);
  });

  test('a sign-in cancelled at the provider lands on a page that says so', async ({
    db,
    server,
    idp,
    page,
    context,
    signedIn,
  }) => {
    const { org } = await orgAtProvider(
      { db, idp, signedIn },
      { email: 'ivan@example.com', crm_owner_id: 'rep-ivan' },
      { externalId: 'rep-ivan' },
    );
    await page.goto(`${server.url}/portal/?org=${org.id}&provider=test-idp`);
    await page.getByRole('link', { name: 'Sign in with your company account' }).click();
    await page.getByRole('link', { name: '[ Cancel ]' }).click();
    await assertRefused(page, context, db, org.id, 'You were not signed in');
  });

  test('an email outside the provider’s domains is refused', async ({ db, server, idp, page, context, signedIn }) => {
    const { org, login } = await orgAtProvider(
      { db, idp, signedIn },
      { email: 'oscar@elsewhere.test', crm_owner_id: 'rep-oscar' },
      { externalId: 'rep-oscar' },
    );
    await signInThroughProvider(page, server, org.id, login);
    await assertRefused(page, context, db, org.id, 'This email address cannot sign in here');
  });

  test('an identity linked to no rep is refused', async ({ db, server, idp, page, context, signedIn }) => {
    const { org, login } = await orgAtProvider(
      { db, idp, signedIn },
      { email: 'walter@example.com', crm_owner_id: 'rep-nobody-knows' },
    );
    await signInThroughProvider(page, server, org.id, login);
    await assertRefused(page, context, db, org.id, 'No rep is linked to you yet');
  });

  test('an admin signs in to the console through the provider where it allows admins; elsewhere it is refused', async ({
    db,
    server,
    idp,
    page,
    context,
    signedIn,
  }) => {
    const { org, client, account: admin } = await signedIn();
    const provider = await addProvider(client, idp.issuer, idp.clientId, idp.clientSecret);
    const login = account(idp.accounts, { email: admin.email });

    await page.goto(`${server.url}/portal/sign-in?org=${org.id}&provider=test-idp&to=console`);
    await loginAtProvider(page, login);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    const signIns = await client.api.GET('/admin/v1/audit-entries', {
      params: { query: { action: 'admin.signed_in' } },
    });
    assert.ok(signIns.data?.entries.some((entry) => entry.details?.identity_provider_id === provider.id));

    const closed = await client.api.POST('/admin/v1/identity-providers', {
      body: {
        name: 'no-admins',
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        email_domains: ['example.com'],
      },
    });
    assert.equal(closed.data?.admins_allowed, false);
    const refused = await page.goto(`${server.url}/portal/sign-in?org=${org.id}&provider=no-admins&to=console`);
    assert.equal(refused?.status(), 403);
    await assertRefused(page, context, db, org.id, 'This account cannot sign in to the console this way');
  });

  test('providers are configured through the admin API: the secret is sealed and never returned, names are unique, removal stops sign-in', async ({
    db,
    server,
    idp,
    page,
    signedIn,
  }) => {
    const { org, client } = await signedIn();
    const created = await addProvider(client, idp.issuer, idp.clientId, idp.clientSecret);
    assert.equal('client_secret' in created, false);
    assert.equal(created.email_claim, 'email');
    const listed = await client.api.GET('/admin/v1/identity-providers');
    assert.deepEqual(listed.data, { identity_providers: [created] });
    assert.doesNotMatch(JSON.stringify(listed.data), new RegExp(idp.clientSecret));
    // Stored sealed, not as given.
    const stored = await db.identityProvider.findFirstOrThrow({ where: { id: created.id } });
    assert.match(stored.client_secret, /^v1\./);
    assert.doesNotMatch(stored.client_secret, new RegExp(idp.clientSecret));

    const again = await client.api.POST('/admin/v1/identity-providers', {
      body: {
        name: 'test-idp',
        issuer: idp.issuer,
        client_id: 'x',
        client_secret: 'y',
        email_domains: ['example.com'],
      },
    });
    assert.equal(again.response.status, 409);
    const insecure = await client.api.POST('/admin/v1/identity-providers', {
      body: {
        name: 'plain',
        issuer: 'http://idp.example.com',
        client_id: 'x',
        client_secret: 'y',
        email_domains: ['example.com'],
      },
    });
    assert.equal(insecure.response.status, 400);

    const removed = await client.api.DELETE('/admin/v1/identity-providers/{id}', {
      params: { path: { id: created.id } },
    });
    assert.equal(removed.response.status, 204);
    const gone = await page.goto(`${server.url}/portal/sign-in?org=${org.id}&provider=test-idp`);
    assert.equal(gone?.status(), 404);
    await page.getByRole('heading', { level: 1, name: 'This sign-in address is not set up' }).waitFor();
  });

  test('a provider changes in place: a rotated secret takes effect on the next sign-in, the audit names the fields and never the secret', async ({
    browser,
    db,
    server,
    idp,
    page,
    context,
    signedIn,
  }) => {
    const { org, client } = await signedIn();
    // Connected with a secret the provider does not know: the code exchange fails.
    const provider = await addProvider(client, idp.issuer, idp.clientId, 'a-secret-the-provider-does-not-know');
    await createRep(db, org.id, 'rep-rotated', 'Rotated Rep');
    const login = account(idp.accounts, { email: 'rotated@example.com', crm_owner_id: 'rep-rotated' });
    await signInThroughProvider(page, server, org.id, login);
    await page.getByRole('heading', { level: 1 }).waitFor();
    assert.equal(await portalCookie(context), undefined);
    assert.equal(await liveSessions(db, org.id), 0);

    const rotated = await client.api.PATCH('/admin/v1/identity-providers/{id}', {
      params: { path: { id: provider.id } },
      body: { client_secret: idp.clientSecret },
    });
    assert.equal(rotated.response.status, 200);
    assert.deepEqual(rotated.data, provider);
    // A browser that has not signed in at the provider yet, so its login page shows again.
    const fresh = await browser.newContext();
    const freshPage = await fresh.newPage();
    await signInThroughProvider(freshPage, server, org.id, login);
    await freshPage.getByText('Signed in as Rotated Rep (rep-rotated)').waitFor();
    await fresh.close();

    const changed = await client.api.GET('/admin/v1/audit-entries', {
      params: { query: { action: 'identity_provider.changed' } },
    });
    const entry = changed.data?.entries.find((row) => row.details?.identity_provider_id === provider.id);
    assert.deepEqual(entry?.details?.changed, ['client_secret']);
    assert.doesNotMatch(JSON.stringify(changed.data), new RegExp(idp.clientSecret));

    const more = await client.api.PATCH('/admin/v1/identity-providers/{id}', {
      params: { path: { id: 'test-idp' } },
      body: { email_domains: ['Example.com', 'example.org'], owner_id_claim: null, admins_allowed: false },
    });
    assert.deepEqual(
      { ...more.data },
      { ...provider, email_domains: ['example.com', 'example.org'], owner_id_claim: null, admins_allowed: false },
    );
    const stored = await db.identityProvider.findFirstOrThrow({ where: { id: provider.id } });
    for (const [body, status] of [
      [{}, 400],
      [{ name: 'renamed' }, 400],
      [{ issuer: 'https://elsewhere.example.com' }, 400],
      [{ email_domains: ['not a domain'] }, 400],
      [{ client_id: ' ' }, 400],
    ] as const) {
      const refused = await client.api.PATCH('/admin/v1/identity-providers/{id}', {
        params: { path: { id: provider.id } },
        body: body as never,
      });
      assert.equal(refused.response.status, status, JSON.stringify(body));
    }
    const unknown = await client.api.PATCH('/admin/v1/identity-providers/{id}', {
      params: { path: { id: 'idp_01jr3q2c7bf3zs8mtq4b0dwgvn' } },
      body: { admins_allowed: true },
    });
    assert.equal(unknown.response.status, 404);
    assert.deepEqual(await db.identityProvider.findFirstOrThrow({ where: { id: provider.id } }), stored);
  });

  test('the sign-in options name the providers that let admins of the email’s domain in, across orgs, and nothing else', async ({
    server,
    signedIn,
  }) => {
    const domain = `sso-${Date.now()}-${++counter}.example.net`;
    const first = await signedIn();
    const second = await signedIn();
    for (const [admin, name, adminsAllowed] of [
      [first, 'first-idp', true],
      [second, 'second-idp', true],
      [second, 'reps-only', false],
    ] as const) {
      const created = await admin.client.api.POST('/admin/v1/identity-providers', {
        body: {
          name,
          issuer: 'https://idp.example.com',
          client_id: 'x',
          client_secret: 'y',
          email_domains: [domain],
          admins_allowed: adminsAllowed,
        },
      });
      assert.equal(created.response.status, 201);
    }
    const anonymous = await fetch(
      `${server.url}/admin/v1/sign-in-options?email=${encodeURIComponent(`Ada@${domain.toUpperCase()}`)}`,
    );
    assert.equal(anonymous.status, 200);
    const options = (await anonymous.json()) as { single_sign_on: { provider: string; sign_in_url: string }[] };
    assert.deepEqual(options.single_sign_on.map((option) => option.provider).sort(), ['first-idp', 'second-idp']);
    assert.ok(
      options.single_sign_on.some(
        (option) => option.sign_in_url === `/portal/sign-in?org=${first.org.id}&provider=first-idp&to=console`,
      ),
    );
    const none = await fetch(
      `${server.url}/admin/v1/sign-in-options?email=${encodeURIComponent(`ada@nobody-${counter}.example.net`)}`,
    );
    assert.deepEqual(await none.json(), { single_sign_on: [] });
    const bad = await fetch(`${server.url}/admin/v1/sign-in-options?email=not-an-email`);
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: string }).error, 'invalid_body');
  });
});

describe('one-time sign-in links', () => {
  test('a link signs the rep in once; used again or after it expires, it is refused', async ({
    db,
    server,
    page,
    context,
    signedIn,
  }) => {
    const { org, client } = await signedIn();
    const rep = await createRep(db, org.id, 'rep-linus', 'Linus');
    const created = await client.api.POST('/admin/v1/reps/{id}/sign-in-links', {
      params: { path: { id: rep.id } },
      body: { expires_in_minutes: 30 },
    });
    assert.equal(created.response.status, 201);
    const link = created.data as NonNullable<typeof created.data>;
    assert.equal(link.rep_id, rep.id);
    assert.ok(link.url.startsWith(`${server.url}/portal/link?token=`));

    // Opening the link signs nothing in (a preview cannot use it up); its button does.
    await page.goto(link.url);
    assert.equal(await liveSessions(db, org.id), 0);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as Linus (rep-linus)').waitFor();
    assert.equal(await liveSessions(db, org.id), 1);

    const second = await context.browser()?.newContext();
    assert.ok(second);
    const elsewhere = await second.newPage();
    await elsewhere.goto(link.url);
    await elsewhere.getByRole('button', { name: 'Sign in' }).click();
    await elsewhere
      .getByRole('heading', { level: 1, name: 'This sign-in link has expired or was already used' })
      .waitFor();
    assert.equal((await second.cookies()).length, 0);
    await second.close();
    assert.equal(await liveSessions(db, org.id), 1);

    const late = await client.api.POST('/admin/v1/reps/{id}/sign-in-links', { params: { path: { id: rep.id } } });
    const lateUrl = (late.data as NonNullable<typeof late.data>).url;
    clockAheadMs = 61 * 60_000;
    try {
      const refused = await fetch(`${server.url}/portal/link`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: new URL(lateUrl).searchParams.get('token') ?? '' }),
        redirect: 'manual',
      });
      assert.equal(refused.status, 400);
      assert.match(await refused.text(), /This sign-in link has expired or was already used/);
    } finally {
      clockAheadMs = 0;
    }
    assert.equal(await liveSessions(db, org.id), 1);
  });

  test('the sweeper forgets expired links and sign-in attempts, and only those', async ({
    db,
    pool,
    server,
    idp,
    signedIn,
  }) => {
    const { org } = await signedIn();
    const rep = await createRep(db, org.id, 'rep-swept');
    let now = new Date();
    const { admin, portal } = composeServices({
      db,
      pool,
      config: loadConfig({ DATABASE_URL: process.env.DATABASE_URL, QUOTIENT_SECRET_KEY: SECRET_KEY }),
      recompute: { concurrency: 1 },
      now: () => now,
    });
    await admin.portalAccess.addProvider({
      orgId: org.id,
      name: 'test-idp',
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      emailDomains: ['example.com'],
    });
    const signIn = () =>
      portal.signIn.begin({
        orgId: org.id,
        provider: 'test-idp',
        destination: 'portal',
        redirectUri: `${server.url}/portal/callback`,
      });
    await signIn();
    await admin.portalAccess.createSignInLink({ orgId: org.id, rep: rep.id, expiresInMinutes: 5 });
    await admin.portalAccess.createSignInLink({ orgId: org.id, rep: rep.id, expiresInMinutes: 60 });
    now = new Date(now.getTime() + 11 * 60_000);
    await signIn();
    await portal.signIn.forgetExpired();
    assert.equal(await db.ssoSignInAttempt.count({ where: { org_id: org.id } }), 1);
    const left = await db.repSignInLink.findMany({ where: { org_id: org.id } });
    assert.equal(left.length, 1);
    assert.ok((left[0] as { expires_at: Date }).expires_at > now);
    // Their lookup rows go with them, and only theirs.
    const lookups = async (kind: string) => db.credentialOrg.count({ where: { org_id: org.id, kind } });
    assert.deepEqual([await lookups('sso_state'), await lookups('rep_sign_in_link')], [1, 1]);
  });

  test('the CLI connects, lists and removes providers, prints a sign-in link that works once, and invites emails', {
    timeout: SLOW_CLI_TEST_MS,
  }, async ({ db, server, org }) => {
    const rep = await createRep(db, org.id, 'rep-cli');
    const env = { ...process.env, QUOTIENT_SECRET_KEY: SECRET_KEY, TEST_SSO_SECRET: 'cli-secret-value' };
    const add = (environment: NodeJS.ProcessEnv) =>
      runCli(
        [
          'sso',
          'providers',
          'add',
          '--org',
          org.id,
          '--name',
          'okta',
          '--issuer',
          'https://acme.okta.example/oauth2/default',
          '--client-id',
          'cli-client',
          '--client-secret-env',
          'TEST_SSO_SECRET',
          '--email-domain',
          'example.com',
          '--owner-id-claim',
          'crm_owner_id',
          '--json',
        ],
        environment,
      );
    const withoutKey = await add({ ...process.env, TEST_SSO_SECRET: 'cli-secret-value' });
    assert.equal(withoutKey.code, 2);
    assert.match(withoutKey.stdout, /QUOTIENT_SECRET_KEY/);
    const added = await add(env);
    assert.equal(added.code, 0, added.stderr);
    const provider = JSON.parse(added.stdout) as { id: string; name: string; admins_allowed: boolean };
    assert.equal(provider.name, 'okta');
    assert.equal(provider.admins_allowed, false);
    assert.doesNotMatch(added.stdout, /cli-secret-value/);
    const listed = await cliJson<{ identity_providers: Array<{ id: string }> }>([
      'sso',
      'providers',
      'list',
      '--org',
      org.id,
    ]);
    assert.deepEqual(
      listed.identity_providers.map((row) => row.id),
      [provider.id],
    );
    const sealedBefore = (await db.identityProvider.findFirstOrThrow({ where: { id: provider.id } })).client_secret;
    const rotated = await runCli(
      [
        'sso',
        'providers',
        'update',
        'okta',
        '--org',
        org.id,
        '--client-secret-env',
        'TEST_SSO_SECRET',
        '--allow-admins',
        'yes',
        '--invitations-only',
        '--json',
      ],
      { ...env, TEST_SSO_SECRET: 'rotated-cli-secret' },
    );
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.doesNotMatch(rotated.stdout, /rotated-cli-secret/);
    const rotatedProvider = JSON.parse(rotated.stdout) as { admins_allowed: boolean; owner_id_claim: string | null };
    assert.equal(rotatedProvider.admins_allowed, true);
    assert.equal(rotatedProvider.owner_id_claim, null);
    const sealedAfter = (await db.identityProvider.findFirstOrThrow({ where: { id: provider.id } })).client_secret;
    assert.notEqual(sealedAfter, sealedBefore);
    const nothing = await runCli(['sso', 'providers', 'update', 'okta', '--org', org.id, '--json'], env);
    assert.equal(nothing.code, 2);
    assert.equal(JSON.parse(nothing.stdout).error, 'invalid_argument');
    const notYesNo = await runCli(
      ['sso', 'providers', 'update', 'okta', '--org', org.id, '--allow-admins', 'maybe', '--json'],
      env,
    );
    assert.equal(notYesNo.code, 2);
    await cliJson(['sso', 'providers', 'remove', 'okta', '--org', org.id]);
    const after = await cliJson<{ identity_providers: unknown[] }>(['sso', 'providers', 'list', '--org', org.id]);
    assert.deepEqual(after.identity_providers, []);

    const link = await cliJson<{ rep_id: string; url: string }>([
      'reps',
      'sign-in-link',
      '--org',
      org.id,
      '--rep',
      'rep-cli',
      '--base-url',
      server.url,
    ]);
    assert.equal(link.rep_id, rep.id);
    const use = () =>
      fetch(`${server.url}/portal/link`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: new URL(link.url).searchParams.get('token') ?? '' }),
        redirect: 'manual',
      });
    const first = await use();
    assert.equal(first.status, 303);
    assert.match(
      first.headers.get('set-cookie') ?? '',
      /quotient_portal_session=[^;]+; Path=\/portal; .*HttpOnly; SameSite=Lax/,
    );
    assert.equal((await use()).status, 400);

    const invited = await cliJson<{ rep_id: string; email: string }>([
      'reps',
      'invite',
      '--org',
      org.id,
      '--rep',
      rep.id,
      '--email',
      'Rep.CLI@Example.com',
    ]);
    assert.deepEqual(invited, { rep_id: rep.id, email: 'rep.cli@example.com' });
    const unknown = await runCli([
      'reps',
      'invite',
      '--org',
      org.id,
      '--rep',
      'rep-nobody',
      '--email',
      'x@example.com',
      '--json',
    ]);
    assert.equal(unknown.code, 2);
    assert.equal((JSON.parse(unknown.stdout) as { error: string }).error, 'not_found');
  });
});

describe('the console', () => {
  test('an admin connects a provider on the Single sign-on page and copies a rep a sign-in link that works', async ({
    db,
    server,
    idp,
    page,
    context,
    signedIn,
  }) => {
    const { org, account: admin } = await signedIn();
    await createRep(db, org.id, 'rep-katherine', 'Katherine Johnson');
    const consoleErrors = collectConsoleErrors(page);
    await page.goto(`${server.url}/admin/`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Single sign-on' }).click();
    await page.getByRole('heading', { level: 1, name: 'Single sign-on' }).waitFor();
    await page.getByText(`${server.url}/portal/callback`).waitFor();
    await page.getByText('No identity providers').waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await page.getByRole('button', { name: 'Add provider' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add an identity provider' });
    await dialog.getByLabel('Name').fill('test-idp');
    await dialog.getByLabel('Issuer URL').fill(idp.issuer);
    await dialog.getByLabel('Client ID').fill(idp.clientId);
    await dialog.getByLabel('Client secret').fill(idp.clientSecret);
    await dialog.getByLabel('Email domains').fill('example.com');
    await dialog.getByLabel('Owner id claim').fill('crm_owner_id');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await dialog.getByRole('button', { name: 'Add provider' }).click();
    await page.getByText('Identity provider test-idp added.').waitFor();
    await page
      .getByRole('row', { name: /test-idp/ })
      .getByText('crm_owner_id')
      .waitFor();

    // The provider the console added signs a rep in.
    const login = account(idp.accounts, { email: 'katherine@example.com', crm_owner_id: 'rep-katherine' });
    const repPage = await context.newPage();
    await signInThroughProvider(repPage, server, org.id, login);
    await repPage.getByText('Signed in as Katherine Johnson (rep-katherine)').waitFor();
    await repPage.close();

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Reps' }).click();
    await page
      .getByRole('row', { name: /rep-katherine/ })
      .getByRole('button', { name: 'Sign-in link' })
      .click();
    const shown = page.getByRole('dialog', { name: 'A sign-in link for rep-katherine' });
    const url = await shown.locator('code').innerText();
    assert.ok(url.startsWith(`${server.url}/portal/link?token=`));
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await shown.getByRole('button', { name: 'Done' }).click();
    assert.deepEqual(consoleErrors, []);

    const elsewhere = await context.browser()?.newContext();
    assert.ok(elsewhere);
    const linkPage = await elsewhere.newPage();
    await linkPage.goto(url);
    await linkPage.getByRole('button', { name: 'Sign in' }).click();
    await linkPage.getByText('Signed in as Katherine Johnson (rep-katherine)').waitFor();
    await elsewhere.close();
  });

  test('an admin signs in on the console page with single sign-on: the email finds the provider', async ({
    db,
    server,
    idp,
    page,
    signedIn,
  }) => {
    const { org, client } = await signedIn();
    const domain = `console-sso-${Date.now()}-${++counter}.example.net`;
    const created = await client.api.POST('/admin/v1/identity-providers', {
      body: {
        name: 'test-idp',
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        email_domains: [domain],
        admins_allowed: true,
      },
    });
    assert.equal(created.response.status, 201);
    const email = `ada@${domain}`;
    await testServices({ db }).admin.admins.create({ orgId: org.id, email, role: 'admin', displayName: 'Ada' });
    const login = account(idp.accounts, { email });
    const consoleErrors = collectConsoleErrors(page);

    await page.goto(`${server.url}/admin/`);
    await page.getByRole('button', { name: 'Use single sign-on' }).click();
    await page.getByText('Enter your work email first').waitFor();
    await page.getByLabel('Email').fill(`nobody@elsewhere-${counter}.example.net`);
    await page.getByRole('button', { name: 'Use single sign-on' }).click();
    await page.getByText('Single sign-on is not set up for this email').waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);

    assert.deepEqual(consoleErrors, []);

    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Use single sign-on' }).click();
    await loginAtProvider(page, login);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByText('Ada').first().waitFor();
  });
});
