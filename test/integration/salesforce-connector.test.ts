import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe } from 'vitest';
import type { components } from '../../generated/openapi-admin.ts';
import type { AdminClient } from '../helpers/adminClient.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { test } from '../helpers/fixtures.ts';
import { startSalesforceSimulator } from '../helpers/salesforceSimulator.ts';

// A Salesforce connection end to end, against a Salesforce simulator of the published protocol (test/helpers/
// salesforceSimulator.ts) that Quotient reaches through jsforce: the web-server flow and the JWT bearer flow, the
// first sync by SOQL paged with nextRecordsUrl (stages by OpportunityStage's IsWon / IsClosed, users to reps,
// CurrencyIsoCode), the preview, an ended session refreshed, a re-sync from a date, and removal keeping the deals.

type Connection = components['schemas']['Connection'];

const simulator = await startSalesforceSimulator();
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

const SETTINGS = {
  QUOTIENT_SECRET_KEY: randomBytes(32).toString('base64'),
  QUOTIENT_SALESFORCE_LOGIN_URL: simulator.url,
  // No Pub/Sub API here: salesforce-cdc.test.ts tests the change subscriber against its simulator.
  QUOTIENT_SALESFORCE_PUBSUB_URL: 'off',
};
test.override('serverSettings', { env: SETTINGS, options: {} });

const REDIRECT = 'http://127.0.0.1/admin/connectors/callback';
const today = new Date().toISOString().slice(0, 10);

function opportunity(stage: string, amount: number | string, owner = '0055g00000REP0001', currency = 'USD') {
  return {
    Name: 'Acme renewal',
    StageName: stage,
    Amount: amount,
    CloseDate: today,
    OwnerId: owner,
    CurrencyIsoCode: currency,
    Type: 'New Business',
  };
}

async function connect(admin: AdminClient): Promise<Connection> {
  const created = await admin.api.POST('/admin/v1/connections', {
    body: {
      kind: 'salesforce',
      client_id: simulator.clientId,
      client_secret: simulator.clientSecret,
      redirect_uri: REDIRECT,
    },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  const id = (created.data as Connection).id;
  assert.equal(created.data?.auth_flow, 'authorization_code');
  assert.equal(created.data?.webhook_path, null);
  const started = await admin.api.POST('/admin/v1/connections/{id}/authorize', { params: { path: { id } } });
  assert.equal(started.response.status, 200);
  const authorizeUrl = new URL(started.data?.authorize_url as string);
  assert.equal(authorizeUrl.origin, simulator.url);
  assert.equal(authorizeUrl.searchParams.get('scope'), 'api refresh_token');
  const consent = await simulator.consent(authorizeUrl.toString());
  assert.equal(consent.redirectUri, REDIRECT);
  const completed = await admin.api.POST('/admin/v1/connection-authorizations', {
    body: { code: consent.code, state: consent.state },
  });
  assert.equal(completed.response.status, 200, JSON.stringify(completed.error));
  const connected = await settled(admin, id);
  assert.equal(connected.status, 'connected', connected.error ?? '');
  return connected;
}

async function settled(admin: AdminClient, id: string): Promise<Connection> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const { data } = await admin.api.GET('/admin/v1/connections/{id}', { params: { path: { id } } });
    if (data && data.status !== 'syncing') return data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`connection ${id} is still syncing`);
}

describe('Salesforce connector', () => {
  test('connects by the web-server flow and the first sync pages every Opportunity in, won by the stage metadata', async ({
    newOrg,
    signedIn,
    db,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.pageSize = 2;
    simulator.putUser('0055g00000REP0001', 'ada@example.com');
    simulator.putUser('0055g00000REP0002', 'grace@example.com');
    simulator.putOpportunity('0065g00000OPP0001', opportunity('Closed Won', 12000));
    simulator.putOpportunity('0065g00000OPP0002', opportunity('Negotiation', 5000));
    simulator.putOpportunity('0065g00000OPP0003', opportunity('Signed', 800.5, '0055g00000REP0002', 'EUR'));
    simulator.putOpportunity('0065g00000OPP0004', opportunity('Closed Lost', 300));
    simulator.putOpportunity('0065g00000OPP0005', opportunity('Closed Won', 'lots'));
    simulator.putOpportunity('0065g00000OPP0006', opportunity('Closed Won', 100));
    simulator.deleteOpportunity('0065g00000OPP0006');
    // Revenue splits (OpportunitySplit of the type splitting Amount): 60/40, and the owner alone at 100%.
    simulator.putSplits('0065g00000OPP0001', [
      { owner: '0055g00000REP0001', percentage: 60 },
      { owner: '0055g00000REP0002', percentage: 40 },
    ]);
    simulator.putSplits('0065g00000OPP0002', [{ owner: '0055g00000REP0001', percentage: 100 }]);

    const connection = await connect(admin);
    assert.equal(connection.status, 'connected');
    assert.equal(connection.account_id, simulator.orgId);
    assert.equal(connection.instance_url, simulator.url);
    assert.ok(connection.last_sync_at);
    assert.ok(connection.last_change_at);
    assert.match(connection.error ?? '', /Salesforce Opportunity 0065g00000OPP0005: .*amount/i);
    assert.deepEqual(simulator.grants, ['authorization_code']);

    const found = new Map((await client.deals.listPage({ limit: 100 })).deals.map((d) => [d.external_id, d]));
    assert.deepEqual(
      [...found.keys()].sort(),
      ['0065g00000OPP0001', '0065g00000OPP0002', '0065g00000OPP0003', '0065g00000OPP0004'],
      'the refused record is never half written, the deleted one never a live deal',
    );
    assert.equal(found.get('0065g00000OPP0001')?.status, 'won');
    assert.equal(found.get('0065g00000OPP0001')?.state.amount_cents, 1_200_000);
    assert.equal(found.get('0065g00000OPP0001')?.currency, 'USD');
    assert.equal(found.get('0065g00000OPP0001')?.state.close_date, today);
    assert.equal(found.get('0065g00000OPP0001')?.state.owner_external_id, '0055g00000REP0001');
    assert.equal(found.get('0065g00000OPP0002')?.status, 'open');
    assert.equal(found.get('0065g00000OPP0003')?.status, 'won', 'won by its stage: IsWon');
    assert.equal(found.get('0065g00000OPP0003')?.currency, 'EUR');
    assert.equal(found.get('0065g00000OPP0003')?.state.amount_cents, 80_050);
    assert.equal(found.get('0065g00000OPP0004')?.status, 'lost');
    assert.deepEqual(found.get('0065g00000OPP0001')?.splits, [
      { owner_external_id: '0055g00000REP0001', share_bps: 6000 },
      { owner_external_id: '0055g00000REP0002', share_bps: 4000 },
    ]);
    assert.equal(found.get('0065g00000OPP0002')?.splits, null, 'the owner alone at 100% is no split');
    const custom = found.get('0065g00000OPP0001')?.state.custom as Record<string, unknown> | undefined;
    assert.equal(custom?.opportunity_name, 'Acme renewal');

    const entries = await db.auditEntry.findMany({ where: { org_id: org.id }, select: { action: true } });
    const actions = entries.map((entry) => entry.action);
    for (const action of ['connection.created', 'connection.authorization_started', 'connection.authorized']) {
      assert.ok(actions.includes(action), action);
    }

    // Removed, the connection is forgotten; its deals stay.
    const removed = await admin.api.DELETE('/admin/v1/connections/{id}', {
      params: { path: { id: connection.id } },
    });
    assert.equal(removed.response.status, 204);
    assert.equal((await client.deals.listPage({ limit: 100 })).deals.length, 4);
  });

  test('the preview shows the stages, the users as reps and the first records, and writes nothing', async ({
    newOrg,
    signedIn,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putUser('0055g00000REP0001', 'ada@example.com');
    const connection = await connect(admin);
    simulator.putOpportunity('0065g00000OPP0101', opportunity('Signed', 900));
    const preview = await admin.api.GET('/admin/v1/connections/{id}/preview', {
      params: { path: { id: connection.id }, query: { limit: 5 } },
    });
    assert.equal(preview.response.status, 200, JSON.stringify(preview.error));
    assert.equal(preview.data?.mapping.name, 'salesforce-api');
    assert.deepEqual(
      preview.data?.mapping.won_stages.map((stage) => stage.stage_id),
      ['Signed', 'Closed Won'],
    );
    assert.deepEqual(
      preview.data?.mapping.lost_stages.map((stage) => stage.stage_id),
      ['Closed Lost'],
    );
    assert.deepEqual(preview.data?.mapping.owners, [
      {
        owner_id: '0055g00000REP0001',
        email: 'ada@example.com',
        rep_external_id: '0055g00000REP0001',
        matched_by: 'new',
      },
    ]);
    assert.equal(preview.data?.records[0]?.external_id, '0065g00000OPP0101');
    const event = preview.data?.records[0]?.event as { state: { stage: string } } | undefined;
    assert.equal(event?.state.stage, 'closed_won');
    assert.equal((await client.deals.listPage({})).deals.length, 0);
  });

  test('the JWT bearer flow connects with no browser step; an ended session is renewed by a new assertion', async ({
    newOrg,
    signedIn,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.multiCurrency = false;
    // Nor Opportunity Splits: the split objects are INVALID_TYPE, and each Opportunity is credited to its owner.
    simulator.splitsEnabled = false;
    simulator.putOpportunity('0065g00000OPP0201', { ...opportunity('Closed Won', 1000), CurrencyIsoCode: undefined });

    const refused = await admin.api.POST('/admin/v1/connections', {
      body: {
        kind: 'salesforce',
        client_id: simulator.clientId,
        jwt: { username: 'someone-else@example.com', private_key: simulator.privateKey },
      },
    });
    assert.equal(refused.response.status, 409);
    assert.match(JSON.stringify(refused.error), /invalid_grant/);
    assert.equal((await admin.api.GET('/admin/v1/connections')).data?.connections.length, 0, 'nothing is stored');

    const created = await admin.api.POST('/admin/v1/connections', {
      body: {
        kind: 'salesforce',
        client_id: simulator.clientId,
        jwt: { username: simulator.jwtUsername, private_key: simulator.privateKey },
      },
    });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    assert.equal(created.data?.auth_flow, 'jwt_bearer');
    assert.equal(created.data?.redirect_uri, null);
    const connection = await settled(admin, (created.data as Connection).id);
    assert.equal(connection.status, 'connected', connection.error ?? '');
    const [won] = (await client.deals.listPage({})).deals;
    assert.equal(won?.status, 'won');
    assert.equal(won?.currency, 'EUR', 'an org without multi-currency: its corporate currency');
    assert.equal(won?.splits, null, 'an org without splits');

    // The session ends before its time: the next call is answered 401, a new assertion is signed, and it goes on.
    simulator.expireSessions();
    simulator.putOpportunity('0065g00000OPP0202', { ...opportunity('Negotiation', 50), CurrencyIsoCode: undefined });
    const resynced = await admin.api.POST('/admin/v1/connections/{id}/resync', {
      params: { path: { id: connection.id } },
      body: {},
    });
    assert.equal(resynced.response.status, 200, JSON.stringify(resynced.error));
    const after = await settled(admin, connection.id);
    assert.equal(after.status, 'connected', after.error ?? '');
    assert.deepEqual(simulator.grants, ['jwt_bearer', 'jwt_bearer']);
    assert.equal((await client.deals.listPage({})).deals.length, 2);
    const authorize = await admin.api.POST('/admin/v1/connections/{id}/authorize', {
      params: { path: { id: connection.id } },
    });
    assert.equal(authorize.response.status, 409, 'a JWT bearer connection has no browser step');
  });

  test('a re-sync from a date reads only what changed since; an ended session is refreshed by the refresh token', async ({
    newOrg,
    signedIn,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    simulator.putOpportunity('0065g00000OPP0301', opportunity('Negotiation', 100));
    simulator.putOpportunity('0065g00000OPP0302', opportunity('Negotiation', 200));
    const connection = await connect(admin);
    const versions = new Map((await client.deals.listPage({})).deals.map((d) => [d.external_id, d.version]));

    simulator.putOpportunity('0065g00000OPP0302', { StageName: 'Closed Won' });
    simulator.expireSessions();
    const resynced = await admin.api.POST('/admin/v1/connections/{id}/resync', {
      params: { path: { id: connection.id } },
      body: { from: connection.last_change_at as string },
    });
    assert.equal(resynced.response.status, 200, JSON.stringify(resynced.error));
    const after = await settled(admin, connection.id);
    assert.equal(after.status, 'connected', after.error ?? '');
    assert.deepEqual(simulator.grants, ['authorization_code', 'refresh_token']);
    const deals = new Map((await client.deals.listPage({})).deals.map((d) => [d.external_id, d]));
    assert.equal(deals.get('0065g00000OPP0302')?.status, 'won');
    assert.equal(deals.get('0065g00000OPP0301')?.version, versions.get('0065g00000OPP0301'), 'unchanged');

    // Salesforce not reached at all (a network down): the sync tries again with backoff, the connection is not
    // failing for it, and once Salesforce answers again the sync ends.
    simulator.putOpportunity('0065g00000OPP0301', { StageName: 'Closed Lost' });
    simulator.unreachable = true;
    const retried = await admin.api.POST('/admin/v1/connections/{id}/resync', {
      params: { path: { id: connection.id } },
      body: { from: after.last_change_at as string },
    });
    assert.equal(retried.response.status, 200, JSON.stringify(retried.error));
    for (let attempt = 0; simulator.dropped < 3; attempt++) {
      assert.ok(attempt < 600, 'the sync tries again');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const waiting = (await admin.api.GET('/admin/v1/connections/{id}', { params: { path: { id: connection.id } } }))
      .data as Connection;
    assert.equal(waiting.status, 'syncing', 'unreachable is not a failure of the connection');
    assert.equal(waiting.error, null);
    simulator.unreachable = false;
    const reached = await settled(admin, connection.id);
    assert.equal(reached.status, 'connected', reached.error ?? '');
    assert.equal(
      (await client.deals.listPage({})).deals.find((d) => d.external_id === '0065g00000OPP0301')?.status,
      'lost',
    );
  });

  test('bad input: login_url on HubSpot, a missing client secret, an http login URL', async ({ newOrg, signedIn }) => {
    const { org } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    const cases = [
      {
        kind: 'hubspot' as const,
        client_id: 'x',
        client_secret: 'y',
        redirect_uri: REDIRECT,
        login_url: simulator.url,
      },
      { kind: 'salesforce' as const, client_id: 'x', redirect_uri: REDIRECT },
      {
        kind: 'salesforce' as const,
        client_id: 'x',
        client_secret: 'y',
        redirect_uri: REDIRECT,
        login_url: 'http://login.example.com',
      },
    ];
    for (const body of cases) {
      const answer = await admin.api.POST('/admin/v1/connections', { body });
      assert.equal(answer.response.status, 400, JSON.stringify(body));
      assert.equal((answer.error as { error?: string }).error, 'invalid_body');
    }
    assert.equal((await admin.api.GET('/admin/v1/connections')).data?.connections.length, 0);
  });

  test('quotient connectors add --kind salesforce by the JWT bearer flow connects and runs the first sync to its end', async ({
    newOrg,
  }) => {
    const { org, client } = await newOrg();
    const keyFile = join(mkdtempSync(join(tmpdir(), 'quotient-sf-')), 'connected-app.key');
    writeFileSync(keyFile, simulator.privateKey, { mode: 0o600 });
    simulator.putOpportunity('0065g00000OPP0401', opportunity('Closed Won', 250));
    const env = { ...process.env, ...SETTINGS };
    const cli = async (args: string[]) => {
      const result = await runCli(['connectors', ...args, '--org', org.id, '--json'], env);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stdout} ${result.stderr}`);
      return onlyJson(result) as Connection;
    };
    const added = await cli([
      'add',
      '--kind',
      'salesforce',
      '--client-id',
      simulator.clientId,
      '--jwt-username',
      simulator.jwtUsername,
      '--jwt-key-file',
      keyFile,
    ]);
    assert.equal(added.status, 'connected', added.error ?? '');
    assert.equal(added.auth_flow, 'jwt_bearer');
    assert.equal(added.account_id, simulator.orgId);
    assert.equal(added.instance_url, simulator.url);
    assert.deepEqual(
      (await client.deals.listPage({})).deals.map((d) => [d.external_id, d.status]),
      [['0065g00000OPP0401', 'won']],
    );
  });
});
