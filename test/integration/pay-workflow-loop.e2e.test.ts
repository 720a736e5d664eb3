import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe } from 'vitest';
import { createAdmin } from '../factories/admins.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { collectConsoleErrors, seriousAccessibilityViolations, signInToConsole } from '../helpers/browser.ts';
import { testDatabase } from '../helpers/database.ts';
import { connectProvider, PORTAL_SERVER_SETTINGS, signInAs, THIS_MONTH, test, won } from '../helpers/portalWorld.ts';
import { MINT_SCOPES } from '../helpers/repWorld.ts';
import { sdkClient } from '../helpers/sdk.ts';

// The pay workflow's worked example (docs/pay-workflow.md, issue 24) end to end in Chromium, through the rep portal
// and the console: the org's statements need the rep's approval before a lock. The rep approves their statement,
// then reports a deal that is missing from it; an admin finds the inquiry in the console's queue, pays the deal by
// hand with a manual adjustment and resolves the inquiry naming it. The rep's approval is reset by the change (the
// portal shows the difference), a lock now is refused naming the rep's statement; the rep reads the resolution,
// sees the adjustment on their statement and approves again; the lock succeeds and the payroll export has the
// rep's line with the adjustment. Each portal state is scanned by axe-core; the statement is approved from the
// keyboard and read at a phone's width. A second test: under rep then manager, a manager approves their report's
// statement in the portal once the rep has.

test.override('serverSettings', PORTAL_SERVER_SETTINGS);

const MISSING_DEAL_CENTS = 120_000;
const REASON = 'Deal opp-zeta (closed on the 2nd, missing from the CRM feed) paid by hand';

async function assertAccessible(page: Page) {
  assert.deepEqual(await seriousAccessibilityViolations(page), []);
}

function portalNav(page: Page, name: string) {
  return page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name });
}

async function consoleNav(page: Page, name: string) {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

function approvalSection(page: Page) {
  return page.locator('section').filter({ has: page.getByRole('heading', { level: 2, name: 'Approval' }) });
}

describe('the pay workflow, end to end', () => {
  test('a rep flags a missing deal, an admin pays it with an adjustment, the rep approves again, the period locks and exports', {
    timeout: 300_000,
  }, async ({ server, idp, browser, page, org, client, signedIn }) => {
    // The org: a plan paying rep-017 this month, sign-in through the test provider, an admin for the console.
    const { client: admin } = await signedIn('admin', org.id);
    await applyPlan(testDatabase(), org.id, planDocument());
    await client.deals.ingestEvent({ external_id: 'opp-acme', state: won('rep-017', 5_000_000, { region: 'NA' }) });
    await connectProvider(admin, idp);
    const rep = await client.users.findByExternalId('rep-017');
    assert.ok(rep);
    const before = await client.statements.get(rep.id, THIS_MONTH);
    assert.equal(before.manual_adjustments.length, 0);

    const consolePage = await browser.newPage({ acceptDownloads: true });
    consolePage.setDefaultTimeout(20_000);
    const consoleErrors = collectConsoleErrors(consolePage);
    const account = await createAdmin(testDatabase(), org.id);
    await signInToConsole(consolePage, `${server.url}/admin/`, account);
    await consolePage.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();

    // 0. The admin asks for the rep's approval before a lock (console, Periods).
    await consoleNav(consolePage, 'Periods');
    await consolePage.getByLabel('Statement approvals before lock').selectOption('rep');
    await consolePage.getByText('Pay settings saved.').waitFor();

    // 1. The rep signs in; My pay asks for their approval, which they give from the keyboard.
    await signInAs(page, server, idp, org.id, 'rep-017');
    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
    const portalErrors = collectConsoleErrors(page);
    const approval = approvalSection(page);
    await approval.getByText('Waiting for you to approve.').waitFor();
    await assertAccessible(page);
    const approve = approval.getByRole('button', { name: 'Approve statement' });
    await approve.focus();
    await page.keyboard.press('Enter');
    await approval.getByText(/^You approved your statement of /).waitFor();
    await approval.getByText('Approved: nothing is waiting.').waitFor();
    await approval.getByText(/^Approved by you on /).waitFor();
    assert.equal(await approve.count(), 0, 'an approved statement offers no Approve');
    await assertAccessible(page);

    // 2. Then they notice a deal is missing and report it from the statement.
    await page.getByRole('button', { name: 'Report a missing deal' }).click();
    const report = page.getByRole('dialog', { name: 'Report a missing deal' });
    assert.equal(await report.getByLabel('What is wrong').inputValue(), 'missing_deal');
    await report.getByLabel(/Expected amount \(USD/).fill('1,200.00');
    await report.getByLabel('Message').fill('opp-zeta closed on the 2nd and is not on my statement.');
    await report.getByRole('button', { name: 'Send question' }).click();
    await page.getByRole('heading', { level: 1, name: 'Missing deal' }).waitFor();
    const [inquiry] = (await client.inquiries.listPage({ user_id: rep.id })).inquiries;
    assert.ok(inquiry);
    assert.equal(inquiry.type, 'missing_deal');
    assert.deepEqual(inquiry.subject, { kind: 'statement', period_id: THIS_MONTH, earning_id: null, deal_id: null });

    // 3. The admin opens it from the console's queue and starts the review.
    await consoleNav(consolePage, 'Inquiries');
    await consolePage
      .locator(`tr[data-inquiry-id="${inquiry.id}"]`)
      .getByRole('link', { name: 'Missing deal' })
      .click();
    await consolePage.getByRole('heading', { level: 1, name: 'Missing deal: rep-017' }).waitFor();
    await consolePage.getByText('opp-zeta closed on the 2nd and is not on my statement.').waitFor();
    await consolePage.getByRole('button', { name: 'Start review' }).click();
    await consolePage.locator('[data-field="state"]').getByText('In review').waitFor();
    const inquiryAddress = consolePage.url();

    // 4. The admin pays the deal by hand: a correction in the rep's period (console, Adjustments).
    await consoleNav(consolePage, 'Adjustments');
    await consolePage.getByLabel('Rep (external id)').fill('rep-017');
    await consolePage.getByLabel('Period').first().fill(THIS_MONTH);
    await consolePage.getByLabel('Category').selectOption('correction');
    await consolePage.getByLabel('Amount').fill('1200.00');
    await consolePage.getByLabel('Reason').fill(REASON);
    await consolePage.getByRole('button', { name: 'Add adjustment' }).click();
    const added = consolePage.getByText(`Added $1,200.00 to rep-017 in ${THIS_MONTH}.`);
    await added.waitFor();
    const adjustmentId = /(adj_[0-9a-z]{26})/.exec((await added.textContent()) ?? '')?.[1];
    assert.ok(adjustmentId, 'the console names the adjustment it added');
    await consolePage.locator(`tr[data-adjustment-id="${adjustmentId}"]`).getByText(REASON).waitFor();

    // 5. Back on the inquiry, the admin resolves it with the adjustment linked.
    await consolePage.goto(inquiryAddress);
    await consolePage.getByRole('heading', { level: 1, name: 'Missing deal: rep-017' }).waitFor();
    await consolePage
      .getByLabel('Note to the rep')
      .fill('Paid by hand this month; the CRM owner is fixed for next time.');
    await consolePage.getByLabel('Settled by').selectOption('adjustment');
    await consolePage.getByLabel('Adjustment id').fill(adjustmentId);
    await consolePage
      .getByLabel('Amount changed (signed, in the currency)')
      .fill((MISSING_DEAL_CENTS / 100).toFixed(2));
    await consolePage.getByRole('button', { name: 'Resolve', exact: true }).click();
    await consolePage.getByText('Resolved.').waitFor();
    await consolePage.locator('[data-field="state"]').getByText('Resolved').waitFor();

    // 6. A lock now is refused: the rep's approval was of the statement before the adjustment.
    await consoleNav(consolePage, 'Periods');
    await consolePage.getByLabel('Lock a period by id').fill(THIS_MONTH);
    await consolePage.getByRole('button', { name: 'Lock…' }).click();
    await consolePage
      .getByRole('dialog', { name: `Lock ${THIS_MONTH}?` })
      .getByRole('button', { name: 'Lock period' })
      .click();
    await consolePage.getByRole('heading', { name: `Statements waiting for approval in ${THIS_MONTH}` }).waitFor();
    await consolePage.getByText('rep-017: waiting for the rep').waitFor();
    assert.equal(
      (await admin.api.GET('/admin/v1/periods')).data?.periods.find((p) => p.id === THIS_MONTH)?.status,
      'open',
    );

    // 7. The rep reads the resolution, naming the adjustment.
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Resolution' }).waitFor();
    await page.getByText('Paid by hand this month; the CRM owner is fixed for next time.').waitFor();
    await page.getByText('$1,200.00').first().waitFor();
    await page.getByText(`(${adjustmentId})`).waitFor();
    await assertAccessible(page);

    // 8. My pay: the adjustment on the statement, the approval reset with the difference; the rep approves again.
    await portalNav(page, 'My pay').click();
    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
    const adjustmentRow = page.locator(`tr[data-adjustment-id="${adjustmentId}"]`);
    await adjustmentRow.getByText(REASON).waitFor();
    assert.match(await adjustmentRow.innerText(), /Correction[\s\S]*pending[\s\S]*\$1,200\.00/);
    await approval
      .getByText('Waiting for you to approve. The statement changed since it was approved, so the approval was reset.')
      .waitFor();
    await approval.getByText(/^Reset because the statement changed: approved by you on /).waitFor();
    const difference = approval.getByRole('table', { name: 'What changed since it was approved' });
    const changed = difference.locator('tbody tr');
    assert.equal(await changed.count(), 1);
    assert.match(
      await changed.first().innerText(),
      /^Correction: Deal opp-zeta \(closed on the 2nd, missing from the CRM feed\) paid by hand\s+not there\s+\$1,200\.00$/,
    );
    const now = await client.statements.get(rep.id, THIS_MONTH);
    assert.equal(now.payable_cents, before.payable_cents + MISSING_DEAL_CENTS);
    assert.equal(now.manual_adjustments_cents, MISSING_DEAL_CENTS);
    assert.match(
      await difference.locator('tfoot').innerText(),
      new RegExp(`${dollars(before.payable_cents)}[\\s\\S]*${dollars(now.payable_cents)}`),
    );
    // What was approved the first time, unfolded from the keyboard.
    await approval.getByText('What was approved').focus();
    await page.keyboard.press('Enter');
    await approval.getByText(new RegExp(`^Payable: ${dollars(before.payable_cents)}$`)).waitFor();
    await assertAccessible(page);

    // At a phone's width nothing scrolls sideways, and the approval is taken there.
    await page.setViewportSize({ width: 375, height: 800 });
    assert.deepEqual(await widerThan(page, 375), []);
    await assertAccessible(page);
    await approval.getByRole('button', { name: 'Approve statement' }).click();
    await approval.getByText('Approved: nothing is waiting.').waitFor();
    const stands = await client.statements.approval(rep.id, THIS_MONTH);
    assert.equal(stands.state, 'approved');
    assert.equal(stands.steps[0]?.approval?.snapshot.payable_cents, now.payable_cents);
    assert.deepEqual(
      stands.steps[0]?.approval?.snapshot.adjustments.map((each) => [each.id, each.amount_cents]),
      [[adjustmentId, MISSING_DEAL_CENTS]],
    );

    // 9. The admin locks the period: nothing waits for approval now. The month is still running (the test's deals
    // close this month), so the lock asks for the reason it is locked early, and takes it.
    await consolePage.getByRole('button', { name: 'Lock…' }).click();
    await consolePage
      .getByRole('dialog', { name: `Lock ${THIS_MONTH}?` })
      .getByRole('button', { name: 'Lock period' })
      .click();
    await consolePage.getByRole('heading', { name: `${THIS_MONTH} has not ended` }).waitFor();
    await consolePage.getByLabel('Lock anyway, because').fill('Pay run for this month, closed early');
    await consolePage.getByRole('button', { name: 'Lock with override' }).click();
    await consolePage.getByText(new RegExp(`^Locked ${THIS_MONTH}: `)).waitFor();
    await consolePage.locator(`tr[data-period-id="${THIS_MONTH}"] [data-field="status"]`).getByText('Locked').waitFor();

    // The rep's statement is locked, approved, the adjustment approved with it.
    await page.reload();
    await approval.getByText('Approved: nothing is waiting.').waitFor();
    assert.match(await adjustmentRow.innerText(), /approved/);
    assert.equal(await approval.getByRole('button', { name: 'Approve statement' }).count(), 0);

    // 10. The payroll export has the rep's line with the adjustment: the console's file, and GET /v1/payouts.
    const [download] = await Promise.all([
      consolePage.waitForEvent('download'),
      consolePage.getByRole('link', { name: `Download the payroll CSV of ${THIS_MONTH}` }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `payroll-${THIS_MONTH}.csv`);
    const file = await readFile(await download.path(), 'utf8');
    const [header, ...rows] = file.trimEnd().split('\r\n');
    assert.equal(
      header,
      'user_id,user_external_id,currency,approved_cents,paid_cents,clawback_cents,draw_cents,adjustment_cents,total_cents,held_pending_acceptance_cents',
    );
    assert.deepEqual(rows, [
      `${rep.id},rep-017,USD,${now.payable_cents},0,0,0,${MISSING_DEAL_CENTS},${now.payable_cents},0`,
    ]);
    const payouts = [];
    for await (const payout of client.payouts.list({ period_id: THIS_MONTH })) payouts.push(payout);
    assert.equal(payouts.length, 1);
    const [line] = payouts;
    assert.equal(line?.user_external_id, 'rep-017');
    assert.equal(line?.adjustment_cents, MISSING_DEAL_CENTS);
    assert.equal(line?.total_cents, now.payable_cents);
    assert.equal(line?.approved_cents, now.payable_cents, 'the adjustment is approved with the period');

    assert.deepEqual(portalErrors, []);
    // The two refused locks (statements waiting, then the month not ended) are the failed requests the console reports.
    assert.deepEqual(consoleErrors, [
      'Failed to load resource: the server responded with a status of 409 (Conflict)',
      'Failed to load resource: the server responded with a status of 409 (Conflict)',
    ]);
    await consolePage.close();
  });

  test('under rep then manager, a manager approves their report’s statement in the portal once the rep has', async ({
    server,
    idp,
    page,
    newOrg,
    signedIn,
  }) => {
    // A key that may also mint rep tokens, for the rep's own approval.
    const { org, client } = await newOrg({ scopes: MINT_SCOPES });
    const { client: admin } = await signedIn('admin', org.id);
    await applyPlan(testDatabase(), org.id, planDocument());
    await client.deals.ingestEvent({ external_id: 'opp-acme', state: won('rep-017', 5_000_000, { region: 'NA' }) });
    await client.deals.ingestEvent({ external_id: 'opp-mgr', state: won('mgr-1', 1_000_000, { region: 'NA' }) });
    await connectProvider(admin, idp);
    const rep = await client.users.findByExternalId('rep-017');
    assert.ok(rep);
    const managed = await admin.api.POST('/admin/v1/reps/{id}/managers', {
      params: { path: { id: rep.id } },
      body: { manager_external_id: 'mgr-1', from: '2020-01-01' },
    });
    assert.equal(managed.response.status, 200);
    const policy = await admin.api.PUT('/admin/v1/pay-settings', {
      body: { statement_approval_policy: 'rep_then_manager' },
    });
    assert.equal(policy.response.status, 200);

    // The manager opens their report's pay: the rep's step waits first, so there is nothing for them to do yet.
    await signInAs(page, server, idp, org.id, 'mgr-1');
    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
    const errors = collectConsoleErrors(page);
    await portalNav(page, 'My team').click();
    await page.getByRole('link', { name: 'rep-017', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Pay of rep-017' }).waitFor();
    const approval = approvalSection(page);
    await approval.getByText('Waiting for the rep to approve.').waitFor();
    await approval.locator('[data-step="manager"]').getByText('Not yet: an earlier step waits first.').waitFor();
    assert.equal(await approval.getByRole('button', { name: 'Approve statement' }).count(), 0);
    await assertAccessible(page);

    // The rep approves (with a rep token, as the portal or an intranet would); now the manager's step waits.
    const minted = await client.repTokens.create({ user_id: rep.id });
    const asRep = sdkClient(server, minted.token, { maxRetries: 0 });
    assert.equal((await asRep.statements.approve(rep.id, THIS_MONTH)).statement_approval.state, 'waiting_manager');
    await page.reload();
    await approval.getByText('Waiting for you to approve.').waitFor();
    await approval
      .locator('[data-step="rep"]')
      .getByText(/^Approved by the rep on /)
      .waitFor();
    await assertAccessible(page);
    await approval.getByRole('button', { name: 'Approve statement' }).click();
    await approval.getByText('You approved rep-017’s statement of', { exact: false }).waitFor();
    await approval.getByText('Approved: nothing is waiting.').waitFor();
    await approval
      .locator('[data-step="manager"]')
      .getByText(/^Approved by you on /)
      .waitFor();
    const stands = await client.statements.approval(rep.id, THIS_MONTH);
    assert.equal(stands.state, 'approved');
    assert.deepEqual(
      stands.steps.map((step) => [step.step, step.standing]),
      [
        ['rep', true],
        ['manager', true],
      ],
    );
    assert.deepEqual(errors, []);
  });
});

function dollars(cents: number): string {
  return `\\$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
}

/** The elements that reach past the window's right edge (none, when nothing scrolls sideways). */
function widerThan(page: Page, width: number): Promise<string[]> {
  return page.evaluate(`(() => {
    if (document.documentElement.scrollWidth <= ${width}) return [];
    return [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > ${width} + 0.5)
      .map((element) => element.tagName.toLowerCase() + '.' + element.className + ' ' + Math.round(element.getBoundingClientRect().right))
      .slice(-25);
  })()`);
}
