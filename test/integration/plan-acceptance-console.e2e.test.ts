import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { stringify } from 'yaml';
import { createAdmin } from '../factories/admins.ts';
import { dealEvent, ingest } from '../factories/deals.ts';
import { planDocument } from '../factories/plans.ts';
import { collectConsoleErrors, seriousAccessibilityViolations, signInToConsole } from '../helpers/browser.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// The console's acceptance page in Chromium (docs/plan-acceptance.md): from a plan's version to who has and has not
// accepted it, a reminder sent with the Remind button, a second one refused within the hour; axe-clean.

describe('plan acceptance in the console', () => {
  test('an admin sees who has and has not accepted a version and reminds a rep', async ({
    db,
    server,
    browser,
    newOrg,
  }) => {
    const { org, rawKey, client } = await newOrg({
      scopes: ['deals:read', 'deals:write', 'earnings:read', 'plans:read', 'rep_tokens:write'],
    });
    await ingest(server, rawKey, dealEvent());
    await ingest(server, rawKey, dealEvent({}, { owner_external_id: 'rep-018' }));
    const services = testServices({ db });
    const applied = await services.admin.plans.apply({
      orgId: org.id,
      text: stringify(planDocument({ name: 'Field sales', assignees: ['rep-017', 'rep-018'] })),
    });
    const rep017 = await client.users.findByExternalId('rep-017');
    const minted = await client.repTokens.create({ user_id: rep017?.id as string });
    const accepted = await fetch(`${server.url}/v1/plans/${applied.plan_id}/acceptances`, {
      method: 'POST',
      headers: { authorization: `Bearer ${minted.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ typed_name: 'rep-017' }),
    });
    assert.equal(accepted.status, 200);

    const account = await createAdmin(db, org.id, 'admin');
    const page = await browser.newPage();
    const errors = collectConsoleErrors(page);
    await signInToConsole(page, `${server.url}/admin/`, account);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Plans' }).click();
    await page.getByRole('link', { name: 'Field sales' }).click();
    await page.getByRole('link', { name: 'Who accepted v1' }).click();
    await page.getByRole('heading', { level: 1, name: 'Acceptance of Field sales v1' }).waitFor();
    assert.equal(
      new URL(page.url()).pathname,
      `/admin/plans/${applied.plan_id}/versions/${applied.version_id}/acceptances`,
    );
    await page.getByText('1 accepted, 1 not yet.', { exact: false }).waitFor();

    const table = page.getByRole('table', { name: 'Who has and has not accepted v1' });
    const rows = (await table.getByRole('row').allInnerTexts()).slice(1).map((row) => row.split('\t')[0]?.trim());
    assert.deepEqual(rows, ['rep-018\nrep-018', 'rep-017\nrep-017']);
    assert.equal(await page.getByRole('button', { name: 'Remind rep-017' }).count(), 0, 'nothing to remind');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);

    await page.getByRole('button', { name: 'Remind rep-018' }).click();
    await page.getByText('rep-018 was reminded.').waitFor();
    await page.getByRole('button', { name: 'Remind rep-018' }).click();
    await page.getByText(/reminded at .*; remind again in/).waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);

    // The org setting beside the other pay settings, on the Periods page. The box must show the admin's choice from
    // the click on, whatever renders the page in between: here the periods list answers after the click, while the
    // save is held, and the settings are read late. (Re-rendered with the settings read before the save, the box went
    // back off: a flake in CI, and what an admin saw.)
    let releaseSave: () => void = () => undefined;
    const saveHeld = new Promise<void>((resolve) => {
      releaseSave = resolve;
    });
    await page.route('**/admin/v1/pay-settings', async (route) => {
      if (route.request().method() === 'GET') await new Promise((resolve) => setTimeout(resolve, 1_000));
      else await saveHeld;
      await route.continue();
    });
    await page.route('**/admin/v1/periods', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await route.continue();
    });
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Periods' }).click();
    const waitsForAcceptance = page.getByLabel('Pay waits for reps to accept their plan');
    await waitsForAcceptance.check();
    // The periods list has answered and the page has rendered again (this org has no periods yet: nothing is locked
    // and its deals closed in no period the plan pays).
    await page
      .getByText('No periods yet')
      .or(page.getByRole('table', { name: 'Periods with their earnings by status' }))
      .waitFor();
    assert.equal(await waitsForAcceptance.isChecked(), true, 'the box shows the choice while it is being saved');
    releaseSave();
    await page.getByText('Pay settings saved.').waitFor();
    assert.equal(await waitsForAcceptance.isChecked(), true, 'the box shows what was saved');
    assert.equal((await services.admin.approvals.settings(org.id)).pay_waits_for_acceptance, true);
    assert.deepEqual(
      errors.filter((error) => !error.includes('429')),
      [],
    );
  });
});
