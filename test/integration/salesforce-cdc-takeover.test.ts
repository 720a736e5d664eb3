import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, describe } from 'vitest';
import type { components } from '../../generated/openapi-admin.ts';
import type { QuotientClient } from '../../sdk/src/index.ts';
import { test } from '../helpers/fixtures.ts';
import { type Spawned, spawnQuotient } from '../helpers/processes.ts';
import { startPubSubSimulator } from '../helpers/salesforcePubSubSimulator.ts';
import { startSalesforceSimulator } from '../helpers/salesforceSimulator.ts';

// One change subscriber per Salesforce connection across processes: two `quotient serve` processes of their own on
// the test database run the subscribers (the file's server serves the admin API and runs none), the first takes the
// connection's lease, is killed (SIGKILL) in the middle of a batch, and the second takes the lapsed lease over and
// resumes from the stored replay id, against the Pub/Sub and REST simulators.

type Connection = components['schemas']['Connection'];

const rest = await startSalesforceSimulator();
const pubsub = await startPubSubSimulator(rest);
const KEY = randomBytes(32).toString('base64');
const spawned: Spawned[] = [];
afterAll(async () => {
  for (const process of spawned) {
    process.child.kill('SIGKILL');
    await process.exited;
  }
  await pubsub.close();
  await rest.close();
});

test.override('serverSettings', {
  env: {
    QUOTIENT_SECRET_KEY: KEY,
    QUOTIENT_SALESFORCE_LOGIN_URL: rest.url,
    QUOTIENT_SALESFORCE_PUBSUB_URL: 'off',
  },
  options: {},
});

const REP = '0055g00000REP0001';
const today = new Date().toISOString().slice(0, 10);
const opportunity = (amount: number) => ({
  Name: 'Acme renewal',
  StageName: 'Negotiation',
  Amount: amount,
  CloseDate: today,
  OwnerId: REP,
  CurrencyIsoCode: 'USD',
});

async function until<T>(what: string, read: () => Promise<T | undefined | null | false>): Promise<T> {
  for (let attempt = 0; attempt < 1200; attempt++) {
    const found = await read();
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never: ${what}`);
}

/** A serving process of its own with a three-second lease, subscribing the connections of the test database. */
function serve(): Spawned {
  const process_ = spawnQuotient(['serve'], {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    QUOTIENT_WEBHOOK_WORKER: 'false',
    QUOTIENT_DB_POOL_SIZE: '4',
    QUOTIENT_SECRET_KEY: KEY,
    QUOTIENT_SALESFORCE_LOGIN_URL: rest.url,
    QUOTIENT_SALESFORCE_PUBSUB_URL: pubsub.url,
    QUOTIENT_SALESFORCE_LEASE_SECONDS: '3',
  });
  spawned.push(process_);
  return process_;
}

async function dealOf(client: QuotientClient, externalId: string) {
  return (await client.deals.listPage({ limit: 100 })).deals.find((deal) => deal.external_id === externalId);
}

describe('Salesforce change subscribers across processes', () => {
  test('a second process takes over the lapsed lease of one killed mid-batch; no change is lost or applied twice', async ({
    newOrg,
    signedIn,
    db,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    rest.putUser(REP, 'ada@example.com');
    const created = await admin.api.POST('/admin/v1/connections', {
      body: {
        kind: 'salesforce',
        client_id: rest.clientId,
        jwt: { username: rest.jwtUsername, private_key: rest.privateKey },
      },
    });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    const id = (created.data as Connection).id;
    await until('the first sync ended', async () => {
      const { data } = await admin.api.GET('/admin/v1/connections/{id}', { params: { path: { id } } });
      return data?.status === 'connected';
    });

    const first = serve();
    await until('the first process subscribes', async () => pubsub.subscriptions.length === 1);
    const holder = await db.crmConnection.findFirst({ where: { org_id: org.id, id } });
    const second = serve();
    await until('the second process serves', async () => /quotient is serving/.test(second.stderr()));
    pubsub.change('0065g00000TKO0001', opportunity(100));
    await until('the first change', () => dealOf(client, '0065g00000TKO0001'));
    await until('its replay id stored', async () => {
      const row = await db.crmConnection.findFirst({ where: { org_id: org.id, id } });
      return row?.cdc_replay_id === Buffer.from([0, 0, 0, 0, 0, 0, 0, 1]).toString('base64');
    });

    // One batch: a creation, committed as the batch's first part, and a GAP event whose record is read over REST,
    // where the first process waits when it is killed; the batch's replay id is never stored.
    rest.putOpportunity('0065g00000TKO0003', opportunity(300));
    const release = rest.holdRecordReads();
    const at = Date.now();
    pubsub.publishAll([
      {
        changeType: 'CREATE',
        recordIds: ['0065g00000TKO0002'],
        fields: { ...opportunity(200), CloseDate: Math.floor(at / 86_400_000) },
        commitTimestamp: at,
      },
      { changeType: 'GAP_UPDATE', recordIds: ['0065g00000TKO0003'], commitTimestamp: at },
    ]);
    await until('the first part committed and the read waiting', async () => {
      return rest.heldReads === 1 && (await dealOf(client, '0065g00000TKO0002')) !== undefined;
    });
    first.child.kill('SIGKILL');
    await first.exited;
    release();

    await until('the second process subscribes after the lease lapsed', async () => pubsub.subscriptions.length === 2);
    assert.deepEqual(pubsub.subscriptions.at(-1), { preset: 'CUSTOM', after: 1 }, 'from the stored replay id');
    const taken = await db.crmConnection.findFirst({ where: { org_id: org.id, id } });
    assert.ok(taken?.cdc_holder && taken.cdc_holder !== holder?.cdc_holder, 'another holder');
    await until('the record the GAP event names', () => dealOf(client, '0065g00000TKO0003'));
    assert.equal((await dealOf(client, '0065g00000TKO0002'))?.version, 1, 'the batch delivered again changed nothing');
    assert.equal((await dealOf(client, '0065g00000TKO0001'))?.version, 1);
    pubsub.change('0065g00000TKO0004', opportunity(400));
    await until('a later change, through the second process', () => dealOf(client, '0065g00000TKO0004'));
    const { data } = await admin.api.GET('/admin/v1/connections/{id}', { params: { path: { id } } });
    assert.equal(data?.status, 'connected');
    await admin.api.DELETE('/admin/v1/connections/{id}', { params: { path: { id } } });
  });
});
