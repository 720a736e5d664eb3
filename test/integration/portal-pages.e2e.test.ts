import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe } from 'vitest';
import type { Statement } from '../../sdk/src/index.ts';
import { formatMinorUnits } from '../../src/domain/currencies.ts';
import { collectConsoleErrors, seriousAccessibilityViolations } from '../helpers/browser.ts';
import { pdfText } from '../helpers/pdfText.ts';
import {
  NOT_FOUND_LOAD,
  PORTAL_SERVER_SETTINGS,
  payWorld,
  signInAs,
  THIS_MONTH,
  TODAY,
  test,
  won,
} from '../helpers/portalWorld.ts';

// The rep portal's pages end to end: a rep signs in through a real OpenID provider (oidc-provider, its own login
// page), and Chromium reads their pay, a trace, the downloads, an estimate, their plans and history; an address
// naming another rep's objects shows the not-found page; a manager sees their reports and no one else; a deal event
// sent while the page is open shows without a reload; sign-out ends the session. Every page is scanned by axe-core.

test.override('serverSettings', PORTAL_SERVER_SETTINGS);

/** The month `count` months before `month` (YYYY-MM). */
function monthsBefore(month: string, count: number): string {
  const at = new Date(`${month}-01T00:00:00Z`);
  at.setUTCMonth(at.getUTCMonth() - count);
  return at.toISOString().slice(0, 7);
}

/** Minor units from a shown amount (`$6,000.00`, `−$50.00`). */
function cents(text: string): number {
  const negative = /^[−-]/.test(text.trim());
  const digits = text.replace(/[^0-9]/g, '');
  return (negative ? -1 : 1) * Number(digits);
}

async function assertAccessible(page: Page) {
  assert.deepEqual(await seriousAccessibilityViolations(page), []);
}

function nav(page: Page, name: string) {
  return page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name });
}

describe('the rep portal', () => {
  // One rep's whole visit in one browser session (sign-in through the provider costs several seconds): longer than a
  // test's default minute on a loaded machine.
  test('a rep reads their pay, a trace, the downloads, an estimate, plans and history; others’ ids are not found; a deal shows live; sign-out ends it', {
    timeout: 240_000,
  }, async ({ db, server, idp, page, org, client, signedIn }) => {
    const { client: admin } = await signedIn('admin', org.id);
    const { rep, peer } = await payWorld(client, admin, org.id, idp);
    const statement: Statement = await client.statements.get(rep.id, THIS_MONTH);

    await signInAs(page, server, idp, org.id, 'rep-017');
    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
    // From here on, only the portal's pages are open (the provider's own pages ask for web fonts this machine
    // cannot reach): not one console error.
    const consoleErrors = collectConsoleErrors(page);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
    await page.getByText('opp-emea').first().waitFor();
    await assertAccessible(page);

    // The statement on the page: its rows add up to its payable total, which is the API's.
    const plan = statement.plans[0];
    assert.ok(plan);
    const table = page.getByRole('table', { name: `Lines of ${plan.plan_name}` });
    const shown = await table
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => [
          row.querySelector('.badge')?.textContent ?? '',
          row.querySelector('td.numeric')?.textContent ?? '',
        ]),
      );
    const payable = await table.locator('tfoot td.numeric').innerText();
    assert.equal(shown.length, plan.lines.length + plan.adjustments.length);
    // Payable is the sum of the rows that are earned (every status but projected).
    assert.equal(
      shown.filter(([status]) => status !== 'projected').reduce((total, [, amount]) => total + cents(amount ?? ''), 0),
      cents(payable),
    );
    assert.ok(shown.some(([status]) => status === 'projected'));
    assert.equal(cents(payable), plan.payable_cents);
    assert.equal(
      cents(await page.locator('.summary-card', { hasText: 'Payable' }).locator('dd').innerText()),
      statement.payable_cents,
    );

    // A line opens its trace.
    const line = plan.lines.find((candidate) => candidate.deal_external_id === 'opp-emea');
    assert.ok(line);
    await page.locator(`a[href="/portal/earnings/${line.earning_id}"]`).click();
    await page.getByRole('heading', { level: 2, name: 'Every step' }).waitFor();
    const trace = (await client.earnings.get(line.earning_id)).trace as { explanation: string[] };
    await page.getByText(trace.explanation[0] as string).waitFor();
    await assertAccessible(page);
    await page.getByRole('link', { name: /Back to/ }).click();
    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();

    // The downloads: the PDF's text holds the totals, the CSV's rows add up to them.
    const pdfDownload = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download PDF' }).click();
    const pdf = await pdfDownload;
    assert.equal(pdf.suggestedFilename(), `statement-rep-017-${THIS_MONTH}.pdf`);
    const { text } = await pdfText(new Uint8Array(await readFile((await pdf.path()) as string)));
    assert.ok(text.includes(`Payable ${formatMinorUnits(BigInt(statement.payable_cents), 'USD')}`), text);
    assert.ok(text.includes(`Pending ${formatMinorUnits(BigInt(statement.totals.pending_cents), 'USD')}`), text);
    const csvDownload = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const csv = await readFile((await (await csvDownload).path()) as string, 'utf8');
    const rows = csv.trim().split('\r\n').slice(1);
    assert.equal(rows.length, plan.lines.length + plan.adjustments.length);
    assert.equal(
      rows.reduce((total, row) => total + Number(row.split(',')[11]), 0),
      statement.payable_cents + statement.totals.projected_cents,
    );

    // What if the open deal closed today: the lines it would add, and the new attainment; nothing is written.
    const before = await client.earnings.listPage({ user_id: rep.id, limit: 200 });
    await nav(page, 'What if').click();
    await page.getByRole('heading', { level: 1, name: 'What if a deal closes?' }).waitFor();
    const open = (await client.deals.listPage({ external_id: 'opp-open' })).deals[0];
    assert.ok(open);
    await page.getByLabel('Deal').selectOption(open.id);
    await page.getByLabel('Close date').fill(TODAY);
    await assertAccessible(page);
    await page.getByRole('button', { name: 'Estimate' }).click();
    await page.getByText(/You would earn/).waitFor();
    await page.getByRole('meter', { name: /Attainment after/ }).waitFor();
    await assertAccessible(page);
    assert.deepEqual(await client.earnings.listPage({ user_id: rep.id, limit: 200 }), before);

    // Plans in plain language; history with its chart.
    await nav(page, 'My plans').click();
    await page.getByText("10% of each won deal's amount when region is one of EMEA, NA.").waitFor();
    await assertAccessible(page);
    const planDocument = page.waitForEvent('download');
    await page.getByRole('button', { name: /Plan document \(PDF\)/ }).click();
    const planText = await pdfText(new Uint8Array(await readFile((await (await planDocument).path()) as string)));
    assert.match(planText.text, /Core AE plan/);
    // History: a deal won two months ago starts the rep's history there; the months before it, before Quotient
    // knew the rep, are not shown as open $0 periods.
    const twoMonthsAgo = monthsBefore(THIS_MONTH, 2);
    await client.deals.ingestEvent({
      external_id: 'opp-earlier',
      state: { ...won('rep-017', 4_000_000, { region: 'NA' }), close_date: `${twoMonthsAgo}-15` },
    });
    await nav(page, 'History').click();
    await page.getByRole('img', { name: /Earnings and attainment by period/ }).waitFor();
    await assertAccessible(page);
    const periodsTable = page.getByRole('table').first();
    const periodRows = await periodsTable.locator('tbody th a').allInnerTexts();
    assert.equal(periodRows.length, 3, JSON.stringify(periodRows));
    assert.equal(await page.locator('.chart-bar').count(), 3);
    await page.getByText(/earlier ones had nothing for you in Quotient yet/).waitFor();
    // Attainment has its own axis: the dashed 100% quota line, labelled, is on none of the money gridlines.
    await page.locator('.chart-quota-label', { hasText: '100% quota' }).waitFor();
    const quotaY = Number(await page.locator('.chart-quota').getAttribute('y1'));
    const gridYs = (
      await page.locator('.chart-grid').evaluateAll((lines) => lines.map((line) => line.getAttribute('y1')))
    ).map(Number);
    assert.equal(gridYs.length, 2);
    for (const gridY of gridYs)
      assert.ok(Math.abs(gridY - quotaY) > 8, `quota at ${quotaY}, a money gridline at ${gridY}`);
    // At a phone's width Payable and Attainment are in sight without scrolling sideways.
    await page.setViewportSize({ width: 375, height: 800 });
    await assertAccessible(page);
    const wrap = await periodsTable.locator('xpath=..').boundingBox();
    assert.ok(wrap);
    for (const header of ['Payable', 'Attainment']) {
      const box = await periodsTable.getByRole('columnheader', { name: header }).boundingBox();
      assert.ok(
        box && box.x + box.width <= Math.min(375, wrap.x + wrap.width) + 0.5,
        `${header} at ${JSON.stringify(box)}`,
      );
    }
    assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= 375);
    await page.setViewportSize({ width: 1280, height: 720 });

    assert.deepEqual(consoleErrors, []);
    // Another rep's objects, by address: the not-found page, as for an id that does not exist. Chromium logs each
    // 404 answer it fetched as a console error of its own; those, and nothing else, are allowed here.
    const peerRow = (await client.earnings.listPage({ user_id: peer.id })).earnings[0];
    assert.ok(peerRow);
    for (const address of [
      `/portal/reps/${peer.id}`,
      `/portal/reps/${peer.id}/periods/${THIS_MONTH}`,
      `/portal/reps/${peer.id}/history`,
      `/portal/earnings/${peerRow.id}`,
      '/portal/earnings/earn_01kwq3m7a0f5b8k2x9y4z6c1d3',
    ]) {
      await page.goto(`${server.url}${address}`);
      await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    }
    await assertAccessible(page);
    assert.deepEqual(
      consoleErrors.filter((message) => !NOT_FOUND_LOAD.test(message)),
      [],
    );
    consoleErrors.length = 0;

    // Live: a deal won while the page is open shows without a reload.
    await page.goto(`${server.url}/portal/`);
    await page.getByText('· Live').waitFor();
    await client.deals.ingestEvent({ external_id: 'opp-live', state: won('rep-017', 1_000_000, { region: 'EMEA' }) });
    await page.getByText('opp-live').first().waitFor({ timeout: 5_000 });
    await page.getByText(/New earnings just arrived/).waitFor();

    // At a phone's width nothing scrolls sideways, and the pages stay accessible.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.getByText('opp-live').first().waitFor();
    assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= 375);
    await assertAccessible(page);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    assert.equal(await db.repSession.count({ where: { org_id: org.id, ended_at: null } }), 0);
    await page.goto(`${server.url}/portal/`);
    await page.getByRole('heading', { level: 1, name: 'Your pay' }).waitFor();
    assert.deepEqual(consoleErrors, []);
  });

  test('a manager sees their reports, read-only, and nobody else', async ({
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
    const named = await admin.api.POST('/admin/v1/reps/{id}/display-name', {
      params: { path: { id: rep.id } },
      body: { display_name: 'Dana Reyes' },
    });
    assert.equal(named.response.status, 200);

    await signInAs(page, server, idp, org.id, 'mgr-1');
    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
    const consoleErrors = collectConsoleErrors(page);
    await nav(page, 'My team').click();
    await page.getByRole('heading', { level: 1, name: 'My team' }).waitFor();
    const teamTable = page.locator('table.team-table');
    await teamTable.locator('tbody tr').first().waitFor();
    // Reports show by display name (docs/reps-and-payroll.md#display-names), their external id beside it; the
    // manager's own row is not among them.
    const rows = teamTable.locator('tbody tr');
    assert.equal(await rows.count(), 1);
    const row = rows.first();
    assert.match(await row.locator('th').innerText(), /^Dana Reyes rep-017\s+History(\s+of Dana Reyes)?$/);
    // Per report the period's payable, attainment against quota and pace, as the API's statement has them.
    const repStatement: Statement = await client.statements.get(rep.id, THIS_MONTH);
    const quotaPlan = repStatement.plans.find((candidate) => candidate.attainment.percent !== null);
    assert.ok(quotaPlan?.attainment.percent != null && quotaPlan.attainment.quota_cents !== null);
    const cells = await row.locator('td').allInnerTexts();
    assert.equal(cents(cells[0] ?? ''), repStatement.payable_cents);
    assert.equal(
      cells[1]?.replace(/\s+/g, ' '),
      `${quotaPlan.attainment.percent.toFixed(1)}% of ${formatMinorUnits(quotaPlan.attainment.quota_cents, 'USD', 'symbol')}`,
    );
    const day = Number(TODAY.slice(8, 10));
    const daysInMonth = new Date(Date.UTC(Number(TODAY.slice(0, 4)), Number(TODAY.slice(5, 7)), 0)).getUTCDate();
    const paced = quotaPlan.attainment.percent / (day / daysInMonth);
    assert.match(cells[2] ?? '', new RegExp(`^${paced.toFixed(0)}%\\s+(on pace|a little behind|behind)$`));
    await page
      .getByText(`${Math.round((day / daysInMonth) * 100)}% of`)
      .first()
      .waitFor();
    // The team's total: the reports' payable summed.
    assert.equal(cents(await teamTable.locator('tfoot td').first().innerText()), repStatement.payable_cents);
    await assertAccessible(page);
    // At a phone's width the whole table is in sight, nothing scrolls sideways.
    await page.setViewportSize({ width: 375, height: 800 });
    await assertAccessible(page);
    const [wrapScroll, wrapClient] = await teamTable.evaluate((table) => [
      table.parentElement?.scrollWidth ?? 0,
      table.parentElement?.clientWidth ?? 0,
    ]);
    assert.ok(wrapScroll <= (wrapClient ?? 0), `the team table fits a phone (${wrapScroll} > ${wrapClient})`);
    assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= 375);
    // Each row opens the rep's history and pay.
    await row.getByRole('link', { name: 'History of Dana Reyes' }).click();
    await page.getByRole('heading', { level: 1, name: /^History of/ }).waitFor();
    await page.goBack();
    await page.getByRole('link', { name: 'Dana Reyes', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Pay of Dana Reyes' }).waitFor();
    await page.getByText('opp-emea').first().waitFor();

    assert.deepEqual(consoleErrors, []);
    await page.goto(`${server.url}/portal/reps/${peer.id}`);
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    assert.deepEqual(
      consoleErrors.filter((message) => !NOT_FOUND_LOAD.test(message)),
      [],
    );
  });
});
