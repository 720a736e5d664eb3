import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { describe } from 'vitest';
import type { QuotientClient } from '../../sdk/src/index.ts';
import type { Database } from '../../src/db/prisma.ts';
import { POLICY_YAML } from '../factories/accounting.ts';
import { commissionLockedInJanuary } from '../factories/accountingLedger.ts';
import { createAdmin } from '../factories/admins.ts';
import { collectConsoleErrors, seriousAccessibilityViolations, signInToConsole } from '../helpers/browser.ts';
import { test } from '../helpers/fixtures.ts';
import type { testServices } from '../helpers/services.ts';

// The console's Accounting page in a real browser: the roll-forward and journal of a booked commission, the CSV
// links, closing a month after a confirmation, a deal's schedules with their traces, and the policy in force and
// applying a policy file.

/** A new page signed in on the Accounting page, and the errors it logs. */
async function openAccounting(browser: Browser, url: string, account: { email: string; password: string }) {
  const page = await browser.newPage();
  const errors = collectConsoleErrors(page);
  await signInToConsole(page, `${url}/admin/accounting`, account);
  return { page, errors };
}

/** The commission of `commissionLockedInJanuary` booked under the test policy, and the Accounting page open. */
async function openWithACommissionBooked(fixtures: {
  db: Database;
  org: { id: string };
  client: QuotientClient;
  services: ReturnType<typeof testServices>;
  browser: Browser;
  server: { url: string };
}) {
  const { db, org, client, services } = fixtures;
  await commissionLockedInJanuary(db, org.id, client);
  await services.admin.accounting.applyPolicy({ orgId: org.id, text: POLICY_YAML });
  return openAccounting(fixtures.browser, fixtures.server.url, await createAdmin(db, org.id));
}

describe('the Accounting page of the admin console', () => {
  test('shows the roll-forward and journal entries of the months asked for, and closes a month', async ({
    db,
    server,
    browser,
    org,
    client,
    services,
  }) => {
    const fixtures = { db, server, browser, org, client, services };
    const { page, errors } = await openWithACommissionBooked(fixtures);
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

  test("shows a rep's schedules with each month's trace, the policy in force, and applies a policy file", async ({
    db,
    server,
    browser,
    org,
    client,
    services,
  }) => {
    const fixtures = { db, server, browser, org, client, services };
    const { page, errors } = await openWithACommissionBooked(fixtures);

    await page.getByRole('button', { name: 'Schedules' }).click();
    await page.getByText('Choose a deal or a rep', { exact: true }).waitFor();
    await page.getByLabel('Deal (external id)').fill('opp-404');
    await page.getByLabel('Deal (external id)').press('Enter');
    await page.getByText('No schedules for deal opp-404', { exact: true }).waitFor();
    await page.getByLabel('Deal (external id)').fill('');
    await page.getByLabel('Rep (external id)').fill('rep-1');
    await page.getByRole('button', { name: 'Show schedules' }).click();
    const january = page.locator('tr[data-month="2026-01"]');
    await january.locator('[data-field="additions_cents"]', { hasText: '$3,600.00' }).waitFor();
    assert.equal(await january.locator('[data-field="closing_cents"]').textContent(), '$3,500.00');
    await page.getByText(/^Deal opp-1 · rep rep-1 · plan core-ae · chip base/).waitFor();
    const trace = january.getByText('How 2026-01 is worked out');
    await trace.focus();
    await page.keyboard.press('Enter');
    await january.getByText(/^Amortisation floor\(360000 × 1 ÷ 36\) = 10000/).waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);

    await page.getByRole('button', { name: 'Policy' }).click();
    await page.getByRole('heading', { name: /^Policy version 1, applied/ }).waitFor();
    await page.getByText('expensed at once up to 12 months').waitFor();
    await page
      .getByRole('textbox', { name: 'Accounting policy file' })
      .fill(POLICY_YAML.replace('book: asc_340_40', 'book: gaap').replace('default_months: 36', 'default_months: 0'));
    await page.getByRole('button', { name: 'Apply file' }).click();
    const problems = page.locator('#policy-problems');
    await problems.getByText('has 2 problems; nothing was applied').waitFor();
    assert.deepEqual(
      (await problems.locator('li').allTextContents()).map((text) => text.split(':')[0]),
      ['book line 1', 'benefit_period.default_months line 7'],
    );
    assert.deepEqual(await seriousAccessibilityViolations(page), []);

    await page
      .getByRole('textbox', { name: 'Accounting policy file' })
      .fill(POLICY_YAML.replace('book: asc_340_40', 'book: ifrs_15'));
    await page.getByRole('button', { name: 'Apply file' }).click();
    await page.getByText('Applied: policy version 2.').waitFor();
    await page.getByRole('heading', { name: /^Policy version 2, applied/ }).waitFor();
    // The browser logs the broken file's 422, which the page answers with its problems.
    assert.deepEqual(errors, [
      'Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)',
    ]);
    await page.close();
  });

  test('an org without a policy is told so and applies its first policy file there', async ({
    db,
    server,
    browser,
    org,
  }) => {
    const { page, errors } = await openAccounting(browser, server.url, await createAdmin(db, org.id));
    await page.getByText('No accounting policy yet', { exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Schedules' }).count(), 0);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);

    await page.getByRole('textbox', { name: 'Accounting policy file' }).fill(POLICY_YAML);
    await page.getByRole('button', { name: 'Apply file' }).click();
    await page.getByRole('button', { name: 'Schedules' }).waitFor();
    await page.getByRole('button', { name: 'Reports' }).waitFor();
    // The browser logs the policy's 404, which the page answers with its empty state.
    assert.deepEqual(errors, ['Failed to load resource: the server responded with a status of 404 (Not Found)']);
    await page.close();
  });
});
