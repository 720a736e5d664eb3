import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe } from 'vitest';
import { stringify } from 'yaml';
import { formatMinorUnits } from '../../src/domain/currencies.ts';
import { createAdmin } from '../factories/admins.ts';
import { planDocument } from '../factories/plans.ts';
import { collectConsoleErrors, seriousAccessibilityViolations, signInToConsole } from '../helpers/browser.ts';
import { pdfText } from '../helpers/pdfText.ts';
import { PORTAL_SERVER_SETTINGS, payWorld, signInAs, THIS_MONTH, test } from '../helpers/portalWorld.ts';

// Issue 25's check in Chromium, as one flow: an admin, in the console, uploads a quota file (the rep's own quota
// and start date) and applies a new version of the plan (with a ramp and a tier table); the rep, signed in to the
// portal through a real OpenID provider, sees the request on My pay, reads the document (their own ramped quota in
// it), accepts it by typing their name, from the keyboard; the admin sees the acceptance in the console; the accepted
// document's PDF holds the plan's tier table. Every page the rep sees is scanned by axe-core at desktop and phone
// width.

test.override('serverSettings', PORTAL_SERVER_SETTINGS);

/** Version 2 of the rep's plan: a ramp for new reps and a tier table in money, over the same key. */
function versionTwo(key: string) {
  return planDocument({
    key,
    ramp: [50, 75, 100],
    chips: [
      {
        key: 'tiers',
        name: 'Tiered commission',
        kind: 'tiered_commission',
        mode: 'marginal',
        tiers: [
          { up_to_cents: 5_000_000, rate_bps: 500 },
          { up_to_cents: 10_000_000, rate_bps: 800 },
          { up_to_cents: null, rate_bps: 1200 },
        ],
      },
      {
        key: 'quota-bonus',
        name: 'Quota attainment bonus',
        kind: 'attainment_bonus',
        threshold_pct: 100,
        amount_cents: 200_000,
      },
    ],
  });
}

/** The 5th of the month before this one: this month is month 2 of the rep's ramp. */
function startedLastMonth(): string {
  const [year, month] = THIS_MONTH.split('-').map(Number) as [number, number];
  return month === 1 ? `${year - 1}-12-05` : `${year}-${String(month - 1).padStart(2, '0')}-05`;
}

async function assertAccessible(page: Page, where: string) {
  assert.deepEqual(await seriousAccessibilityViolations(page), [], where);
}

/** Nothing of the page is wider than the window (a wide table scrolls in its own region). */
async function assertFitsWidth(page: Page) {
  const [scrollWidth, innerWidth] = (await page.evaluate(
    '[document.documentElement.scrollWidth, window.innerWidth]',
  )) as [number, number];
  const wider = (await page.evaluate(`[...document.querySelectorAll('body *')]
    .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 1)
    .filter((element) => !element.closest('.table-wrap'))
    .slice(0, 8)
    .map((element) => element.tagName + '.' + element.className + ' ' + Math.round(element.getBoundingClientRect().right))`)) as string[];
  assert.ok(
    scrollWidth <= innerWidth,
    `the page is ${scrollWidth}px wide in a ${innerWidth}px window: ${wider.join(', ')}`,
  );
}

function rowsOf(page: Page, table: string) {
  return page
    .getByRole('table', { name: table })
    .getByRole('row')
    .allInnerTexts()
    .then((rows) => rows.map((row) => row.split('\t').map((cell) => cell.trim())));
}

describe('plan acceptance, end to end', () => {
  test('the admin uploads quotas and applies a version; the rep reads their document and accepts; the admin sees it', {
    timeout: 300_000,
  }, async ({ db, server, idp, browser, page, org, client, rawKey, signedIn }) => {
    const { client: adminApi } = await signedIn('admin', org.id);
    const { rep } = await payWorld(client, adminApi, org.id, idp);
    await db.user.updateMany({ where: { id: rep.id }, data: { display_name: 'Dana Reyes' } });
    const [listed] = (await client.plans.listPage()).plans;
    assert.ok(listed);
    const plan = await client.plans.get(listed.id);
    const planKey = plan.key;
    const startDate = startedLastMonth();

    // The admin, in the console: the rep's quota file, then version 2 of the plan.
    const account = await createAdmin(db, org.id);
    const adminContext = await browser.newContext();
    const console_ = await adminContext.newPage();
    console_.setDefaultTimeout(20_000);
    const adminErrors = collectConsoleErrors(console_);
    await signInToConsole(console_, `${server.url}/admin/`, account);
    await console_.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await console_.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Quotas' }).click();
    await console_.getByRole('heading', { level: 1, name: 'Quotas' }).waitFor();
    const quotaFile = [
      'rep_external_id,plan_key,from,quota,start_date',
      `rep-017,${planKey},${THIS_MONTH}-01,120000.00,${startDate}`,
      '',
    ].join('\n');
    await console_
      .locator('#quota-file')
      .setInputFiles({ name: 'quotas.csv', mimeType: 'text/csv', buffer: Buffer.from(quotaFile) });
    await console_.getByText('quotas.csv').waitFor();
    await console_.getByRole('button', { name: 'Upload quotas' }).click();
    await console_.getByText(/^1 quota entry and 1 start date changed/).waitFor();

    // The org's terms, set before version 2: part of the document the rep accepts.
    const terms = await adminApi.api.PUT('/admin/v1/plan-document-terms', {
      body: { leaver: 'Deals won after your leaving date pay nothing.' },
    });
    assert.equal(terms.response.status, 200);
    await console_.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Plans' }).click();
    await console_.getByRole('heading', { level: 1, name: 'Plans' }).waitFor();
    await console_.getByRole('textbox', { name: 'Plan file' }).fill(stringify(versionTwo(planKey)));
    await console_.getByRole('button', { name: 'Apply file' }).click();
    await console_.getByText(/^Applied: plan version 2/).waitFor();

    // The org's pay waits for acceptance: My pay says how much of the payable payroll leaves out until the rep accepts.
    const settings = await adminApi.api.PUT('/admin/v1/pay-settings', { body: { pay_waits_for_acceptance: true } });
    assert.equal(settings.response.status, 200);
    const before = await client.statements.get(rep.id, THIS_MONTH);
    assert.ok(before.held_pending_acceptance_cents > 0, 'the rep has payable rows under the plan that waits');

    // The rep, in the portal: the request on My pay.
    await signInAs(page, server, idp, org.id, 'rep-017');
    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
    const held = page.getByText(/of the payable waits until you accept your plan: payroll pays it once you have\./);
    await held.waitFor();
    const currency = before.by_currency[0]?.currency ?? 'USD';
    assert.ok(
      ((await held.textContent()) ?? '').startsWith(
        `${formatMinorUnits(before.held_pending_acceptance_cents, currency, 'symbol')} of`,
      ),
      'the notice names the held amount',
    );
    const repErrors = collectConsoleErrors(page);
    const banner = page.getByText('Please read and accept your plan: Core AE plan, version 2.');
    await banner.waitFor();
    await assertAccessible(page, 'My pay with the banner');
    // From the keyboard: the banner's link, then the name field, then Enter.
    await page.getByRole('link', { name: 'Read and accept' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Plan acceptance' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Core AE plan', exact: true }).waitFor();

    // The document is the rep's: their quota table and ramp, this month ramp month 2 (75% of 120,000.00).
    const quotaRows = await rowsOf(page, 'Your quota by period');
    // What a reader sees (the header row is styled in capitals).
    assert.deepEqual(quotaRows[0], ['PERIOD', 'QUOTA', 'WHERE IT COMES FROM']);
    assert.deepEqual(quotaRows[1]?.slice(0, 2), [THIS_MONTH, '90,000.00']);
    assert.match(quotaRows[1]?.[2] ?? '', /^quota 90,000\.00: ramp month 2 of 3, 75% of 120,000\.00/);
    await page
      .getByText(`Ramp from your start date (${startDate}): month 1 50%, month 2 75%, month 3 100% of full quota.`)
      .waitFor();
    assert.deepEqual(await rowsOf(page, 'Tiers of Tiered commission'), [
      ['BAND', 'FROM', 'UP TO', 'RATE'],
      ['1', '0.00', '50,000.00', '5.00%'],
      ['2', '50,000.00', '100,000.00', '8.00%'],
      ['3', '100,000.00', 'and above', '12.00%'],
    ]);
    await page
      .getByRole('region', { name: "Your company's terms" })
      .getByText('Deals won after your leaving date pay nothing.')
      .waitFor();
    // The form does not tell the rep the name to type.
    assert.doesNotMatch((await page.locator('#accept').innerText()) ?? '', /Dana|Reyes/);
    await assertAccessible(page, 'the acceptance page');
    await page.setViewportSize({ width: 375, height: 800 });
    await assertFitsWidth(page);
    await assertAccessible(page, 'the acceptance page at phone width');

    // A name that is not the rep's is refused on the page, and nothing is accepted.
    const name = page.getByLabel('Your full name');
    await name.focus();
    await page.keyboard.type('Someone Else');
    await page.keyboard.press('Enter');
    await page
      .getByRole('alert')
      .getByText(/type your full name as your company knows you/)
      .waitFor();
    const accepted = await fetch(`${server.url}/v1/plan-acceptances?user_id=${rep.id}&state=accepted`, {
      headers: { Authorization: `Bearer ${rawKey}` },
    });
    assert.deepEqual(((await accepted.json()) as { plan_acceptances: unknown[] }).plan_acceptances, []);
    await name.fill('');
    await page.keyboard.type('dana  REYES');
    await page.keyboard.press('Enter');
    await page.getByText(/^Thank you\. You accepted Core AE plan, version 2 on /).waitFor();
    await page
      .getByRole('status')
      .getByText(/typing “dana REYES”|typing “dana {2}REYES”/)
      .waitFor();
    await assertAccessible(page, 'the accepted page at phone width');
    await assertFitsWidth(page);

    // The accepted document, as a PDF: the plan's tier table.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Accepted document (PDF)' }).click(),
    ]);
    const path = await download.path();
    assert.ok(path);
    const read = await pdfText(new Uint8Array(await readFile(path)));
    assert.equal(read.lines[0], 'Core AE plan');
    assert.ok(read.lines.includes('Band From Up to Rate'), read.text);
    assert.ok(read.lines.includes('1 0.00 50,000.00 5.00%'), read.text);
    assert.ok(read.lines.includes('2 50,000.00 100,000.00 8.00%'), read.text);
    assert.ok(read.lines.includes('3 100,000.00 and above 12.00%'), read.text);
    assert.ok(
      read.lines.some((line) => line.startsWith(`${THIS_MONTH} 90,000.00 quota 90,000.00`)),
      read.text,
    );

    // The list shows it accepted, with the way back to the accepted document; the banner is gone.
    await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Plan acceptance' }).click();
    await page.getByRole('link', { name: 'Accepted document of Core AE plan, version 2' }).waitFor();
    await assertAccessible(page, 'the list of acceptances at phone width');
    await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'My pay' }).click();
    await page.getByRole('heading', { level: 1, name: 'My pay' }).waitFor();
    await page
      .getByText(/^Earned/)
      .first()
      .waitFor();
    assert.equal(await banner.count(), 0);
    assert.equal(await held.count(), 0, 'nothing waits once the rep accepted');

    // The admin sees the acceptance in the console.
    await adminSeesAcceptance(console_);

    assert.deepEqual(adminErrors, []);
    // The refused name's 422 is the browser's only complaint.
    assert.deepEqual(
      repErrors.filter((error) => !/status of 422/.test(error)),
      [],
    );
    await adminContext.close();
  });
});

/** The console's page of who accepted the plan's version 2: rep-017 (Dana Reyes) accepted, rep-peer not yet. */
async function adminSeesAcceptance(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Plans' }).click();
  await page.getByRole('heading', { level: 1, name: 'Plans' }).waitFor();
  await page.getByRole('link', { name: 'Core AE plan' }).click();
  await page.getByRole('link', { name: 'Who accepted v2' }).click();
  await page.getByRole('heading', { level: 1, name: 'Acceptance of Core AE plan v2' }).waitFor();
  await page.getByText('1 accepted, 1 not yet.', { exact: false }).waitFor();
  const rows = await page
    .getByRole('table', { name: 'Who has and has not accepted v2' })
    .getByRole('row')
    .allInnerTexts();
  const dana = rows.find((row) => row.startsWith('Dana Reyes'));
  assert.ok(dana, rows.join('\n'));
  assert.match(dana, /rep-017/);
  assert.match(dana, /Accepted/);
  assert.match(dana, /dana\s+REYES/);
  assert.ok(
    rows.some((row) => /rep-peer/.test(row) && /Not yet/.test(row)),
    rows.join('\n'),
  );
  assert.deepEqual(await seriousAccessibilityViolations(page), [], 'the console acceptance page');
}
