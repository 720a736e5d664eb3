import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { POLICY_YAML } from '../factories/accounting.ts';
import { commissionLockedInJanuary } from '../factories/accountingLedger.ts';
import { createAdmin } from '../factories/admins.ts';
import { collectConsoleErrors, launchChromium, seriousAccessibilityViolations } from '../helpers/browser.ts';
import { test as fixtureTest } from '../helpers/fixtures.ts';

// The console's Accounting page in a real browser: the roll-forward and journal of a booked commission, the CSV
// links, and closing a month after a confirmation.

const test = fixtureTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern.
  .extend('browser', { scope: 'file' }, async ({}, { onCleanup }) => {
    const browser = await launchChromium();
    onCleanup(() => browser.close());
    return browser;
  });

describe('the Accounting page of the admin console', () => {
  test('shows the roll-forward and journal entries of the months asked for, and closes a month', async ({
    db,
    server,
    browser,
    org,
    client,
    services,
  }) => {
    await commissionLockedInJanuary(db, org.id, client);
    await services.admin.accounting.applyPolicy({ orgId: org.id, text: POLICY_YAML });

    const { email, password } = await createAdmin(db, org.id);
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    await page.goto(`${server.url}/admin/accounting`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Accounting' }).waitFor();

    await page.getByLabel('From').fill('2026-01');
    await page.getByLabel('To').fill('2026-02');
    await page.getByRole('button', { name: 'Show months' }).click();
    const january = page.locator('tr[data-month="2026-01"]');
    await january.locator('[data-field="closing_cents"]', { hasText: '$3,500.00' }).waitFor();
    assert.equal(
      await page.locator('tr[data-month="2026-02"] [data-field="closing_cents"]').textContent(),
      '$3,400.00',
    );
    await page.getByRole('cell', { name: 'Commissions capitalised as costs of obtaining contracts' }).waitFor();
    assert.equal(
      await page.getByRole('link', { name: 'journal entries' }).getAttribute('href'),
      '/admin/v1/accounting/journal?from=2026-01&to=2026-02&format=csv',
    );
    assert.deepEqual(await seriousAccessibilityViolations(page), []);

    await page.getByLabel('Close a month').fill('2026-01');
    await page.getByRole('button', { name: 'Close…' }).click();
    await page.getByRole('dialog', { name: 'Close 2026-01?' }).getByRole('button', { name: 'Close month' }).click();
    await page.getByRole('status').getByText('Closed 2026-01 at').waitFor();
    await january.getByText('Closed').waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });
});
