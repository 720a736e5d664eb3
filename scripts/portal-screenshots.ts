// Screenshots of the rep portal for docs/portal.md: the demo org (`quotient demo`: last month paid, this month open)
// is seeded through the real services, a rep signs in with a one-time link, and the tests' packaged Chromium
// (test/helpers/browser.ts) photographs each page into docs/portal/, at a laptop's and a phone's width.
//
//   DATABASE_URL=postgresql://…/an_empty_database node scripts/portal-screenshots.ts
//
// Use a throwaway database: the script adds an org, its reps and demo data to it.

import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { setupServices } from '../bench/services.ts';
import { loadConfig } from '../src/config.ts';
import { createPrismaClient } from '../src/db/prisma.ts';
import { signInLinkUrl } from '../src/http/portal/paths.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startServer } from '../src/main.ts';
import { createSqlPool } from '../src/repositories/transaction.ts';
import { buildBrowserApp, launchChromium } from '../test/helpers/browser.ts';

const OUT = fileURLToPath(new URL('../docs/portal/', import.meta.url));
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('set DATABASE_URL to a throwaway database');

buildBrowserApp('portal/vite.config.ts');
const config = loadConfig({
  DATABASE_URL: databaseUrl,
  HOST: '127.0.0.1',
  PORT: '0',
  QUOTIENT_WEBHOOK_WORKER: 'false',
  QUOTIENT_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
});
const server = await startServer(config, createLogger('warn'));
const db = createPrismaClient(databaseUrl, 2);
const setupPool = createSqlPool(databaseUrl, 2, () => {});
const { admin } = setupServices(db, setupPool, config);

const demo = await admin.demo.run('Northwind Sales');
const orgId = demo.org.id;
// Ana manages Ben, so her portal has a team.
await admin.repHierarchy.setManager({ orgId, repExternalId: 'ben', managerExternalId: 'ana', from: '2020-01-01' });
// An open deal of Ana's, for the what-if estimator.
const closeDate = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
await fetch(`${server.url}/v1/deals/events`, {
  method: 'POST',
  headers: { authorization: `Bearer ${demo.key.key}`, 'content-type': 'application/json' },
  body: JSON.stringify({
    external_id: 'demo-pipeline-cyberdyne',
    state: {
      amount_cents: 5_500_000,
      stage: 'proposal',
      close_date: closeDate,
      owner_external_id: 'ana',
      region: 'NA',
    },
  }),
});
const users = (await (
  await fetch(`${server.url}/v1/users?external_id=ana`, { headers: { authorization: `Bearer ${demo.key.key}` } })
).json()) as { users: Array<{ id: string }> };
const ana = users.users[0];
if (!ana) throw new Error('the demo has no rep ana');
await db.user.updateMany({ where: { id: ana.id }, data: { display_name: 'Ana Lima' } });
const link = await admin.portalAccess.createSignInLink({ orgId, rep: ana.id, expiresInMinutes: 30 });

const browser = await launchChromium();
const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1 });
const page = await context.newPage();
await mkdir(OUT, { recursive: true });
const shoot = async (target: Page, name: string) => {
  await target.waitForTimeout(400);
  await target.screenshot({ path: `${OUT}${name}.png`, fullPage: true });
};
const nav = (name: string) => page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name }).click();

await page.goto(signInLinkUrl(server.url, link.token));
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
await page.getByText('· Live').waitFor();
await shoot(page, 'my-pay');

await page
  .getByRole('link', { name: /How is this computed/ })
  .first()
  .click();
await page.getByRole('heading', { level: 2, name: 'Every step' }).waitFor();
await shoot(page, 'trace');

await nav('History');
await page.getByRole('img', { name: /Earnings and attainment by period/ }).waitFor();
await shoot(page, 'history');

await nav('What if');
await page.getByRole('heading', { level: 1, name: 'What if a deal closes?' }).waitFor();
const deal = page.getByLabel('Deal');
const firstDeal = await deal.locator('option').nth(1).getAttribute('value');
if (firstDeal) {
  await deal.selectOption(firstDeal);
  await page.getByRole('button', { name: 'Estimate' }).click();
  await page.getByText(/You would earn|would not change/).waitFor();
}
await shoot(page, 'what-if');

await nav('My plans');
await page.getByRole('heading', { level: 2 }).first().waitFor();
await shoot(page, 'plans');

await nav('My team');
await page.getByRole('link', { name: 'ben', exact: true }).waitFor();
await shoot(page, 'team');

const phone = await browser.newContext({
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 1,
  storageState: await context.storageState(),
});
const phonePage = await phone.newPage();
await phonePage.goto(`${server.url}/portal/`);
await phonePage.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
await shoot(phonePage, 'my-pay-phone');
await phonePage.goto(`${server.url}/portal/history`);
await phonePage.getByRole('img', { name: /Earnings and attainment by period/ }).waitFor();
await shoot(phonePage, 'history-phone');

// The statement's approval (docs/pay-workflow.md): under policy `rep` Ana approves this month's statement, then an
// adjustment resets her approval and the section shows what changed since.
await admin.approvals.updateSettings(orgId, { statement_approval_policy: 'rep' });
await page.goto(`${server.url}/portal/`);
const approval = page.locator('section').filter({ has: page.getByRole('heading', { level: 2, name: 'Approval' }) });
await approval.getByRole('button', { name: 'Approve statement' }).click();
await approval.getByText('Approved: nothing is waiting.').waitFor();
await admin.adjustments.create(orgId, {
  user_id: ana.id,
  period_id: new Date().toISOString().slice(0, 7),
  amount_cents: 120_000,
  category: 'correction',
  reason: 'Deal Globex (closed on the 2nd, missing from the CRM feed) paid by hand',
});
await page.reload();
await approval.getByRole('table', { name: 'What changed since it was approved' }).waitFor();
await page.waitForTimeout(400);
await approval.screenshot({ path: `${OUT}approval.png` });

await browser.close();
await setupPool.end();
await db.$disconnect();
await server.close();
process.stdout.write(`screenshots written to ${OUT}\n`);
