import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { describe } from 'vitest';
import { stringify } from 'yaml';
import type { RunningServer } from '../../src/main.ts';
import { createOrg } from '../factories/access.ts';
import { createAdmin } from '../factories/admins.ts';
import { planDocument } from '../factories/plans.ts';
import { collectConsoleErrors, seriousAccessibilityViolations } from '../helpers/browser.ts';
import { test } from '../helpers/fixtures.ts';

// The console in a real browser (Debian's Chromium through playwright-core) against a real server and database:
// what an admin does, end to end, and an accessibility scan (axe-core) of every page.

test.override('serverSettings', { env: { QUOTIENT_WEBHOOKS_ALLOW_PRIVATE: 'true' }, options: {} });

async function signIn(server: RunningServer, page: Page, email: string, password: string) {
  await page.goto(`${server.url}/admin/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
}

async function goTo(page: Page, link: string, heading: string) {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

const BROKEN_PLAN = [
  'key: broken-plan',
  'name: Broken plan',
  'period: monthly',
  'assignees: all',
  'chips:',
  '  - key: base',
  '    name: Base commission',
  '    kind: commission',
  '    rate_bps: ten percent',
  '',
].join('\n');

describe('the admin console in a browser', () => {
  test('sign in, create a key and watch its last use, revoke it, apply a broken plan, lock a period, and find it all in the audit log', async ({
    db,
    server,
    page,
  }) => {
    const org = await createOrg(db);
    const { email, password } = await createAdmin(db, org.id);
    const consoleErrors = collectConsoleErrors(page);

    await signIn(server, page, email, password);
    assert.equal(
      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'API keys' })
        .getAttribute('aria-current'),
      'page',
    );
    await page.getByText('No API keys yet').waitFor();

    // Create a key with a scope and a limit; the raw key is shown once.
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an API key' });
    await dialog.getByLabel('Name').fill('CRM sync');
    await dialog.getByRole('checkbox', { name: /deals:read/ }).check();
    await dialog.getByLabel('Rate limit (requests per minute)').fill('600');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog', { name: 'Your new API key' }).getByText(/^qtn_/).waitFor();
    const rawKey = (await page.getByTestId('raw-key').textContent()) ?? '';
    assert.match(rawKey, /^qtn_[0-9a-f]{64}$/);
    await page.getByRole('button', { name: 'Copy key' }).waitFor();
    await page.getByRole('button', { name: 'I have stored the key' }).click();
    const row = page.getByRole('row', { name: /CRM sync/ });
    await row.getByText('600/min').waitFor();
    assert.equal((await row.locator('[data-field="last_used_at"]').textContent())?.trim(), 'Never');

    // A call with the key moves last_used_at in the console.
    const call = await fetch(`${server.url}/v1/`, { headers: { authorization: `Bearer ${rawKey}` } });
    assert.equal(call.status, 200);
    let lastUsed = 'Never';
    for (let attempt = 0; attempt < 50 && lastUsed === 'Never'; attempt++) {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.waitForTimeout(100);
      lastUsed = (await row.locator('[data-field="last_used_at"]').textContent())?.trim() ?? 'Never';
    }
    assert.notEqual(lastUsed, 'Never');

    // Revoke with confirmation; the next API call is refused.
    await row.getByRole('button', { name: 'Revoke CRM sync' }).click();
    await page.getByRole('dialog', { name: 'Revoke CRM sync?' }).getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Revoked CRM sync.').waitFor();
    await row.getByText('Revoked', { exact: true }).waitFor();
    const refused = await fetch(`${server.url}/v1/`, { headers: { authorization: `Bearer ${rawKey}` } });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: string }).error, 'invalid_key');

    // A broken plan file: its problems inline, nothing applied.
    await goTo(page, 'Plans', 'Plans');
    await page.getByRole('textbox', { name: 'Plan file' }).fill(BROKEN_PLAN);
    await page.getByRole('button', { name: 'Apply file' }).click();
    const problems = page.locator('#plan-problems');
    await problems.getByText('has 1 problem; nothing was applied').waitFor();
    assert.match((await problems.textContent()) ?? '', /chips\[0\]\.rate_bps line 9: must be a number/);
    await page.getByText('No plans yet').waitFor();

    // Lock a period by id, with confirmation.
    await goTo(page, 'Periods', 'Periods');
    await page.getByLabel('Lock a period by id').fill('2026-04');
    await page.getByRole('button', { name: 'Lock…' }).click();
    await page.getByRole('dialog', { name: 'Lock 2026-04?' }).getByRole('button', { name: 'Lock period' }).click();
    await page.getByText('Locked 2026-04: 0 pending earnings approved.').waitFor();
    await page.locator('tr[data-period-id="2026-04"] [data-field="status"]').getByText('Locked').waitFor();

    // All of it in the audit log, with the admin's email as actor.
    await goTo(page, 'Audit log', 'Audit log');
    await page.getByLabel('Actor').fill(email);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const expected = [
      [email, 'period.locked'],
      [email, 'plan.apply_refused'],
      [email, 'key.revoked'],
      [email, 'key.created'],
      [email, 'admin.signed_in'],
    ];
    // A row's inner text has its cells separated by tabs. The filtered page replaces the unfiltered one when its
    // answer arrives: read until it has.
    const actorAndAction = async () =>
      (await page.locator('tbody tr').allInnerTexts()).map((text) => {
        const cells = text.split('\t').map((cell) => cell.trim());
        return [cells[1], cells[2]];
      });
    let rows = await actorAndAction();
    for (let attempt = 0; attempt < 100 && JSON.stringify(rows) !== JSON.stringify(expected); attempt++) {
      await page.waitForTimeout(100);
      rows = await actorAndAction();
    }
    assert.deepEqual(rows, expected);
    await page.getByLabel('Actor').fill('');
    await page.getByLabel('Action').fill('request');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('cell', { name: /GET \/v1\/ → 200/ }).waitFor();

    // The only errors the page logged are the browser's notes on the refused plan file (422).
    assert.deepEqual(
      consoleErrors.filter((message) => !message.includes('status of 422')),
      [],
    );
  });

  test('every page passes an axe-core scan with no serious or critical violations, and logs no errors', async ({
    db,
    server,
    page,
  }) => {
    const org = await createOrg(db);
    const { email, password } = await createAdmin(db, org.id);
    const consoleErrors = collectConsoleErrors(page);
    const scanned: Record<string, unknown> = {};
    const scan = async (name: string) => {
      scanned[name] = await seriousAccessibilityViolations(page);
    };

    await page.goto(`${server.url}/admin/`);
    await page.getByLabel('Email').waitFor();
    await scan('sign-in');
    await signIn(server, page, email, password);

    // Some content on each page, so tables are scanned as well as empty states.
    await page.getByRole('button', { name: 'Create key' }).click();
    await scan('create-key dialog');
    await page.getByRole('dialog').getByLabel('Name').fill('Reporting');
    await page
      .getByRole('dialog')
      .getByRole('checkbox', { name: /plans:read/ })
      .check();
    await page.getByRole('dialog').getByRole('button', { name: 'Create key' }).click();
    await scan('raw key dialog');
    await page.getByRole('button', { name: 'I have stored the key' }).click();
    await page.getByRole('row', { name: /Reporting/ }).waitFor();
    await scan('keys');

    await goTo(page, 'Plans', 'Plans');
    await page.getByRole('textbox', { name: 'Plan file' }).fill(stringify(planDocument()));
    await page.getByRole('button', { name: 'Apply file' }).click();
    await page.getByRole('link', { name: 'Open the plan' }).waitFor();
    await scan('plans');
    await page.getByRole('link', { name: 'Open the plan' }).click();
    await page.getByRole('heading', { name: 'Rule chips of v1' }).waitFor();
    await scan('plan');

    await goTo(page, 'Periods', 'Periods');
    await scan('periods');
    await goTo(page, 'Reps', 'Reps');
    await scan('reps');
    await goTo(page, 'Webhooks', 'Webhooks');
    await scan('webhooks');
    await goTo(page, 'Admins', 'Admins');
    await page.getByRole('cell', { name: email }).waitFor();
    await scan('admins');
    await goTo(page, 'Audit log', 'Audit log');
    await page.getByRole('cell', { name: 'key.created' }).waitFor();
    await scan('audit log');

    assert.deepEqual(scanned, {
      'sign-in': [],
      'create-key dialog': [],
      'raw key dialog': [],
      keys: [],
      plans: [],
      plan: [],
      periods: [],
      reps: [],
      webhooks: [],
      admins: [],
      'audit log': [],
    });
    assert.deepEqual(consoleErrors, []);
  });

  test('a viewer sees the pages without the controls that change things', async ({ db, server, page }) => {
    const org = await createOrg(db);
    const viewer = await createAdmin(db, org.id, 'viewer');
    await signIn(server, page, viewer.email, viewer.password);
    await page.getByText('Viewer (read only)').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create key' }).count(), 0);
    await goTo(page, 'Plans', 'Plans');
    assert.equal(await page.getByRole('button', { name: 'Apply file' }).count(), 0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
  });
});
