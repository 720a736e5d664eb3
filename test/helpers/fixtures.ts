import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { test as baseTest } from 'vitest';
import type { ServerOptions } from '../../src/main.ts';
import { createSqlPool } from '../../src/repositories/transaction.ts';
import { createOrg, createOrgWithKey } from '../factories/access.ts';
import { createAdmin } from '../factories/admins.ts';
import { adminClient } from './adminClient.ts';
import { closeTestDatabase, testDatabase } from './database.ts';
import { sdkClient } from './sdk.ts';
import { startTestServer } from './server.ts';
import { testServices } from './services.ts';

// The integration tests' fixtures (docs/testing.md): one real server per file, and per test an org with an API
// key and the SDK pointed at it; for the browser tests one Chromium per file, and per test a browser context. A fixture is set up only for the tests that destructure it, and torn down by
// vitest, so a file has no beforeAll/afterAll of its own for them.

/** What `startTestServer` is given: environment overrides and server options. A file changes them with test.override. */
export interface ServerSettings {
  env: Record<string, string>;
  options: ServerOptions;
}

export type OrgOptions = Parameters<typeof createOrgWithKey>[1];

export const test = baseTest
  // The Prisma client of factories and assertions (testDatabase()), closed after the file's last test.
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  .extend('db', { scope: 'file', auto: true }, async ({}, { onCleanup }) => {
    onCleanup(closeTestDatabase);
    return testDatabase();
  })
  // The services as the server and the CLI compose them (src/composition.ts), on the test database.
  .extend('services', { scope: 'file' }, async ({ db }) => testServices({ db }))
  .extend('serverSettings', { scope: 'file' }, { env: {}, options: {} } as ServerSettings)
  // The real app on port 0, started for the file's first test that needs it and closed after its last.
  .extend('server', { scope: 'file' }, async ({ serverSettings }, { onCleanup }) => {
    const server = await startTestServer(serverSettings.env, serverSettings.options);
    onCleanup(() => server.close());
    return server;
  })
  // A pg pool on the test database, for the services that take one (deal ingestion); ended after the file's last test.
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  .extend('pool', { scope: 'file' }, async ({}, { onCleanup }) => {
    const pool = createSqlPool(process.env.DATABASE_URL as string, 4, () => {});
    onCleanup(() => pool.end());
    return pool;
  })
  // A fresh org with an API key (every scope unless asked) and the SDK with that key: newOrg() for a test that
  // needs several orgs or a narrower key.
  .extend('newOrg', async ({ db, server }) => {
    return async (options: OrgOptions = {}) => {
      const { org, key, rawKey } = await createOrgWithKey(db, options);
      return { org, key, rawKey, client: sdkClient(server, rawKey) };
    };
  })
  // The test's own org, key and SDK client, for the common case of one org with every scope.
  .extend('orgWithKey', async ({ newOrg }) => newOrg())
  .extend('org', async ({ orgWithKey }) => orgWithKey.org)
  .extend('key', async ({ orgWithKey }) => orgWithKey.key)
  .extend('rawKey', async ({ orgWithKey }) => orgWithKey.rawKey)
  .extend('client', async ({ orgWithKey }) => orgWithKey.client)
  // An admin of a fresh org (or of orgId), signed in through the admin API as the console would be.
  .extend('signedIn', async ({ db, server }) => {
    return async (role: 'admin' | 'viewer' = 'admin', orgId?: string) => {
      const org = orgId ? { id: orgId } : await createOrg(db);
      const account = await createAdmin(db, org.id, role);
      const client = adminClient(server);
      const { response } = await client.signIn(account.email, account.password);
      assert.equal(response.status, 201);
      return { org, account, client };
    };
  })
  // Chromium (test/helpers/browser.ts), launched for the file's first test that needs it and closed after its last:
  // its launch costs seconds, a context of its own per test a few milliseconds. Loaded only by the files that ask.
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  .extend('browser', { scope: 'file' }, async ({}, { onCleanup }): Promise<Browser> => {
    const { launchChromium } = await import('./browser.ts');
    const browser = await launchChromium();
    onCleanup(() => browser.close());
    return browser;
  })
  // The test's own browser context (no cookies or storage of another test's), closed with its pages after the test.
  .extend('context', async ({ browser }, { onCleanup }): Promise<BrowserContext> => {
    const context = await browser.newContext({ acceptDownloads: true });
    onCleanup(() => context.close());
    return context;
  })
  // A page in the test's context.
  .extend('page', async ({ context }): Promise<Page> => context.newPage())
  // The test's org, an admin of it signed in to the console on the test's page, and the errors that page logs.
  .extend('consolePage', async ({ db, server, org, page }) => {
    const { collectConsoleErrors, signInToConsole } = await import('./browser.ts');
    const errors = collectConsoleErrors(page);
    await signInToConsole(page, `${server.url}/admin/`, await createAdmin(db, org.id));
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    return { page, errors };
  });
