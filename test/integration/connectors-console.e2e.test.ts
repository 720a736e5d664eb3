import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, describe } from 'vitest';
import { seriousAccessibilityViolations } from '../helpers/browser.ts';
import { test } from '../helpers/fixtures.ts';
import { startHubSpotSimulator } from '../helpers/hubspotSimulator.ts';

// The console's Connectors page in Chromium: an admin connects a HubSpot portal (the simulator consents at once and
// sends the browser back to the console's callback), sees its state, and pauses it; each view scanned by axe-core.

const simulator = await startHubSpotSimulator();
afterAll(() => simulator.close());

test.override('serverSettings', {
  env: {
    QUOTIENT_SECRET_KEY: randomBytes(32).toString('base64'),
    QUOTIENT_HUBSPOT_API_URL: simulator.url,
    QUOTIENT_HUBSPOT_AUTHORIZE_URL: `${simulator.url}/oauth/authorize`,
  },
  options: {},
});

describe('console: Connectors', () => {
  test('an admin connects HubSpot, comes back to the connection with its state, and pauses it', async ({
    consolePage,
    server,
  }) => {
    const { page, errors } = consolePage;
    simulator.putDeal('1', { dealstage: 'closedwon', amount: '10', hubspot_owner_id: '7' });
    await page.goto(`${server.url}/admin/connectors`);
    await page.getByRole('heading', { level: 1, name: 'Connectors' }).waitFor();
    await page.getByText('No connections').waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), [], 'the empty page');
    await page.getByRole('button', { name: 'Add connection' }).click();
    await page.getByRole('dialog', { name: 'Connect HubSpot' }).waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), [], 'the dialog');
    await page.getByLabel('Client ID').fill(simulator.clientId);
    await page.getByLabel('Client secret').fill(simulator.clientSecret);
    await page.getByRole('button', { name: 'Add and connect' }).click();
    // HubSpot's consent, then the callback completes the connection and shows the list again.
    await page.waitForURL(`${server.url}/admin/connectors`);
    const row = page.getByRole('row', { name: /HubSpot/ });
    await row.getByText(String(simulator.portalId)).waitFor();
    await page.reload();
    await page
      .getByRole('row', { name: /HubSpot/ })
      .getByText('connected')
      .waitFor();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Connection paused.').waitFor();
    await page
      .getByRole('row', { name: /HubSpot/ })
      .getByText('paused')
      .waitFor();
    assert.ok(await page.getByRole('button', { name: 'Resume' }).isVisible());
    assert.deepEqual(await seriousAccessibilityViolations(page), [], 'the list');
    assert.deepEqual(errors, []);
  });
});
