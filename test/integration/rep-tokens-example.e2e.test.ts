import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { startExample } from '../../examples/rep-tokens/server.ts';
import { collectConsoleErrors, seriousAccessibilityViolations } from '../helpers/browser.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';
import { repClient, repWorld } from '../helpers/repWorld.ts';
import { testServices } from '../helpers/services.ts';

// The runnable example of docs/rep-tokens.md (examples/rep-tokens/) in Chromium: the intranet's page, on an origin of
// its own, calls the test server's /v1 with a rep token its backend minted. CORS is the browser's own.

const test = fixtureTest
  .extend('world', { scope: 'file' }, async ({ db, server }) => repWorld(db, server))
  .extend('intranet', { scope: 'file' }, async ({ server, world }, { onCleanup }) => {
    const example = await startExample({
      quotientUrl: server.url,
      apiKey: world.rawKey,
      repExternalId: 'rep-a',
      port: 0,
    });
    onCleanup(() => new Promise<void>((resolve) => example.server.close(() => resolve())));
    return example;
  });

describe('examples/rep-tokens', () => {
  test("the intranet page shows the rep's statement from Quotient, once the org allows its origin", async ({
    db,
    browser,
    intranet,
    world,
  }) => {
    const repAccess = testServices({ db }).admin.repAccess;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      // Not allowed yet: the browser refuses Quotient's answer.
      await page.goto(intranet.url);
      await page.getByLabel('Period').fill('2026-04');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.locator('#status.error').waitFor();

      await repAccess.set(world.orgId, { corsAllowedOrigins: [intranet.url] });
      // As it opens, the page asks for this month's statement (no lines). That answer is held here until the rep
      // has asked for April: the rep's Show cancels it, so it cannot replace April's lines once it comes (it did,
      // now and then, on a busy machine: the page showed April's total over this month's empty table).
      const openingStatement = /\/v1\/users\/[^/]+\/statements\/(?!2026-04$)[^/?]+$/;
      const asked = new Promise<void>((resolve) => {
        void page.route(openingStatement, async (route) => {
          if (route.request().method() !== 'GET') return route.continue();
          resolve();
        });
      });
      const cancelled = page.waitForEvent('requestfailed', (request) => openingStatement.test(request.url()));
      await page.reload();
      await asked;
      await page.getByLabel('Period').fill('2026-04');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.getByText('rep-a, 2026-04: payable').waitFor();
      await cancelled;
      const rows = await page.locator('#lines tbody tr').allInnerTexts();
      assert.equal(rows.length, 1);
      assert.match(rows[0] ?? '', /won-rep-a/);
      assert.match(rows[0] ?? '', /Base commission/);
      assert.match((await page.locator('#status').innerText()) ?? '', /^rep-a, 2026-04: payable/);
    } finally {
      await context.close();
      await repAccess.set(world.orgId, { corsAllowedOrigins: [] });
    }
  });
});

describe('the console', () => {
  test('an admin allows an origin and a per-rep limit on the Single sign-on page; the audit page shows reps', async ({
    db,
    browser,
    server,
    signedIn,
    world,
  }) => {
    const { account: admin } = await signedIn('admin', world.orgId);
    const rep = await repClient(server, world, world.b);
    await rep.client.users.get(world.b.userId);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const consoleErrors = collectConsoleErrors(page);
      await page.goto(`${server.url}/admin/`);
      await page.getByLabel('Email').fill(admin.email);
      await page.getByLabel('Password').fill(admin.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('checkbox', { name: /rep_tokens:write/ }).waitFor();
      await page.keyboard.press('Escape');

      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Single sign-on' }).click();
      await page.getByRole('heading', { level: 2, name: 'Rep tokens' }).waitFor();
      await page.getByLabel('Allowed origins').fill('https://intranet.example\nhttps://pay.example:8443');
      await page.getByLabel('Requests per minute per rep').fill('120');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Rep token settings saved.').waitFor();
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      const saved = await testServices({ db }).admin.repAccess.get(world.orgId);
      assert.deepEqual(saved, {
        cors_allowed_origins: ['https://intranet.example', 'https://pay.example:8443'],
        rep_rate_limit_per_minute: 120,
      });

      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Audit log' }).click();
      await page
        .getByRole('row', { name: /rep_access\.updated/ })
        .filter({ hasText: admin.email })
        .waitFor();
      await page
        .getByRole('row', { name: new RegExp(`Rep ${world.b.userId}`) })
        .first()
        .waitFor();
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      assert.deepEqual(consoleErrors, []);
      await testServices({ db }).admin.repAccess.set(world.orgId, {
        corsAllowedOrigins: [],
        repRateLimitPerMinute: 300,
      });
    } finally {
      await context.close();
    }
  });
});
