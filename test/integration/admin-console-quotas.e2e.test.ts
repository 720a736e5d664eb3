import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { createAdmin } from '../factories/admins.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { collectConsoleErrors, seriousAccessibilityViolations } from '../helpers/browser.ts';
import { test } from '../helpers/fixtures.ts';

// The console's Quotas page in a real browser: a bad quota file refused by line with nothing applied, a good one
// applied and listed, the same file again a no-op.

describe('quotas in the admin console', () => {
  test('a quota file is refused by line, then applied and listed; the same file again changes nothing', async ({
    db,
    server,
    browser,
    org,
  }) => {
    const plan = planDocument();
    await applyPlan(db, org.id, plan);
    const { email, password } = await createAdmin(db, org.id);
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    const upload = async (name: string, text: string) => {
      await page.locator('#quota-file').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
      await page.getByText(name).waitFor();
      await page.getByRole('button', { name: 'Upload quotas' }).click();
    };
    try {
      await page.goto(`${server.url}/admin/`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Quotas' }).click();
      await page.getByRole('heading', { level: 1, name: 'Quotas' }).waitFor();
      await page.getByText('No quotas set').waitFor();

      const header = 'rep_external_id,plan_key,from,quota,start_date';
      await upload('bad.csv', `${header}\nrep-1,${plan.key},2026-01-01,90000.00,\nrep-2,${plan.key},2026-01-01,abc,\n`);
      await page.getByText(/line 3: quota: "abc" is not an amount/).waitFor();
      assert.equal(await db.repQuota.count({ where: { org_id: org.id } }), 0);

      const good = `${header}\nrep-1,${plan.key},2026-01-01,90000.00,2026-01-12\n`;
      await upload('good.csv', good);
      await page.getByText('1 quota entry and 1 start date changed; 0 earnings rows recomputed.').waitFor();
      // The quota in the plan's currency, by the shared formatter, not in minor units.
      await page.getByRole('cell', { name: '$90,000.00' }).waitFor();
      assert.deepEqual(await seriousAccessibilityViolations(page), []);

      await upload('good-again.csv', good);
      await page.getByText('Nothing changed: every quota and start date was already so (1 row).').waitFor();
      // The refused upload's 400 is the browser's only complaint.
      assert.deepEqual(
        errors.filter((error) => !/status of 400/.test(error)),
        [],
      );
    } finally {
      await page.close();
    }
  });
});
