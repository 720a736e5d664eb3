import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { startExample } from '../../examples/rep-tokens/server.ts';
import { launchChromium } from '../helpers/browser.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';
import { repWorld } from '../helpers/repWorld.ts';
import { testServices } from '../helpers/services.ts';

// The runnable example of docs/rep-tokens.md (examples/rep-tokens/) in Chromium: the intranet's page, on an origin of
// its own, calls the test server's /v1 with a rep token its backend minted. CORS is the browser's own.

const test = fixtureTest
  .extend('world', { scope: 'file' }, async ({ db, server }) => repWorld(db, server))
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  .extend('browser', { scope: 'file' }, async ({}, { onCleanup }) => {
    const browser = await launchChromium();
    onCleanup(() => browser.close());
    return browser;
  })
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
      await page.reload();
      await page.getByLabel('Period').fill('2026-04');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.getByText('rep-a, 2026-04: payable').waitFor();
      const rows = await page.locator('#lines tbody tr').allInnerTexts();
      assert.equal(rows.length, 1);
      assert.match(rows[0] ?? '', /won-rep-a/);
      assert.match(rows[0] ?? '', /Base commission/);
    } finally {
      await context.close();
      await repAccess.set(world.orgId, { corsAllowedOrigins: [] });
    }
  });
});
