import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { describe } from 'vitest';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';

// The pay workflow in the console: add and void a manual adjustment, then, under an approval policy, a lock
// refused with the statements waiting and locked with an override reason.

async function goTo(page: Page, link: string) {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link }).click();
  await page.getByRole('heading', { level: 1, name: link }).waitFor();
}

describe('the pay workflow in the console', () => {
  test('an adjustment is added, listed with who added it, and voided by a counter-adjustment', async ({
    consolePage,
    client,
  }) => {
    await client.deals.ingestEvent({ external_id: 'opp-1', state: state(1_000_000, 'open', '2026-04-10') });
    const { page, errors } = consolePage;
    await goTo(page, 'Adjustments');
    await page.getByText('No adjustments').waitFor();
    await page.getByLabel('Rep (external id)').fill('rep-017');
    await page.getByLabel('Period').first().fill('2026-04');
    await page.getByLabel('Category').selectOption('one_off_bonus');
    await page.getByLabel('Amount').fill('250.00');
    await page.getByLabel('Reason').fill('Spot bonus');
    await page.getByRole('button', { name: 'Add adjustment' }).click();
    await page.getByText('Added $250.00 to rep-017 in 2026-04.').waitFor();
    const row = page.locator('tr[data-adjustment-id]').first();
    await row.getByText('Spot bonus').waitFor();

    await row.getByRole('button', { name: /^Void / }).click();
    const confirm = page.getByRole('dialog').getByRole('button', { name: 'Void', exact: true });
    assert.equal(await confirm.isDisabled(), true);
    await page.getByLabel(/^Why void it/).fill('Entered twice');
    await confirm.click();
    await page.getByText(/^Voided adj_/).waitFor();
    await page.getByText('Entered twice').waitFor();
    await page.getByText('Voided', { exact: true }).waitFor();
    assert.equal(await page.locator('tr[data-adjustment-id]').count(), 2);
    assert.deepEqual(errors, []);
  });

  test('under an approval policy a lock lists the statements waiting, and locks with an override reason', async ({
    consolePage,
    client,
    db,
    org,
  }) => {
    await applyPlan(db, org.id, planDocument());
    await client.deals.ingestEvent({
      external_id: 'opp-1',
      state: state(1_000_000, 'closed_won', '2026-04-10', { region: 'NA' }),
    });
    const { page, errors } = consolePage;
    await goTo(page, 'Periods');
    await page.getByLabel('Statement approvals before lock').selectOption('rep');
    await page.getByText('Pay settings saved.').waitFor();
    await page.getByLabel('Lock a period by id').fill('2026-04');
    await page.getByRole('button', { name: 'Lock…' }).click();
    await page.getByRole('dialog', { name: 'Lock 2026-04?' }).getByRole('button', { name: 'Lock period' }).click();
    await page.getByRole('heading', { name: 'Statements waiting for approval in 2026-04' }).waitFor();
    await page.getByText('rep-017: waiting for the rep').waitFor();
    await page.getByLabel('Lock anyway, because').fill('Rep is on leave');
    await page.getByRole('button', { name: 'Lock with override' }).click();
    await page.locator('tr[data-period-id="2026-04"] [data-field="status"]').getByText('Locked').waitFor();
    // The refused lock is the one failed request the browser reports.
    assert.deepEqual(errors, ['Failed to load resource: the server responded with a status of 409 (Conflict)']);
  });
});
