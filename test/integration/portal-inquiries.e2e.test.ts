import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { describe } from 'vitest';
import { collectConsoleErrors, seriousAccessibilityViolations } from '../helpers/browser.ts';
import {
  NOT_FOUND_LOAD,
  PORTAL_SERVER_SETTINGS,
  payWorld,
  signInAs,
  THIS_MONTH,
  test,
  won,
} from '../helpers/portalWorld.ts';

// The portal's inquiries end to end: a rep signed in through a real OpenID provider questions a line of My pay in
// Chromium, finds it in My inquiries, comments; an admin (admin API) starts the review and resolves it with a comment;
// the rep's page shows the thread and the resolution. Another rep's inquiry by address is the not-found page; a
// manager lists their report's inquiries and not a peer's. Every new page is scanned by axe-core, at desktop and
// phone width.

test.override('serverSettings', PORTAL_SERVER_SETTINGS);

async function assertAccessible(page: Page) {
  assert.deepEqual(await seriousAccessibilityViolations(page), []);
}

function nav(page: Page, name: string) {
  return page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name });
}

describe('inquiries in the rep portal', () => {
  test('a rep questions a line, follows it in My inquiries, and reads the admin’s resolution; another rep’s is not found', {
    timeout: 240_000,
  }, async ({ server, idp, page, org, client, signedIn }) => {
    const { client: admin } = await signedIn('admin', org.id);
    const { rep, peer } = await payWorld(client, admin, org.id, idp);
    const statement = await client.statements.get(rep.id, THIS_MONTH);
    const plan = statement.plans[0];
    assert.ok(plan);
    const line = plan.lines.find((candidate) => candidate.deal_external_id === 'opp-emea');
    assert.ok(line);
    const peerOpened = await admin.api.POST('/admin/v1/inquiries', {
      body: {
        subject: { kind: 'statement', period_id: THIS_MONTH },
        user_id: peer.id,
        type: 'missing_deal',
        message: 'The peer’s own question.',
      },
    });
    assert.equal(peerOpened.response.status, 201);
    const peerInquiry = peerOpened.data;
    assert.ok(peerInquiry);

    await signInAs(page, server, idp, org.id, 'rep-017');
    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
    const consoleErrors = collectConsoleErrors(page);
    await page.reload();
    await page.getByText('opp-emea').first().waitFor();

    // Question the line, from the keyboard: the dialog takes focus, a bad amount is refused on the page.
    const question = page.getByRole('button', { name: /^Question this line \(.*opp-emea\)$/ });
    await question.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Question this line' });
    await dialog.waitFor();
    await assertAccessible(page);
    await dialog.getByLabel('What is wrong').selectOption('wrong_amount');
    await dialog.getByLabel(/Expected amount \(USD/).fill('12.345');
    await dialog.getByLabel('Message').fill('The EMEA deal should pay the accelerated rate.');
    await dialog.getByRole('button', { name: 'Send question' }).click();
    await dialog
      .getByRole('alert')
      .getByText(/at most 2 decimals/)
      .waitFor();
    assert.equal((await client.inquiries.listPage({ user_id: rep.id })).inquiries.length, 0);
    await dialog.getByLabel(/Expected amount \(USD/).fill('7,200.50');
    await dialog.getByRole('button', { name: 'Send question' }).click();

    // The inquiry's page: the question as sent.
    await page.getByRole('heading', { level: 1, name: 'Wrong amount' }).waitFor();
    const opened = (await client.inquiries.listPage({ user_id: rep.id })).inquiries;
    assert.equal(opened.length, 1);
    const inquiry = opened[0];
    assert.ok(inquiry);
    assert.deepEqual(inquiry.subject, {
      kind: 'earning',
      earning_id: line.earning_id,
      deal_id: line.deal_id,
      period_id: THIS_MONTH,
    });
    assert.deepEqual(inquiry.expected_amount, { amount_cents: 720_050, currency: 'USD' });
    assert.equal(inquiry.state, 'open');
    assert.ok(page.url().endsWith(`/portal/inquiries/${inquiry.id}`));
    await page.getByText('$7,200.50').waitFor();
    await assertAccessible(page);

    // My inquiries lists it (not the peer's); the rep adds a comment.
    await nav(page, 'My inquiries').click();
    await page.getByRole('heading', { level: 1, name: 'My inquiries' }).waitFor();
    const rows = page.getByRole('table', { name: 'Inquiries, newest first' }).locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().innerText(), /Wrong amount[\s\S]*open/);
    await assertAccessible(page);
    await rows.first().getByRole('link').click();
    await page.getByLabel('Add a comment').fill('Signed on the 3rd.');
    await page.getByRole('button', { name: 'Send comment' }).click();
    await page.getByText('Signed on the 3rd.').waitFor();

    // The admin starts the review and resolves it with a comment.
    const started = await admin.api.POST('/admin/v1/inquiries/{id}/start-review', {
      params: { path: { id: inquiry.id } },
    });
    assert.equal(started.response.status, 200);
    const commented = await admin.api.POST('/admin/v1/inquiries/{id}/comments', {
      params: { path: { id: inquiry.id } },
      body: { body: 'Checking the rate table now.' },
    });
    assert.equal(commented.response.status, 201);
    const resolved = await admin.api.POST('/admin/v1/inquiries/{id}/resolve', {
      params: { path: { id: inquiry.id } },
      body: {
        note: 'The accelerator applied; recomputed.',
        amount_changed: { amount_cents: 84_000, currency: 'USD' },
        links: [{ kind: 'recompute', id: null }],
      },
    });
    assert.equal(resolved.response.status, 200);

    // The rep sees the thread and the resolution; a closed inquiry offers no comment box or withdraw.
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Resolution' }).waitFor();
    await page.getByText('The accelerator applied; recomputed.').waitFor();
    await page.getByText('$840.00').waitFor();
    await page.getByText('A recompute').waitFor();
    await page.getByText('Checking the rate table now.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Withdraw' }).count(), 0);
    assert.equal(await page.getByLabel('Add a comment').count(), 0);
    await assertAccessible(page);
    await nav(page, 'My inquiries').click();
    await page.getByRole('table', { name: 'Inquiries, newest first' }).getByText('resolved').waitFor();

    // From the trace page too, and the statement's "Report a missing deal"; then withdraw it.
    await page.goto(`${server.url}/portal/earnings/${line.earning_id}`);
    await page.getByRole('heading', { level: 2, name: 'Every step' }).waitFor();
    await page.getByRole('button', { name: 'Question this line' }).click();
    await page.getByRole('dialog', { name: 'Question this line' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('link', { name: /Back to/ }).click();
    await page.getByRole('button', { name: 'Report a missing deal' }).click();
    const missing = page.getByRole('dialog', { name: 'Report a missing deal' });
    assert.equal(await missing.getByLabel('What is wrong').inputValue(), 'missing_deal');
    await missing.getByLabel('Message').fill('opp-zeta closed on the 2nd.');
    await missing.getByRole('button', { name: 'Send question' }).click();
    await page.getByRole('heading', { level: 1, name: 'Missing deal' }).waitFor();
    await page.getByRole('button', { name: 'Withdraw' }).click();
    await page.getByText(/This inquiry is closed/).waitFor();
    const statementInquiry = (await client.inquiries.listPage({ user_id: rep.id })).inquiries.find(
      (candidate) => candidate.subject.kind === 'statement',
    );
    assert.equal(statementInquiry?.state, 'withdrawn');
    assert.equal(statementInquiry?.subject.period_id, THIS_MONTH);

    // At a phone's width nothing scrolls sideways.
    await page.setViewportSize({ width: 375, height: 800 });
    await nav(page, 'My inquiries').click();
    await page.getByRole('table', { name: 'Inquiries, newest first' }).waitFor();
    assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= 375);
    await assertAccessible(page);
    assert.deepEqual(consoleErrors, []);

    // Another rep's inquiry by address: the not-found page, as for an id that does not exist.
    for (const address of [`/portal/inquiries/${peerInquiry.id}`, '/portal/inquiries/inq_01kwq3m7a0f5b8k2x9y4z6c1d3']) {
      await page.goto(`${server.url}${address}`);
      await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    }
    assert.deepEqual(
      consoleErrors.filter((message) => !NOT_FOUND_LOAD.test(message)),
      [],
    );
  });

  test('a manager lists their report’s inquiries and no one else’s', async ({
    server,
    idp,
    page,
    org,
    client,
    signedIn,
  }) => {
    const { client: admin } = await signedIn('admin', org.id);
    const { rep, peer } = await payWorld(client, admin, org.id, idp);
    await client.deals.ingestEvent({ external_id: 'opp-mgr', state: won('mgr-1', 1_000_000, { region: 'NA' }) });
    const set = await admin.api.POST('/admin/v1/reps/{id}/managers', {
      params: { path: { id: rep.id } },
      body: { manager_external_id: 'mgr-1', from: '2020-01-01' },
    });
    assert.equal(set.response.status, 200);
    for (const [userId, message] of [
      [rep.id, 'The report’s question.'],
      [peer.id, 'Someone else’s question.'],
    ] as const) {
      const opened = await admin.api.POST('/admin/v1/inquiries', {
        body: { subject: { kind: 'statement', period_id: THIS_MONTH }, user_id: userId, type: 'missing_deal', message },
      });
      assert.equal(opened.response.status, 201);
    }

    await signInAs(page, server, idp, org.id, 'mgr-1');
    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
    const consoleErrors = collectConsoleErrors(page);
    await nav(page, 'My inquiries').click();
    const rows = page.getByRole('table', { name: 'Inquiries, newest first' }).locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().innerText(), /rep-017 · The report’s question\./);
    await assertAccessible(page);
    assert.deepEqual(consoleErrors, []);
  });
});
