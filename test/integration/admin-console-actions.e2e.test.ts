import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { describe } from 'vitest';
import { stringify } from 'yaml';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { seriousAccessibilityViolations } from '../helpers/browser.ts';
import { eventually } from '../helpers/clock.ts';
import { state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// The console's shared confirmation dialog and paged loading, on the pages whose actions the walk-through in
// admin-console.e2e.test.ts does not take: archive a plan, lock early, reopen and mark a period paid, deactivate and reactivate a rep, rotate a webhook secret, page
// through the audit log.

test.override('serverSettings', { env: { QUOTIENT_WEBHOOKS_ALLOW_PRIVATE: 'true' }, options: {} });

async function goTo(page: Page, link: string) {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link }).click();
  await page.getByRole('heading', { level: 1, name: link }).waitFor();
}

const focused = async (page: Page) => (await page.locator(':focus').textContent())?.trim();

describe('the admin console asks before it acts', () => {
  test('archiving a plan: Escape cancels and gives focus back, Archive archives', async ({ consolePage }) => {
    const { page, errors } = consolePage;
    await goTo(page, 'Plans');
    await page.getByRole('textbox', { name: 'Plan file' }).fill(stringify(planDocument({ name: 'Field sales' })));
    await page.getByRole('button', { name: 'Apply file' }).click();
    await page.getByRole('link', { name: 'Open the plan' }).click();
    await page.getByRole('heading', { level: 1, name: 'Field sales' }).waitFor();

    const archive = page.getByRole('button', { name: 'Archive plan' });
    const dialog = page.getByRole('dialog', { name: 'Archive Field sales?' });
    await archive.click();
    await dialog.getByText('The plan stops being evaluated and its projected earnings are reversed.').waitFor();
    assert.equal(await focused(page), 'Cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await focused(page), 'Archive plan');

    await archive.click();
    await dialog.getByRole('button', { name: 'Archive', exact: true }).click();
    await page.getByText('The plan is archived.').waitFor();
    await page.getByText('Archived', { exact: true }).waitFor();
    assert.equal(await archive.count(), 0);
    assert.deepEqual(errors, []);
  });

  test('a period locks (early only with a reason), reopens with a reason, then Cancel changes nothing and Mark paid pays', async ({
    consolePage,
  }) => {
    const { page, errors } = consolePage;
    await goTo(page, 'Periods');
    await page.getByText('No periods yet').waitFor();
    await page.getByLabel('Lock a period by id').fill('2099-11');
    await page.getByRole('button', { name: 'Lock…' }).click();
    await page.getByRole('dialog', { name: 'Lock 2099-11?' }).getByRole('button', { name: 'Lock period' }).click();
    await page.getByRole('heading', { name: '2099-11 has not ended' }).waitFor();
    await page.getByText('Its last day is 2099-11-30.').waitFor();
    await page.getByLabel('Lock anyway, because').fill('a dry run of next year');
    await page.getByRole('button', { name: 'Lock with override' }).click();
    await page.getByText('Locked 2099-11: 0 pending earnings approved.').waitFor();

    await page.getByLabel('Lock a period by id').fill('2026-04');
    await page.getByRole('button', { name: 'Lock…' }).click();
    await page.getByRole('dialog', { name: 'Lock 2026-04?' }).getByRole('button', { name: 'Lock period' }).click();
    await page.getByText('Locked 2026-04: 0 pending earnings approved.').waitFor();

    const reopen = page.getByRole('dialog', { name: 'Reopen 2026-04?' });
    await page.getByRole('button', { name: 'Reopen 2026-04' }).click();
    const confirmReopen = reopen.getByRole('button', { name: 'Reopen', exact: true });
    assert.equal(await confirmReopen.isDisabled(), true);
    await reopen.getByLabel('Reason (recorded in the audit log)').fill('a deal closed in April arrived late');
    await confirmReopen.click();
    await page.getByText('Reopened 2026-04: 0 approved earnings pending again; its approvals are reset.').waitFor();
    const status = page.locator('tr[data-period-id="2026-04"] [data-field="status"]');
    await status.getByText('Open').waitFor();
    await page.getByRole('button', { name: 'Lock 2026-04' }).click();
    await page.getByRole('dialog', { name: 'Lock 2026-04?' }).getByRole('button', { name: 'Lock period' }).click();
    await status.getByText('Locked').waitFor();

    const markPaid = page.getByRole('button', { name: 'Mark 2026-04 paid' });
    const dialog = page.getByRole('dialog', { name: 'Mark 2026-04 paid?' });
    await markPaid.click();
    await dialog
      .getByText('Approved earnings become paid, and a paid period never reopens.', { exact: false })
      .waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await status.textContent())?.trim(), 'Locked');

    await markPaid.click();
    await dialog.getByRole('button', { name: 'Mark paid' }).click();
    await page.getByText('Marked 2026-04 paid: 0 approved earnings paid.').waitFor();
    await status.getByText('Paid').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Reopen 2026-04' }).count(), 0);
    // The one refusal the browser logs: the early lock without a reason.
    assert.deepEqual(errors, ['Failed to load resource: the server responded with a status of 409 (Conflict)']);
  });

  test('four-eyes payment: the first admin only requests, as the dialog says, and the request shows on the periods and on the sign-off board with the totals and adjustments in dollars', async ({
    consolePage,
    client,
    db,
    org,
    server,
  }) => {
    const { page, errors } = consolePage;
    await applyPlan(db, org.id, planDocument());
    await client.deals.ingestEvent({
      external_id: 'opp-board',
      state: { ...state(1_000_000, 'closed_won', '2026-05-10', { region: 'NA' }), owner_external_id: 'rep-b' },
    });
    const services = testServices({ db }).admin;
    await services.adjustments.create(org.id, {
      user_external_id: 'rep-b',
      period_id: '2026-05',
      amount_cents: 12_345,
      category: 'one_off_bonus',
      reason: 'a spiff',
    });
    await goTo(page, 'Periods');
    const row = page.locator('tr[data-period-id="2026-05"]');
    const earned = (
      await client.statements.get(
        (
          await db.user.findFirstOrThrow({ where: { org_id: org.id, external_id: 'rep-b' } })
        ).id,
        '2026-05',
      )
    ).payable_cents;
    const dollars = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
    await row.locator('[data-field="adjustments"]').getByText('$123.45').waitFor();
    await row.locator('[data-field="payable"]').getByText(dollars(earned)).waitFor();

    await page.getByLabel('Four-eyes payment (a second admin confirms Mark paid)').check();
    await page.getByText('Pay settings saved.').waitFor();
    await page.getByRole('button', { name: 'Lock 2026-05' }).click();
    await page.getByRole('dialog', { name: 'Lock 2026-05?' }).getByRole('button', { name: 'Lock period' }).click();
    await row.locator('[data-field="status"]').getByText('Locked').waitFor();
    await page.getByRole('button', { name: 'Mark 2026-05 paid' }).click();
    const dialog = page.getByRole('dialog', { name: 'Request the payment of 2026-05?' });
    await dialog
      .getByText('this records your request to pay 2026-05, and nothing is paid yet', { exact: false })
      .waitFor();
    assert.equal(await dialog.getByText('never reopens', { exact: false }).count(), 0);
    assert.equal(await dialog.getByText('cannot be undone', { exact: false }).count(), 0);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await dialog.getByRole('button', { name: 'Request payment' }).click();
    await page.getByText(/^Payment of 2026-05 requested by /).waitFor();
    await row
      .locator('[data-field="payment-request"]')
      .getByText(/^Payment requested by .+@/)
      .waitFor();
    assert.equal((await db.period.findFirstOrThrow({ where: { org_id: org.id, id: '2026-05' } })).status, 'locked');

    // The board: who asked, the totals with the adjustment and what the payroll file pays, each in dollars.
    await page.getByRole('link', { name: 'Board of 2026-05' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign-off: 2026-05' }).waitFor();
    await page
      .getByTestId('payment-request')
      .getByText('A second, different admin pays it', { exact: false })
      .waitFor();
    const totals = page.getByTestId('sign-off-totals');
    await totals.getByText(dollars(earned), { exact: true }).waitFor();
    assert.match(await totals.innerText(), /adjustments \$123\.45; the payroll file pays \$/);
    await page
      .locator('tr', { hasText: 'rep-b' })
      .locator('[data-field="approval"]')
      .getByText('Not required')
      .waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    assert.ok(server.url);
    assert.deepEqual(errors, []);
  });

  test('a leaving rep is deactivated with their last day, then reactivated', async ({ consolePage, client }) => {
    const { page, errors } = consolePage;
    await client.deals.ingestEvent({
      external_id: 'opp-leaver',
      state: { amount_cents: 100_000, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: 'rep-leaver' },
    });
    await goTo(page, 'Reps');
    await page.getByRole('button', { name: 'Deactivate rep-leaver' }).click();
    const dialog = page.getByRole('dialog', { name: 'Deactivate rep-leaver?' });
    await dialog.getByLabel('Leaving date (their last day)').fill('2026-05-15');
    await dialog.getByRole('button', { name: 'Deactivate', exact: true }).click();
    await page
      .getByText('rep-leaver is deactivated, leaving on 2026-05-15: 0 portal session(s) ended, 0 rep token(s) revoked.')
      .waitFor();
    await page.getByText('Left 2026-05-15').waitFor();
    await page.getByRole('button', { name: 'Reactivate rep-leaver' }).click();
    await page.getByText('rep-leaver is active again and can sign in.').waitFor();
    await page.getByRole('button', { name: 'Deactivate rep-leaver' }).waitFor();
    assert.deepEqual(errors, []);
  });

  test('rotating a webhook secret shows the new secret once', async ({ consolePage }) => {
    const { page, errors } = consolePage;
    await goTo(page, 'Webhooks');
    await page.getByText('No webhook endpoints').waitFor();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page
      .getByRole('dialog', { name: 'Add a webhook endpoint' })
      .getByLabel('URL')
      .fill('https://127.0.0.1:9/hook');
    await page.getByRole('dialog').getByRole('button', { name: 'Add endpoint' }).click();
    await page
      .getByRole('dialog', { name: 'Endpoint added: its signing secret' })
      .getByText(/^whsec_/)
      .waitFor();
    await page.getByRole('button', { name: 'I have stored the secret' }).click();
    await page.getByRole('button', { name: 'Deliveries' }).click();
    await page.getByText('No deliveries yet.').waitFor();

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.getByText('The current one keeps signing too for 24 hours').waitFor();
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await page
      .getByRole('dialog', { name: 'The new signing secret' })
      .getByText(/^whsec_/)
      .waitFor();
    await page.getByRole('button', { name: 'I have stored the secret' }).click();
    await page.getByText(/previous secret valid until/).waitFor();
    assert.deepEqual(errors, []);
  });
});

describe('the audit log pages', () => {
  test('older entries are added below the first 25 until the end of the log', async ({
    db,
    server,
    org,
    rawKey,
    consolePage,
  }) => {
    const { page, errors } = consolePage;
    for (let call = 0; call < 30; call++) {
      const answer = await fetch(`${server.url}/v1/`, { headers: { authorization: `Bearer ${rawKey}` } });
      assert.equal(answer.status, 200);
    }
    await eventually(async () => {
      const audited = await db.auditEntry.count({ where: { org_id: org.id, action: 'request' } });
      return audited === 30 ? audited : undefined;
    });
    await goTo(page, 'Audit log');
    await page.getByLabel('Action').fill('request');
    const filtered = page.waitForResponse((response) => response.url().includes('action=request'));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await filtered;

    const more = page.getByRole('button', { name: 'Load older entries' });
    await more.waitFor();
    const rows = page.getByRole('table', { name: 'Audit entries' }).locator('tbody tr');
    assert.equal(await rows.count(), 25);
    await more.click();
    await page.getByText('End of the log for these filters.').waitFor();
    const actions = await rows.locator('td:nth-child(3)').allTextContents();
    assert.deepEqual(actions, Array(30).fill('request'));
    assert.deepEqual(errors, []);
  });
});
