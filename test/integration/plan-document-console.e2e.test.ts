import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe } from 'vitest';
import { periodBounds, periodIdOf } from '../../src/domain/periods.ts';
import { createAdmin } from '../factories/admins.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { collectConsoleErrors, seriousAccessibilityViolations } from '../helpers/browser.ts';
import { test } from '../helpers/fixtures.ts';
import { pdfText } from '../helpers/pdfText.ts';

// The console's plan document page in Chromium: from a plan's version to its document (chips, tier table, worked
// examples with the engine's explanations), and the PDF download holding the same tier table; a rep named on the Reps
// page, and chosen on the document page to read (and download) their own document.

describe('the plan document in the console', () => {
  test('an admin opens a version’s document, reads its tiers and examples, and downloads the PDF', async ({
    db,
    server,
    browser,
    org,
  }) => {
    const applied = await applyPlan(
      db,
      org.id,
      planDocument({
        name: 'Field sales',
        chips: [
          {
            key: 'tiers',
            name: 'Tiered commission',
            kind: 'tiered_commission',
            mode: 'marginal',
            tiers: [
              { up_to_pct: 50, rate_bps: 500 },
              { up_to_pct: 100, rate_bps: 800 },
              { up_to_pct: null, rate_bps: 1200 },
            ],
          },
        ],
      }),
    );
    const { email, password } = await createAdmin(db, org.id, 'viewer');
    const page = await browser.newPage({ acceptDownloads: true });
    const errors = collectConsoleErrors(page);
    await page.goto(`${server.url}/admin/`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Plans' }).click();
    await page.getByRole('link', { name: 'Field sales' }).click();
    await page.getByRole('link', { name: 'Plan document of v1' }).click();
    await page.getByRole('heading', { level: 1, name: 'Field sales' }).waitFor();
    assert.equal(
      new URL(page.url()).pathname,
      `/admin/plans/${applied.plan_id}/versions/${applied.version_id}/document`,
    );

    const tiers = page.getByRole('table', { name: 'Tiers of Tiered commission' });
    // What a reader sees (the header row is styled in capitals).
    const rows = (await tiers.getByRole('row').allInnerTexts()).map((row) =>
      row.split('\t').map((cell) => cell.trim()),
    );
    assert.deepEqual(
      rows[0]?.map((cell) => cell.toLowerCase()),
      ['band', 'from', 'up to', 'rate'],
    );
    assert.deepEqual(rows.slice(1), [
      ['1', '0.00', '50,000.00 (50% of quota)', '5.00%'],
      ['2', '50,000.00 (50% of quota)', '100,000.00 (100% of quota)', '8.00%'],
      ['3', '100,000.00 (100% of quota)', 'and above', '12.00%'],
    ]);
    const example = page.getByRole('region', { name: 'A period of won deals' });
    await example.getByRole('table', { name: 'What A period of won deals pays' }).waitFor();
    const firstLine = example.getByText('Tiered commission').first();
    await firstLine.click();
    await example
      .getByText(/Band 1 \(0\.00 to 50,000\.00/)
      .first()
      .waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download PDF' }).click(),
    ]);
    const path = await download.path();
    const read = await pdfText(new Uint8Array(await readFile(path)));
    assert.equal(read.lines[0], 'Field sales');
    assert.ok(read.lines.includes('2 50,000.00 (50% of quota) 100,000.00 (100% of quota) 8.00%'), read.text);
    assert.deepEqual(errors, []);
  });

  test('an admin names a rep on the Reps page, writes the terms on the Plans page, then picks the rep on the document page: their name, quota, terms, their PDF', {
    timeout: 120_000,
  }, async ({ db, server, browser, org, services }) => {
    const plan = planDocument({ name: 'Inside sales' });
    const applied = await applyPlan(db, org.id, plan);
    const month = periodIdOf(new Date().toISOString().slice(0, 10), 'monthly');
    await services.admin.quotas.set({
      orgId: org.id,
      repExternalId: 'rep-q',
      planKey: plan.key,
      from: periodBounds(month).starts_on,
      quotaCents: 12_000_000,
    });
    const { email, password } = await createAdmin(db, org.id, 'admin');
    const page = await browser.newPage({ acceptDownloads: true });
    const errors = collectConsoleErrors(page);
    await page.goto(`${server.url}/admin/`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Reps' }).click();
    await page.getByRole('button', { name: 'Name rep-q' }).click();
    const dialog = page.getByRole('dialog', { name: 'Name rep-q' });
    await dialog.getByLabel('Display name').fill('   ');
    await dialog.getByLabel('Display name').fill('Quinn  Rivera');
    await dialog.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('rep-q is called Quinn Rivera.').waitFor();
    await page.getByRole('rowheader', { name: /Quinn Rivera/ }).waitFor();
    const user = await db.user.findFirstOrThrow({ where: { org_id: org.id, external_id: 'rep-q' } });
    assert.deepEqual([user.display_name, user.display_name_source], ['Quinn Rivera', 'admin']);

    // The org's terms, written on the Plans page, end every document.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Plans' }).click();
    const terms = page.getByRole('region', { name: "Your company's terms in plan documents" });
    await terms.getByLabel('Clawback').fill('Commission on a deal cancelled within 90 days is recovered.');
    await terms.getByLabel('Governing terms').fill('The laws of England apply.');
    await terms.getByRole('button', { name: 'Save terms' }).click();
    await terms.getByText('Terms saved.').waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    assert.equal(await terms.getByLabel('Governing terms').inputValue(), 'The laws of England apply.');

    await page.goto(`${server.url}/admin/plans/${applied.plan_id}/versions/${applied.version_id}/document`);
    await page.getByRole('heading', { level: 1, name: 'Inside sales' }).waitFor();
    const termsSection = page.getByRole('region', { name: "Your company's terms" });
    await termsSection.getByRole('heading', { name: 'Clawback' }).waitFor();
    await termsSection.getByText('The laws of England apply.').waitFor();
    await page.getByLabel('Rep').focus();
    await page.getByLabel('Rep').selectOption({ label: 'Quinn Rivera (rep-q)' });
    const quota = page.getByRole('table', { name: 'Your quota by period' });
    const first = (await quota.getByRole('row').nth(1).innerText()).split('\t').map((cell) => cell.trim());
    assert.deepEqual(first.slice(0, 2), [month, '120,000.00']);
    // The focus stays on the picker while the rep's document loads.
    assert.equal(await page.evaluate('document.activeElement?.id'), 'document-rep');
    // The rep's name heads their document.
    await page.getByText(/· for Quinn Rivera$/).waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download PDF' }).click(),
    ]);
    assert.equal(new URL(download.url()).searchParams.get('user_id'), user.id);
    const read = await pdfText(new Uint8Array(await readFile(await download.path())));
    assert.match(read.text, /120,000\.00/);
    assert.match(read.text, /Your company's terms/);
    assert.match(read.text, /The laws of England apply\./);
    assert.deepEqual(errors, []);
  });
});
