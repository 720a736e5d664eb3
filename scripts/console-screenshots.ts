// Screenshots of the admin console for docs/admin-console.md: a demo org is seeded through the real services and
// API, and the tests' packaged Chromium (test/helpers/browser.ts) signs in and photographs each page into
// docs/console/.
//
//   DATABASE_URL=postgresql://…/an_empty_database node scripts/console-screenshots.ts
//
// Use a throwaway database: the script adds an org, an admin and demo data to it.

import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { setupServices } from '../bench/services.ts';
import { loadConfig } from '../src/config.ts';
import { createPrismaClient } from '../src/db/prisma.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startServer } from '../src/main.ts';
import * as orgs from '../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements } from '../src/repositories/transaction.ts';
import { buildConsole, launchChromium } from '../test/helpers/browser.ts';
import { noPlanChanges } from '../test/helpers/listeners.ts';

const OUT = fileURLToPath(new URL('../docs/console/', import.meta.url));
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('set DATABASE_URL to a throwaway database');

buildConsole();
const config = loadConfig({
  DATABASE_URL: databaseUrl,
  HOST: '127.0.0.1',
  PORT: '0',
  QUOTIENT_WEBHOOK_WORKER: 'false',
  QUOTIENT_WEBHOOKS_ALLOW_PRIVATE: 'true',
});
const server = await startServer(config, createLogger('warn'));
const db = createPrismaClient(databaseUrl, 2);
// The set-up's services, composed as the server and the CLI compose theirs; set-up runs on the Prisma client only.
const setupPool = createSqlPool(databaseUrl, 1, () => {});
const { admin } = setupServices(db, setupPool, config);

const org = await orgs.create(databaseStatements(db), 'Northwind Sales');
const { password } = await admin.admins.create({
  orgId: org.id,
  email: 'maya.chen@northwind.example',
  displayName: 'Maya Chen',
  role: 'admin',
});
await admin.admins.create({
  orgId: org.id,
  email: 'sam.ortiz@northwind.example',
  displayName: 'Sam Ortiz',
  role: 'viewer',
});
const keys = admin.keys;
const ingestion = await keys.create({
  orgId: org.id,
  name: 'Salesforce sync (production)',
  scopes: 'deals:write,deals:read',
});
await keys.create({ orgId: org.id, name: 'Payroll export', scopes: 'earnings:read', rateLimit: '120' });
const old = await keys.create({ orgId: org.id, name: 'BI dashboard (old)', scopes: 'earnings:read,plans:read' });
await keys.revoke(org.id, old.record.id);

const plan = {
  key: 'core-ae-2026',
  name: 'Core AE plan 2026',
  period: 'monthly',
  quota_cents: 10_000_000,
  assignees: 'all',
  chips: [
    { key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 },
    {
      key: 'accelerator',
      name: 'Accelerator over quota',
      kind: 'tiered_commission',
      mode: 'marginal',
      tiers: [
        { up_to_pct: 100, rate_bps: 0 },
        { up_to_pct: null, rate_bps: 500 },
      ],
    },
    {
      key: 'quota-bonus',
      name: 'Quota attainment bonus',
      kind: 'attainment_bonus',
      threshold_pct: 100,
      amount_cents: 200_000,
    },
  ],
};
await admin.planAdmin.apply({ orgId: org.id, text: stringify(plan) }, noPlanChanges);
plan.chips[0] = { ...plan.chips[0], rate_bps: 1200 } as (typeof plan.chips)[0];
plan.chips.push({
  key: 'new-logo',
  name: 'New logo SPIFF',
  kind: 'flat',
  amount_cents: 50_000,
  when: { field: 'custom.new_logo', op: 'eq', value: true },
} as unknown as (typeof plan.chips)[0]);
const applied = await admin.planAdmin.apply({ orgId: org.id, text: stringify(plan) }, noPlanChanges);
await admin.webhooks.add({
  orgId: org.id,
  url: 'https://hooks.northwind.example/quotient',
  events: 'earning.created,period.locked,period.paid',
});

const deals = [
  ['ada', 'opp-1001', 4_200_000, '2026-03-12', 'closed_won', true],
  ['ada', 'opp-1002', 7_900_000, '2026-03-27', 'closed_won', false],
  ['ben', 'opp-1003', 3_100_000, '2026-03-18', 'closed_won', true],
  ['ben', 'opp-1004', 6_400_000, '2026-04-09', 'closed_won', false],
  ['cleo', 'opp-1005', 12_500_000, '2026-04-21', 'closed_won', true],
  ['ada', 'opp-1006', 2_000_000, '2026-04-29', 'negotiation', false],
] as const;
for (const [owner, external, amount, closeDate, stage, newLogo] of deals) {
  const response = await fetch(`${server.url}/v1/deals/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ingestion.rawKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      external_id: external,
      state: {
        amount_cents: amount,
        stage,
        close_date: closeDate,
        owner_external_id: `rep-${owner}`,
        custom: { new_logo: newLogo },
      },
    }),
  });
  if (response.status !== 201) throw new Error(`deal event refused: ${await response.text()}`);
}

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1360, height: 860 }, deviceScaleFactor: 1 });
await mkdir(OUT, { recursive: true });
const shoot = async (name: string) => {
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${OUT}${name}.png`, fullPage: true });
};

await page.goto(`${server.url}/admin/`);
await page.getByLabel('Email').waitFor();
await page.getByLabel('Email').fill('maya.chen@northwind.example');
await shoot('sign-in');
await page.getByLabel('Password').fill(password);
await page.getByRole('button', { name: 'Sign in' }).click();
await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
const nav = (name: string) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name }).click();

// Lock March and pay it, lock April, through the console.
await nav('Periods');
await page.getByRole('button', { name: 'Lock 2026-03' }).click();
await page.getByRole('dialog', { name: 'Lock 2026-03?' }).getByRole('button', { name: 'Lock period' }).click();
await page.getByText('Locked 2026-03').waitFor();
await page.getByRole('button', { name: 'Mark 2026-03 paid' }).click();
await page.getByRole('dialog', { name: 'Mark 2026-03 paid?' }).getByRole('button', { name: 'Mark paid' }).click();
await page.getByText('Marked 2026-03 paid').waitFor();
await shoot('periods');

await nav('API keys');
await page.getByRole('row', { name: /Payroll export/ }).waitFor();
await shoot('api-keys');
await page.getByRole('button', { name: 'Create key' }).click();
await page.getByRole('dialog').getByLabel('Name').fill('Forecasting notebook');
await page
  .getByRole('dialog')
  .getByRole('checkbox', { name: /earnings:read/ })
  .check();
await page.getByRole('dialog').getByRole('button', { name: 'Create key' }).click();
await page.getByRole('dialog', { name: 'Your new API key' }).getByText(/^qtn_/).waitFor();
await page.screenshot({ path: `${OUT}api-key-created.png` });
await page.getByRole('button', { name: 'I have stored the key' }).click();

await nav('Plans');
await page
  .getByRole('textbox', { name: 'Plan file' })
  .fill(
    'key: broken-plan\nname: Broken plan\nperiod: weekly\nassignees: all\nchips:\n  - key: base\n    name: Base\n    kind: commission\n    rate_bps: ten percent\n',
  );
await page.getByRole('button', { name: 'Apply file' }).click();
await page.locator('#plan-problems').waitFor();
await shoot('plans-apply-problems');
await page.goto(`${server.url}/admin/plans/${applied.plan_id}`);
await page.getByRole('heading', { name: 'Rule chips of v2' }).waitFor();
await shoot('plan-versions');

await nav('Reps');
await page
  .getByRole('button', { name: /2026-03/ })
  .first()
  .click();
await page.getByRole('heading', { name: /rep-ada · 2026-03/ }).waitFor();
await shoot('reps');

await nav('Webhooks');
await page.getByRole('button', { name: 'Deliveries' }).click();
await page.getByRole('cell', { name: 'period.locked' }).first().waitFor();
await shoot('webhooks');

await nav('Audit log');
await page.getByRole('cell', { name: 'period.paid' }).waitFor();
await shoot('audit-log');

await nav('Admins');
await page.getByRole('cell', { name: 'Sam Ortiz' }).waitFor();
await shoot('admins');

await browser.close();
await setupPool.end();
await db.$disconnect();
await server.close();
process.stdout.write(`screenshots written to ${OUT}\n`);
