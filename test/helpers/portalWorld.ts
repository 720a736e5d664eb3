import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { QuotientClient } from '../../sdk/src/index.ts';
import type { RunningServer } from '../../src/main.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import type { AdminClient } from './adminClient.ts';
import { testDatabase } from './database.ts';
import { test as fixtureTest } from './fixtures.ts';
import { startTestIdentityProvider, type TestIdentityProvider } from './oidcProvider.ts';

// The rep portal's browser tests' world, on the shared browser fixtures (test/helpers/fixtures.ts; the portal is built
// once per run by test/setup/console.ts): a real OpenID provider, an org whose reps the factory plan pays this month,
// and a rep signed in at the provider's own pages. A file using it sets the server's secret key with
// `test.override('serverSettings', PORTAL_SERVER_SETTINGS)`.

export const test = fixtureTest
  .extend('idp', { scope: 'file' }, async ({ server }, { onCleanup }) => {
    const idp = await startTestIdentityProvider({ redirectUri: `${server.url}/portal/callback` });
    onCleanup(() => idp.close());
    return idp;
  })
  .extend('page', async ({ context }) => {
    const page = await context.newPage();
    // A step that does not happen fails on its own, naming what it waited for, well within the test's time.
    page.setDefaultTimeout(20_000);
    return page;
  });

const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
export const PORTAL_SERVER_SETTINGS = { env: { QUOTIENT_SECRET_KEY: SECRET_KEY }, options: {} };

export const TODAY = new Date().toISOString().slice(0, 10);
export const THIS_MONTH = TODAY.slice(0, 7);

export function won(owner: string, amountCents: number, custom: Record<string, unknown> = {}) {
  return { amount_cents: amountCents, stage: 'closed_won', close_date: TODAY, owner_external_id: owner, ...custom };
}

let logins = 0;

/** Chromium's own log line for a fetch answered 404 (the not-found page's cause), not an error of the page. */
export const NOT_FOUND_LOAD = /^Failed to load resource: the server responded with a status of 404/;

/** An org whose reps are paid by the factory plan this month, with the test provider connected by its admin. */
export async function payWorld(client: QuotientClient, admin: AdminClient, orgId: string, idp: TestIdentityProvider) {
  await applyPlan(testDatabase(), orgId, planDocument());
  await client.deals.ingestEvent({ external_id: 'opp-emea', state: won('rep-017', 6_000_000, { region: 'EMEA' }) });
  await client.deals.ingestEvent({
    external_id: 'opp-logo',
    state: won('rep-017', 5_000_000, { region: 'NA', new_logo: true }),
  });
  await client.deals.ingestEvent({
    external_id: 'opp-open',
    state: {
      amount_cents: 2_000_000,
      stage: 'proposal',
      close_date: TODAY,
      owner_external_id: 'rep-017',
      region: 'NA',
    },
  });
  await client.deals.ingestEvent({ external_id: 'opp-peer', state: won('rep-peer', 3_000_000, { region: 'NA' }) });
  await connectProvider(admin, idp);
  const rep = await client.users.findByExternalId('rep-017');
  const peer = await client.users.findByExternalId('rep-peer');
  assert.ok(rep && peer);
  return { rep, peer };
}

/** The test provider as the org's sign-in, as its admin connects it: reps sign in by email, named by `crm_owner_id`. */
export async function connectProvider(admin: AdminClient, idp: TestIdentityProvider) {
  const created = await admin.api.POST('/admin/v1/identity-providers', {
    body: {
      name: 'test-idp',
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      email_domains: ['example.com'],
      owner_id_claim: 'crm_owner_id',
    },
  });
  assert.equal(created.response.status, 201);
}

export async function signInAs(
  page: Page,
  server: RunningServer,
  idp: TestIdentityProvider,
  orgId: string,
  owner: string,
) {
  const login = `portal-person-${++logins}`;
  idp.accounts.set(login, { email: `${login}@example.com`, crm_owner_id: owner });
  await page.goto(`${server.url}/portal/?org=${orgId}&provider=test-idp`);
  await page.getByRole('link', { name: 'Sign in with your company account' }).click();
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password will do');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}
