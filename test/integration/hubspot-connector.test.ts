import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeEach, describe } from 'vitest';
import type { components } from '../../generated/openapi-admin.ts';
import type { RunningServer } from '../../src/main.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import type { AdminClient } from '../helpers/adminClient.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { test } from '../helpers/fixtures.ts';
import { startHubSpotSimulator } from '../helpers/hubspotSimulator.ts';
import { testServices } from '../helpers/services.ts';

// A HubSpot connection end to end, against a HubSpot simulator of the published protocol (test/helpers/
// hubspotSimulator.ts) that Quotient reaches through @hubspot/api-client: OAuth, the first sync, webhooks signed with
// the v3 signature, pause and resume, HubSpot's errors on the connection, merges and restores, the reconciliation
// poll, 429s waited out by their Retry-After, a sync resumed by another process's lease, and removal.

type Connection = components['schemas']['Connection'];

const simulator = await startHubSpotSimulator();
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

const SETTINGS = {
  QUOTIENT_SECRET_KEY: randomBytes(32).toString('base64'),
  QUOTIENT_HUBSPOT_API_URL: simulator.url,
  QUOTIENT_HUBSPOT_AUTHORIZE_URL: `${simulator.url}/oauth/authorize`,
  // The server's own rounds (every third of a lease) never come during a test: the tests run rounds and polls
  // themselves. A 429 waits 1 s at most.
  QUOTIENT_SALESFORCE_LEASE_SECONDS: '3600',
  QUOTIENT_HUBSPOT_RECONCILE_SECONDS: '86400',
  QUOTIENT_HUBSPOT_RETRY_WAIT_MAX_SECONDS: '1',
};
test.override('serverSettings', { env: SETTINGS, options: {} });

const REDIRECT = 'http://127.0.0.1/admin/connectors/callback';
const today = new Date().toISOString().slice(0, 10);

/** A flat 10% commission on every won deal. */
const COMMISSION = planDocument({
  chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }],
});

function deal(stage: string, amount: string, owner = '501') {
  return {
    dealname: 'Acme renewal',
    dealstage: stage,
    pipeline: 'default',
    amount,
    closedate: `${today}T00:00:00Z`,
    hubspot_owner_id: owner,
    deal_currency_code: 'USD',
  };
}

/** An admin adds the connection, is sent to HubSpot, consents, and the console completes it; the first sync ends. */
async function connect(admin: AdminClient): Promise<Connection> {
  const created = await admin.api.POST('/admin/v1/connections', {
    body: {
      kind: 'hubspot',
      client_id: simulator.clientId,
      client_secret: simulator.clientSecret,
      redirect_uri: REDIRECT,
    },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  const id = (created.data as Connection).id;
  assert.equal(created.data?.status, 'pending');
  const started = await admin.api.POST('/admin/v1/connections/{id}/authorize', { params: { path: { id } } });
  assert.equal(started.response.status, 200);
  const consent = await simulator.consent(started.data?.authorize_url as string);
  assert.equal(consent.redirectUri, REDIRECT);
  const completed = await admin.api.POST('/admin/v1/connection-authorizations', {
    body: { code: consent.code, state: consent.state },
  });
  assert.equal(completed.response.status, 200, JSON.stringify(completed.error));
  return settled(admin, id);
}

/** The connection once its background sync has ended. */
async function settled(admin: AdminClient, id: string): Promise<Connection> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const { data } = await admin.api.GET('/admin/v1/connections/{id}', { params: { path: { id } } });
    if (data && data.status !== 'syncing') return data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`connection ${id} is still syncing`);
}

function webhookUrl(server: RunningServer, connection: Connection): string {
  return `${server.url}${connection.webhook_path}`;
}

describe('HubSpot connector', () => {
  test('connects by OAuth and the first sync brings every deal in, won by the pipeline metadata', async ({
    newOrg,
    signedIn,
    db,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putDeal('1001', deal('closedwon', '12000.00'));
    simulator.putDeal('1002', deal('contractsent', '5000'));
    simulator.putDeal('1003', { ...deal('1100002', '800.50'), pipeline: '7654321' });
    simulator.putDeal('1004', deal('closedlost', '300'));
    simulator.putDeal('1005', deal('closedwon', '100'));
    simulator.archiveDeal('1005');

    const connection = await connect(admin);
    assert.equal(connection.status, 'connected');
    assert.equal(connection.account_id, String(simulator.portalId));
    assert.equal(connection.error, null);
    assert.ok(connection.last_sync_at);
    assert.ok(connection.last_change_at);
    assert.deepEqual(simulator.grants, ['authorization_code']);

    const found = new Map((await client.deals.listPage({ limit: 100 })).deals.map((d) => [d.external_id, d]));
    assert.deepEqual([...found.keys()].sort(), ['1001', '1002', '1003', '1004']);
    assert.equal(found.get('1001')?.status, 'won');
    assert.equal(found.get('1001')?.state.amount_cents, 1_200_000);
    assert.equal(found.get('1001')?.currency, 'USD');
    assert.equal(found.get('1001')?.state.close_date, today);
    assert.equal(found.get('1001')?.state.owner_external_id, '501');
    assert.equal(found.get('1002')?.status, 'open');
    assert.equal(found.get('1003')?.status, 'won', 'won by its pipeline: closed with probability 1.0');
    assert.equal(found.get('1003')?.state.amount_cents, 80_050);
    assert.equal(found.get('1004')?.status, 'lost');
    assert.equal((found.get('1001')?.state.custom as Record<string, unknown> | undefined)?.deal_name, 'Acme renewal');

    const entries = await db.auditEntry.findMany({ where: { org_id: org.id }, select: { action: true } });
    const actions = entries.map((entry) => entry.action);
    for (const action of ['connection.created', 'connection.authorization_started', 'connection.authorized']) {
      assert.ok(actions.includes(action), action);
    }
  });

  test('a stage change sent by webhook is a won deal with its earning when the webhook is answered', async ({
    newOrg,
    signedIn,
    server,
    db,
  }) => {
    const { org, client } = await newOrg();
    await applyPlan(db, org.id, COMMISSION);
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putDeal('2001', deal('contractsent', '10000'));
    const connection = await connect(admin);
    // Open, the deal's commission is only projected.
    assert.deepEqual(
      (await client.earnings.listPage({})).earnings.map((earning) => earning.status),
      ['projected'],
    );

    simulator.putDeal('2001', { dealstage: 'closedwon' });
    const sent = await simulator.sendWebhook(webhookUrl(server, connection), [
      {
        objectId: 2001,
        subscriptionType: 'deal.propertyChange',
        propertyName: 'dealstage',
        propertyValue: 'closedwon',
        occurredAt: Date.now(),
      },
    ]);
    assert.equal(sent.status, 204, sent.body);

    const won = (await client.deals.listPage({})).deals.find((d) => d.external_id === '2001');
    assert.equal(won?.status, 'won');
    const earnings = (await client.earnings.listPage({})).earnings.filter((earning) => earning.status === 'pending');
    assert.equal(earnings.length, 1);
    assert.equal(earnings[0]?.amount_cents, 100_000);

    // HubSpot delivers the batch again: nothing changes twice.
    const again = await simulator.sendWebhook(webhookUrl(server, connection), [
      {
        objectId: 2001,
        subscriptionType: 'deal.propertyChange',
        propertyName: 'dealstage',
        propertyValue: 'closedwon',
        occurredAt: Date.now(),
      },
    ]);
    assert.equal(again.status, 204);
    const after = (await client.deals.listPage({})).deals.find((d) => d.external_id === '2001');
    assert.equal(after?.version, won?.version);
    assert.deepEqual(
      (await client.earnings.listPage({})).earnings.filter((earning) => earning.status === 'pending'),
      earnings,
    );
  });

  test('a webhook with a forged or stale signature is refused and changes nothing', async ({
    newOrg,
    signedIn,
    server,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putDeal('3001', deal('contractsent', '900'));
    const connection = await connect(admin);
    simulator.putDeal('3001', { dealstage: 'closedwon' });
    const events = [{ objectId: 3001, subscriptionType: 'deal.propertyChange' as const, occurredAt: Date.now() }];

    const forged = await simulator.sendWebhook(webhookUrl(server, connection), events, { secret: 'not-the-secret' });
    assert.equal(forged.status, 401);
    assert.equal(JSON.parse(forged.body).error, 'unauthenticated');
    const stale = await simulator.sendWebhook(webhookUrl(server, connection), events, {
      timestamp: Date.now() - 6 * 60 * 1000,
    });
    assert.equal(stale.status, 401);
    const unsigned = await fetch(webhookUrl(server, connection), { method: 'POST', body: '[]' });
    assert.equal(unsigned.status, 401);
    assert.equal((await client.deals.listPage({})).deals[0]?.status, 'open');
  });

  test('a deletion in HubSpot becomes a deleted deal', async ({ newOrg, signedIn, server }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putDeal('4001', deal('closedwon', '700'));
    const connection = await connect(admin);
    simulator.archiveDeal('4001');
    const sent = await simulator.sendWebhook(webhookUrl(server, connection), [
      { objectId: 4001, subscriptionType: 'deal.deletion', occurredAt: Date.now() },
    ]);
    assert.equal(sent.status, 204, sent.body);
    const deleted = await client.deals.listPage({ status: 'deleted' });
    assert.deepEqual(
      deleted.deals.map((d) => [d.external_id, d.status]),
      [['4001', 'deleted']],
    );
  });

  test('paused, changes wait (behind by their number); resumed, they are applied', async ({
    newOrg,
    signedIn,
    server,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putDeal('5001', deal('contractsent', '100'));
    const connection = await connect(admin);
    const path = { params: { path: { id: connection.id } } };
    assert.equal((await admin.api.POST('/admin/v1/connections/{id}/pause', path)).data?.status, 'paused');

    simulator.putDeal('5001', { dealstage: 'closedwon' });
    simulator.putDeal('5002', deal('closedwon', '200'));
    const sent = await simulator.sendWebhook(webhookUrl(server, connection), [
      { objectId: 5001, subscriptionType: 'deal.propertyChange', occurredAt: Date.now() },
      { objectId: 5002, subscriptionType: 'deal.creation', occurredAt: Date.now() },
    ]);
    assert.equal(sent.status, 204);
    const paused = (await admin.api.GET('/admin/v1/connections/{id}', path)).data;
    assert.equal(paused?.status, 'paused');
    assert.equal(paused?.behind_by, 2);
    assert.deepEqual(
      (await client.deals.listPage({})).deals.map((d) => [d.external_id, d.status]),
      [['5001', 'open']],
    );

    const resumed = await admin.api.POST('/admin/v1/connections/{id}/resume', path);
    assert.equal(resumed.data?.status, 'connected');
    assert.equal(resumed.data?.behind_by, 0);
    const statuses = new Map((await client.deals.listPage({})).deals.map((d) => [d.external_id, d.status]));
    assert.equal(statuses.get('5001'), 'won');
    assert.equal(statuses.get('5002'), 'won');
  });

  test("HubSpot's own error shows on the connection, and the deals it held back follow once HubSpot answers", async ({
    newOrg,
    signedIn,
    server,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putDeal('6001', deal('contractsent', '100'));
    const connection = await connect(admin);
    simulator.putDeal('6001', { dealstage: 'closedwon' });
    simulator.failNext(429, 'You have reached your secondly limit.', 'RATE_LIMITS');
    const refused = await simulator.sendWebhook(webhookUrl(server, connection), [
      { objectId: 6001, subscriptionType: 'deal.propertyChange', occurredAt: Date.now() },
    ]);
    assert.equal(refused.status, 503);
    const failing = (await admin.api.GET('/admin/v1/connections/{id}', { params: { path: { id: connection.id } } }))
      .data;
    assert.equal(failing?.status, 'failing');
    assert.match(failing?.error ?? '', /429 RATE_LIMITS: You have reached your secondly limit\./);
    assert.equal(failing?.behind_by, 1);

    simulator.putDeal('6002', deal('closedwon', '300'));
    const next = await simulator.sendWebhook(webhookUrl(server, connection), [
      { objectId: 6002, subscriptionType: 'deal.creation', occurredAt: Date.now() },
    ]);
    assert.equal(next.status, 204, next.body);
    const healthy = (await admin.api.GET('/admin/v1/connections/{id}', { params: { path: { id: connection.id } } }))
      .data;
    assert.equal(healthy?.status, 'connected');
    assert.equal(healthy?.error, null);
    assert.equal(healthy?.behind_by, 0);
    const statuses = new Map((await client.deals.listPage({})).deals.map((d) => [d.external_id, d.status]));
    assert.equal(statuses.get('6001'), 'won');
    assert.equal(statuses.get('6002'), 'won');
  });

  test('the reconciliation poll applies what no webhook brought, reports it, and changes nothing a webhook applied', async ({
    newOrg,
    signedIn,
    server,
    db,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putDeal('10001', deal('contractsent', '100'));
    const connection = await connect(admin);
    const path = { params: { path: { id: connection.id } } };
    assert.equal(connection.reconciliation, null);
    simulator.putDeal('10001', { dealstage: 'closedwon' });
    const sent = await simulator.sendWebhook(webhookUrl(server, connection), [
      { objectId: 10001, subscriptionType: 'deal.propertyChange', occurredAt: Date.now() },
    ]);
    assert.equal(sent.status, 204, sent.body);
    const applied = (await client.deals.listPage({})).deals.find((d) => d.external_id === '10001');
    // A deal created while its webhook subscription was missing: only the poll can find it.
    simulator.putDeal('10002', deal('closedwon', '400'));
    // The poll's first call meets HubSpot's secondly limit: waited out by its Retry-After, then answered.
    simulator.rateLimitNext(1, 1);

    const services = testServices({ db, env: SETTINGS });
    try {
      await services.admin.connections.reconcileNow(org.id, connection.id);
      const polled = (await admin.api.GET('/admin/v1/connections/{id}', path)).data;
      assert.equal(polled?.status, 'connected');
      assert.equal(polled?.error, null);
      assert.equal(polled?.reconciliation?.read, 2);
      assert.equal(polled?.reconciliation?.repaired, 1);
      assert.deepEqual(polled?.reconciliation?.repaired_deal_ids, ['10002']);
      assert.equal(polled?.daily_limit_remaining, simulator.dailyRemaining);
      const search = simulator.searches[0] as { filterGroups: Array<{ filters: Array<Record<string, string>> }> };
      assert.equal(search.filterGroups[0]?.filters[0]?.propertyName, 'hs_lastmodifieddate');
      assert.equal(search.filterGroups[0]?.filters[0]?.operator, 'GTE');
      const found = new Map((await client.deals.listPage({})).deals.map((d) => [d.external_id, d]));
      assert.equal(found.get('10002')?.status, 'won');
      assert.equal(found.get('10001')?.version, applied?.version, "the webhook's version is not applied twice");

      // The next poll overlaps the last: it reads them again and repairs nothing.
      await services.admin.connections.reconcileNow(org.id, connection.id);
      const again = (await admin.api.GET('/admin/v1/connections/{id}', path)).data;
      assert.equal(again?.reconciliation?.repaired, 0);
      assert.equal(again?.reconciliation?.read, 2);
    } finally {
      await services.admin.connections.close();
    }
  });

  test('a merge deletes the merged-away deal and applies the one that remains; a restore applies it again', async ({
    newOrg,
    signedIn,
    server,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putDeal('11001', deal('closedwon', '1000'));
    simulator.putDeal('11002', deal('closedwon', '500'));
    const connection = await connect(admin);
    simulator.mergeDeals('11001', '11002');
    simulator.putDeal('11001', { amount: '1500' });
    const merged = await simulator.sendWebhook(webhookUrl(server, connection), [
      {
        objectId: 11001,
        subscriptionType: 'deal.merge',
        primaryObjectId: 11001,
        mergedObjectIds: [11002],
        numberOfPropertiesMoved: 1,
        occurredAt: Date.now(),
      },
    ]);
    assert.equal(merged.status, 204, merged.body);
    const statuses = async () =>
      new Map(
        [
          ...(await client.deals.listPage({ limit: 100 })).deals,
          ...(await client.deals.listPage({ limit: 100, status: 'deleted' })).deals,
        ].map((d) => [d.external_id, d]),
      );
    let found = await statuses();
    assert.equal(found.get('11002')?.status, 'deleted');
    assert.equal(found.get('11001')?.status, 'won');
    assert.equal(found.get('11001')?.state.amount_cents, 150_000);

    simulator.archiveDeal('11001');
    await simulator.sendWebhook(webhookUrl(server, connection), [
      { objectId: 11001, subscriptionType: 'deal.deletion', occurredAt: Date.now() },
    ]);
    assert.equal((await statuses()).get('11001')?.status, 'deleted');
    simulator.restoreDeal('11001');
    const restored = await simulator.sendWebhook(webhookUrl(server, connection), [
      { objectId: 11001, subscriptionType: 'deal.restore', occurredAt: Date.now() },
    ]);
    assert.equal(restored.status, 204, restored.body);
    found = await statuses();
    assert.equal(found.get('11001')?.status, 'won');
    assert.equal(found.get('11001')?.state.amount_cents, 150_000);
  });

  test("a re-sync HubSpot's rate limit outlasts stays syncing, and the next holder of the lease resumes it", async ({
    newOrg,
    signedIn,
    db,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putDeal('12001', deal('contractsent', '100'));
    const connection = await connect(admin);
    const path = { params: { path: { id: connection.id } } };
    simulator.putDeal('12001', { dealstage: 'closedwon' });
    // More 429s in a row than a sync waits out (5 waits per call, 100 ms each at least: never a tight loop), for
    // both of its first calls (the pipelines and the owners, read at once).
    simulator.rateLimitNext(12, 0);
    const resync = await admin.api.POST('/admin/v1/connections/{id}/resync', {
      ...path,
      body: { from: new Date(Date.now() - 60_000).toISOString() },
    });
    assert.equal(resync.response.status, 200, JSON.stringify(resync.error));
    let cut: Connection | undefined;
    for (let attempt = 0; attempt < 400 && !cut?.error; attempt++) {
      cut = (await admin.api.GET('/admin/v1/connections/{id}', path)).data;
      if (!cut?.error) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(cut?.status, 'syncing', 'a rate limit never stops a sync failing');
    assert.match(cut?.error ?? '', /429 RATE_LIMITS/);
    assert.equal((await client.deals.listPage({})).deals[0]?.status, 'open');

    const services = testServices({ db, env: SETTINGS });
    try {
      // Another process holds the connection's lease: this one leaves the sync to it.
      await db.crmConnection.update({
        where: { org_id_id: { org_id: org.id, id: connection.id } },
        data: { cdc_holder: 'another-process', cdc_lease_until: new Date(Date.now() + 60_000) },
      });
      await services.admin.connections.hubspotRound();
      assert.equal((await admin.api.GET('/admin/v1/connections/{id}', path)).data?.status, 'syncing');
      // Its holder died: the lease lapses, and this process's next round resumes the sync.
      await db.crmConnection.update({
        where: { org_id_id: { org_id: org.id, id: connection.id } },
        data: { cdc_lease_until: new Date(Date.now() - 1000) },
      });
      await services.admin.connections.hubspotRound();
      const resumed = (await admin.api.GET('/admin/v1/connections/{id}', path)).data;
      assert.equal(resumed?.status, 'connected');
      assert.equal(resumed?.error, null);
      assert.equal((await client.deals.listPage({})).deals[0]?.status, 'won');
      const lease = await db.crmConnection.findFirst({ where: { org_id: org.id, id: connection.id } });
      assert.equal(lease?.cdc_holder, null, 'the lease is let go once the work ends');
    } finally {
      await services.admin.connections.close();
    }
  });

  test('a token about to expire is refreshed before the next call', async ({ newOrg, signedIn, server }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.tokenLifetimeSeconds = 120;
    simulator.putDeal('7001', deal('contractsent', '100'));
    const connection = await connect(admin);
    assert.deepEqual(simulator.grants.slice(0, 2), ['authorization_code', 'refresh_token']);
    simulator.tokenLifetimeSeconds = 1800;
    const grants = simulator.grants.length;
    simulator.putDeal('7001', { dealstage: 'closedwon' });
    const sent = await simulator.sendWebhook(webhookUrl(server, connection), [
      { objectId: 7001, subscriptionType: 'deal.propertyChange', occurredAt: Date.now() },
    ]);
    assert.equal(sent.status, 204, sent.body);
    assert.equal(simulator.grants.length, grants + 1, 'the short-lived token was refreshed once more');
    assert.equal((await client.deals.listPage({})).deals[0]?.status, 'won');
    const tokens = new Set(simulator.bearers);
    assert.ok(tokens.size >= 2, 'calls moved on to the refreshed tokens');
  });

  test('the preview shows the mapping on the first records, and writes nothing', async ({ newOrg, signedIn }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.owners.push({ id: '501', email: 'ana@acme.example' }, { id: '502', email: 'Ben@Acme.example' });
    simulator.putDeal('8001', deal('closedwon', '1000', '502'));
    simulator.putDeal('8002', deal('closedwon', 'twelve', '501'));
    // Ben was a rep before, by his email (an import of another source).
    await client.deals.ingestEvent({
      external_id: 'seed',
      state: { stage: 'open', owner_external_id: 'ben@acme.example' },
    });
    const connection = await connect(admin);
    const { data, response } = await admin.api.GET('/admin/v1/connections/{id}/preview', {
      params: { path: { id: connection.id }, query: { limit: 5 } },
    });
    assert.equal(response.status, 200);
    assert.equal(data?.mapping.name, 'hubspot-api');
    assert.deepEqual(
      data?.mapping.won_stages.map((stage) => stage.stage_id),
      ['closedwon', '1100002'],
    );
    assert.deepEqual(
      data?.mapping.lost_stages.map((stage) => stage.stage_id),
      ['closedlost', '1100003'],
    );
    assert.deepEqual(data?.mapping.owners, [
      { owner_id: '501', email: 'ana@acme.example', rep_external_id: '501', matched_by: 'new' },
      { owner_id: '502', email: 'Ben@Acme.example', rep_external_id: 'ben@acme.example', matched_by: 'email' },
    ]);
    const [first, second] = data?.records ?? [];
    assert.equal(first?.external_id, '8001');
    assert.equal((first?.event?.state as Record<string, unknown> | undefined)?.owner_external_id, 'ben@acme.example');
    assert.equal((first?.event?.state as Record<string, unknown> | undefined)?.stage, 'closed_won');
    assert.equal(second?.external_id, '8002');
    assert.match(second?.refusal ?? '', /amount/);
    // The sync reported the record it could not apply, with its id.
    assert.match(connection.error ?? '', /HubSpot deal 8002: amount/);
  });

  test('removing a connection keeps its deals and refuses its webhooks', async ({ newOrg, signedIn, server, db }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putDeal('9001', deal('closedwon', '100'));
    const connection = await connect(admin);
    const removed = await admin.api.DELETE('/admin/v1/connections/{id}', { params: { path: { id: connection.id } } });
    assert.equal(removed.response.status, 204);
    assert.equal((await client.deals.listPage({})).deals[0]?.status, 'won');
    const late = await simulator.sendWebhook(webhookUrl(server, connection), [
      { objectId: 9001, subscriptionType: 'deal.deletion', occurredAt: Date.now() },
    ]);
    assert.equal(late.status, 404);
    assert.equal((await client.deals.listPage({})).deals[0]?.status, 'won');
    const listed = await admin.api.GET('/admin/v1/connections');
    assert.deepEqual(listed.data?.connections, []);
    assert.ok(await db.auditEntry.findFirst({ where: { org_id: org.id, action: 'connection.removed' } }));
  });

  test('a viewer cannot add a connection, and a state of another org does not complete one', async ({
    signedIn,
    newOrg,
  }) => {
    const { org } = await newOrg();
    const { client: viewer } = await signedIn('viewer', org.id);
    const refused = await viewer.api.POST('/admin/v1/connections', {
      body: { kind: 'hubspot', client_id: 'x', client_secret: 'y', redirect_uri: REDIRECT },
    });
    assert.equal(refused.response.status, 403);
    const { client: admin } = await signedIn('admin', org.id);
    const created = await admin.api.POST('/admin/v1/connections', {
      body: {
        kind: 'hubspot',
        client_id: simulator.clientId,
        client_secret: simulator.clientSecret,
        redirect_uri: REDIRECT,
      },
    });
    const started = await admin.api.POST('/admin/v1/connections/{id}/authorize', {
      params: { path: { id: created.data?.id as string } },
    });
    const { client: stranger } = await signedIn('admin');
    const consent = await simulator.consent(started.data?.authorize_url as string);
    const wrongOrg = await stranger.api.POST('/admin/v1/connection-authorizations', {
      body: { code: consent.code, state: consent.state },
    });
    assert.equal(wrongOrg.response.status, 400);
  });

  test('quotient connectors: add, complete, show, preview, pause, resume, resync and remove', async ({ newOrg }) => {
    const { org, client } = await newOrg();
    const env = { ...process.env, ...SETTINGS, HUBSPOT_SECRET: simulator.clientSecret };
    const cli = async (args: string[]) => {
      const result = await runCli(['connectors', ...args, '--org', org.id, '--json'], env);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stdout} ${result.stderr}`);
      return onlyJson(result) as Connection & { authorize_url?: string };
    };
    simulator.putDeal('9501', deal('closedwon', '250'));
    const added = await cli([
      'add',
      '--kind',
      'hubspot',
      '--client-id',
      simulator.clientId,
      '--client-secret-env',
      'HUBSPOT_SECRET',
      '--redirect-uri',
      REDIRECT,
    ]);
    assert.equal(added.status, 'pending');
    const consent = await simulator.consent(added.authorize_url as string);
    const completed = await cli(['complete', '--code', consent.code, '--state', consent.state]);
    assert.equal(completed.status, 'connected', 'complete waits for the first sync');
    assert.equal((await client.deals.listPage({})).deals[0]?.status, 'won');
    assert.equal((await cli(['show', added.id])).account_id, String(simulator.portalId));
    const preview = (await cli(['preview', added.id])) as unknown as components['schemas']['ConnectionPreview'];
    assert.equal(preview.records[0]?.external_id, '9501');
    assert.equal((await cli(['pause', added.id])).status, 'paused');
    assert.equal((await cli(['resume', added.id])).status, 'connected');
    simulator.putDeal('9502', deal('closedlost', '90'));
    const resynced = await cli(['resync', added.id, '--from', new Date(Date.now() - 60_000).toISOString()]);
    assert.equal(resynced.status, 'connected');
    assert.equal((await client.deals.listPage({ status: 'lost' })).deals[0]?.external_id, '9502');
    const listed = (await cli(['list'])) as unknown as { connections: Connection[] };
    assert.deepEqual(
      listed.connections.map((connection) => connection.id),
      [added.id],
    );
    await cli(['remove', added.id]);
    assert.equal((await client.deals.listPage({})).deals.length, 2, 'removing keeps the deals');
  });
});
