import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';
import { createAdmin } from '../factories/admins.ts';
import { collectConsoleErrors, seriousAccessibilityViolations } from '../helpers/browser.ts';
import { test } from '../helpers/fixtures.ts';

// The console's upload of a CRM export, in a real browser: choose the file, check it (nothing applied, the report
// shown), import it.

const HUBSPOT = fileURLToPath(new URL('../../examples/imports/hubspot-deals.csv', import.meta.url));

describe('importing deals in the admin console', () => {
  test('a HubSpot export is checked with a dry run, then imported; the page says what each did and passes axe-core', async ({
    db,
    server,
    browser,
    org,
  }) => {
    const { email, password } = await createAdmin(db, org.id);
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    try {
      await page.goto(`${server.url}/admin/`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Import deals' }).click();
      await page.getByRole('heading', { level: 1, name: 'Import deals' }).waitFor();

      const importButton = page.getByRole('button', { name: 'Import', exact: true });
      assert.equal(await importButton.isDisabled(), true);
      await page.locator('#import-file').setInputFiles(HUBSPOT);
      await page.getByText('hubspot-deals.csv').waitFor();
      await page.getByRole('button', { name: 'Check (dry run)' }).click();
      await page
        .getByText(
          'Checked 320 rows (hubspot mapping): would import 320 new deals, 0 updates, 0 unchanged, 0 refused. Nothing was applied.',
        )
        .waitFor();
      assert.equal(await db.deal.count({ where: { org_id: org.id } }), 0);
      // The dry run's report, as the CLI's: how the file was read, and the reps the import would create.
      await page.getByText(/^CSV separated by ',', UTF-8; dates: /).waitFor();
      await page.getByText('New reps to be created', { exact: true }).waitFor();
      assert.deepEqual(await seriousAccessibilityViolations(page), []);

      await importButton.click();
      await page
        .getByText('Imported 320 rows (hubspot mapping): 320 new deals, 0 updates, 0 unchanged, 0 refused.')
        .waitFor();
      assert.equal(await db.deal.count({ where: { org_id: org.id } }), 320);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});
