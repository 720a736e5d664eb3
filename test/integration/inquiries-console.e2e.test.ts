import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { databaseStatements } from '../../src/repositories/transaction.ts';
import * as users from '../../src/repositories/users.ts';
import { createAdmin } from '../factories/admins.ts';
import { collectConsoleErrors, seriousAccessibilityViolations } from '../helpers/browser.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// The console's inquiries queue and an inquiry's page in a real browser: filter the queue, open an inquiry, answer
// the rep, start the review and resolve it with what settled it.

describe('the console’s inquiries', () => {
  test('the queue filters by assignee and age; an inquiry is answered, reviewed and resolved', async ({
    db,
    server,
    browser,
    org,
  }) => {
    const repId = await users.ensureRep(databaseStatements(db), org.id, 'rep-017');
    const desk = testServices({ db }).api.inquiries;
    const { inquiry } = await desk.open(
      org.id,
      { kind: 'rep', userId: repId, visibleUserIds: [repId] },
      {
        subject: { kind: 'statement', period_id: '2026-04' },
        type: 'missing_deal',
        message: 'Globex (closed 28 April) is not on my statement.',
      },
    );
    const { email, password } = await createAdmin(db, org.id);
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    try {
      await page.goto(`${server.url}/admin/`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Inquiries' }).click();
      await page.getByRole('heading', { level: 1, name: 'Inquiries' }).waitFor();
      const row = page.locator(`tr[data-inquiry-id="${inquiry.id}"]`);
      await row.waitFor();
      assert.deepEqual(await seriousAccessibilityViolations(page), []);

      await page.getByLabel('Assignee').selectOption('none');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await row.waitFor();
      await page.getByLabel('Age').selectOption('7');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByText('No inquiries match').waitFor();
      await page.getByRole('button', { name: 'Reset' }).click();
      await row.getByRole('link', { name: 'Missing deal' }).click();
      await page.getByRole('heading', { level: 1, name: 'Missing deal: rep-017' }).waitFor();
      await page.getByText('Globex (closed 28 April) is not on my statement.').waitFor();

      // The admin takes the inquiry. The select shows the choice while the assignment is on its way (held here), not
      // the assignee read before it.
      let releaseAssignment: () => void = () => undefined;
      const assignmentHeld = new Promise<void>((resolve) => {
        releaseAssignment = resolve;
      });
      await page.route('**/admin/v1/inquiries/*/assign', async (route) => {
        await assignmentHeld;
        await route.continue();
      });
      const assignee = page.getByLabel('Assign to');
      await assignee.selectOption({ label: email });
      await assignee.and(page.locator(':disabled')).waitFor();
      assert.equal(await assignee.locator('option:checked').textContent(), email);
      releaseAssignment();
      await page.getByText('Assigned.').waitFor();
      await assignee.and(page.locator(':enabled')).waitFor();
      assert.equal(await assignee.locator('option:checked').textContent(), email);
      await page.unroute('**/admin/v1/inquiries/*/assign');

      await page.getByLabel('Comment').fill('We are checking the CRM owner of Globex.');
      await page.getByRole('button', { name: 'Send comment' }).click();
      await page.getByText('Comment sent.').waitFor();
      await page.locator('.thread').getByText('We are checking the CRM owner of Globex.').waitFor();
      assert.notEqual(await page.locator('[data-field="first-response"]').textContent(), '—');

      await page.getByRole('button', { name: 'Start review' }).click();
      await page.locator('[data-field="state"]').getByText('In review').waitFor();
      assert.deepEqual(await seriousAccessibilityViolations(page), []);

      await page.getByLabel('Note to the rep').fill('Owner corrected in the CRM and recomputed.');
      await page.getByLabel('Settled by').selectOption('recompute');
      // Major units, by the currency's decimals: more than USD has are refused, saying so, and nothing is sent.
      await page.getByLabel('Amount changed (signed, in the currency)').fill('840.001');
      await page.getByRole('button', { name: 'Resolve', exact: true }).click();
      await page.getByText('Amount changed: USD amounts have at most 2 decimals.').waitFor();
      await page.getByLabel('Amount changed (signed, in the currency)').fill('840.00');
      await page.getByRole('button', { name: 'Resolve', exact: true }).click();
      await page.getByText('Resolved.').waitFor();
      await page.locator('[data-field="state"]').getByText('Resolved').waitFor();
      await page.locator('[data-field="resolution"]').getByText('$840.00').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Start review' }).count(), 0);
      assert.equal(await page.getByLabel('Comment').count(), 0, 'a closed inquiry offers no action');

      const stored = await desk.get(org.id, { kind: 'admin', admin: { kind: 'cli' } }, inquiry.id);
      assert.equal(stored.inquiry.state, 'resolved');
      assert.equal(stored.inquiry.assignee_email, email);
      assert.equal(stored.inquiry.amount_changed_cents, 84000);
      assert.deepEqual(stored.inquiry.links, [{ kind: 'recompute', target_id: null }]);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});
