import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeEach, describe } from 'vitest';
import type { components } from '../../generated/openapi-admin.ts';
import type { QuotientClient } from '../../sdk/src/index.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import type { AdminClient } from '../helpers/adminClient.ts';
import { test } from '../helpers/fixtures.ts';
import { startPubSubSimulator } from '../helpers/salesforcePubSubSimulator.ts';
import { startSalesforceSimulator } from '../helpers/salesforceSimulator.ts';
import { startTestServer } from '../helpers/server.ts';

// Salesforce's live channel end to end: the connection's Change Data Capture subscriber against a Pub/Sub API
// simulator over real gRPC (test/helpers/salesforcePubSubSimulator.ts: Avro-encoded OpportunityChangeEvents, replay
// ids, retention, GAP events, dropped streams), beside the REST simulator the first sync and the repairs read. One
// server and one pair of simulators for the file; each test connects a new org and removes its connection at the end.

type Connection = components['schemas']['Connection'];

const rest = await startSalesforceSimulator();
const pubsub = await startPubSubSimulator(rest);
afterAll(async () => {
  await pubsub.close();
  await rest.close();
});
beforeEach(() => {
  pubsub.reset();
  rest.reset();
});

test.override('serverSettings', {
  env: {
    QUOTIENT_SECRET_KEY: randomBytes(32).toString('base64'),
    QUOTIENT_SALESFORCE_LOGIN_URL: rest.url,
    QUOTIENT_SALESFORCE_PUBSUB_URL: pubsub.url,
  },
  options: {},
});

const COMMISSION = planDocument({
  chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }],
});
const REP = '0055g00000REP0001';
const today = new Date().toISOString().slice(0, 10);

function opportunity(stage: string, amount: number, owner = REP) {
  return {
    Name: 'Acme renewal',
    StageName: stage,
    Amount: amount,
    CloseDate: today,
    OwnerId: owner,
    CurrencyIsoCode: 'USD',
  };
}

/** Waits for a condition the subscriber brings about (bounded: a failure names what never happened). */
async function until<T>(what: string, read: () => Promise<T | undefined | null | false>): Promise<T> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const found = await read();
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never: ${what}`);
}

async function connection(admin: AdminClient, id: string): Promise<Connection> {
  const { data } = await admin.api.GET('/admin/v1/connections/{id}', { params: { path: { id } } });
  return data as Connection;
}

/** Connects by the JWT bearer flow; resolves once the first sync ended and the subscriber subscribed. */
async function connect(admin: AdminClient): Promise<Connection> {
  const subscribed = pubsub.subscriptions.length;
  const created = await admin.api.POST('/admin/v1/connections', {
    body: {
      kind: 'salesforce',
      client_id: rest.clientId,
      jwt: { username: rest.jwtUsername, private_key: rest.privateKey },
    },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  const id = (created.data as Connection).id;
  await until('the subscriber subscribes', async () => pubsub.subscriptions.length > subscribed);
  return connection(admin, id);
}

async function remove(admin: AdminClient, id: string): Promise<void> {
  const removed = await admin.api.DELETE('/admin/v1/connections/{id}', { params: { path: { id } } });
  assert.equal(removed.response.status, 204);
}

/** A server's log lines, as its logger writes them. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

async function dealOf(client: QuotientClient, externalId: string) {
  return (await client.deals.listPage({ limit: 100 })).deals.find((deal) => deal.external_id === externalId);
}

describe('Salesforce Change Data Capture', () => {
  test('creations, updates and deletions arrive live, each with its earning, and a replay changes nothing twice', async ({
    newOrg,
    signedIn,
    db,
  }) => {
    const { org, client } = await newOrg();
    await applyPlan(db, org.id, COMMISSION);
    const { client: admin } = await signedIn('admin', org.id);
    rest.putUser(REP, 'ada@example.com');
    const connected = await connect(admin);
    assert.deepEqual(pubsub.subscriptions.at(-1), { preset: 'EARLIEST', after: null });
    assert.ok((pubsub.requested[0] ?? 0) > 0, 'the first FetchRequest asks for events');

    pubsub.change('0065g00000CDC0001', opportunity('Negotiation', 5000));
    const open = await until('the created deal', () => dealOf(client, '0065g00000CDC0001'));
    assert.equal(open.status, 'open');
    assert.equal(open.state.amount_cents, 500_000);
    assert.equal(open.state.close_date, today);
    assert.equal(open.state.owner_external_id, REP);
    assert.equal(open.currency, 'USD');

    pubsub.change('0065g00000CDC0001', { StageName: 'Closed Won', Amount: 10000 });
    const won = await until('the won deal', async () => {
      const found = await dealOf(client, '0065g00000CDC0001');
      return found?.status === 'won' ? found : undefined;
    });
    assert.equal(won.state.amount_cents, 1_000_000);
    assert.equal(won.state.close_date, today, 'the fields the update did not change stay');
    const pending = (await client.earnings.listPage({})).earnings.filter((earning) => earning.status === 'pending');
    assert.deepEqual(
      pending.map((earning) => earning.amount_cents),
      [100_000],
    );

    pubsub.change('0065g00000CDC0002', opportunity('Closed Won', 300));
    await until('the second deal', () => dealOf(client, '0065g00000CDC0002'));
    pubsub.remove('0065g00000CDC0002');
    await until('the deleted deal', async () => {
      const found = await dealOf(client, '0065g00000CDC0002');
      return found === undefined || found.status === 'deleted';
    });
    const stored = await until('the replay id stored', async () => {
      const row = await db.crmConnection.findFirst({ where: { org_id: org.id, id: connected.id } });
      return row?.cdc_replay_id === Buffer.from([0, 0, 0, 0, 0, 0, 0, 4]).toString('base64') ? row : undefined;
    });
    assert.ok(stored.last_change_at, 'the newest change is shown');

    // The replay id lost (a crash between the commit and storing it): everything is delivered again, nothing doubles.
    await db.crmConnection.update({
      where: { org_id_id: { org_id: org.id, id: connected.id } },
      data: { cdc_replay_id: null },
    });
    await admin.api.POST('/admin/v1/connections/{id}/pause', { params: { path: { id: connected.id } } });
    await admin.api.POST('/admin/v1/connections/{id}/resume', { params: { path: { id: connected.id } } });
    await until('the replay from the earliest event', async () => {
      const row = await db.crmConnection.findFirst({ where: { org_id: org.id, id: connected.id } });
      return pubsub.subscriptions.length > 1 && row?.cdc_replay_id !== null;
    });
    const again = await dealOf(client, '0065g00000CDC0001');
    assert.equal(again?.version, won.version);
    assert.deepEqual(
      (await client.earnings.listPage({})).earnings.filter((earning) => earning.status === 'pending'),
      pending,
    );
    await remove(admin, connected.id);
  });

  test('after a pause or a dropped stream it resumes after its stored replay id', async ({ newOrg, signedIn }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    rest.putUser(REP, 'ada@example.com');
    const connected = await connect(admin);
    pubsub.change('0065g00000CDC0011', opportunity('Negotiation', 100));
    await until('the first deal', () => dealOf(client, '0065g00000CDC0011'));

    pubsub.dropStreams();
    await until('a new subscription', async () => pubsub.subscriptions.length === 2);
    assert.deepEqual(pubsub.subscriptions.at(-1), { preset: 'CUSTOM', after: 1 });
    pubsub.change('0065g00000CDC0012', opportunity('Negotiation', 200));
    await until('the deal after the drop', () => dealOf(client, '0065g00000CDC0012'));

    await admin.api.POST('/admin/v1/connections/{id}/pause', { params: { path: { id: connected.id } } });
    pubsub.change('0065g00000CDC0013', opportunity('Negotiation', 300));
    await admin.api.POST('/admin/v1/connections/{id}/resume', { params: { path: { id: connected.id } } });
    await until('the deal changed while paused', () => dealOf(client, '0065g00000CDC0013'));
    assert.deepEqual(pubsub.subscriptions.at(-1), { preset: 'CUSTOM', after: 2 });
    assert.equal((await dealOf(client, '0065g00000CDC0011'))?.version, 1, 'nothing was applied twice');
    await remove(admin, connected.id);
  });

  test('a replay id past the retention falls back to a re-sync from the last change', async ({ newOrg, signedIn }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    rest.putUser(REP, 'ada@example.com');
    const connected = await connect(admin);
    pubsub.change('0065g00000CDC0021', opportunity('Negotiation', 100));
    await until('the first deal', () => dealOf(client, '0065g00000CDC0021'));
    const before = await connection(admin, connected.id);

    await admin.api.POST('/admin/v1/connections/{id}/pause', { params: { path: { id: connected.id } } });
    // Changed while nobody listened, and then past the retention: only the REST API still has them.
    rest.putOpportunity('0065g00000CDC0021', { StageName: 'Closed Won' });
    rest.putOpportunity('0065g00000CDC0022', opportunity('Negotiation', 700));
    pubsub.expire();
    await admin.api.POST('/admin/v1/connections/{id}/resume', { params: { path: { id: connected.id } } });
    await until('the reconciled deals', async () => (await dealOf(client, '0065g00000CDC0022')) !== undefined);
    assert.equal((await dealOf(client, '0065g00000CDC0021'))?.status, 'won');
    const after = await until('connected again', async () => {
      const found = await connection(admin, connected.id);
      return found.status === 'connected' && pubsub.subscriptions.at(-1)?.preset === 'EARLIEST' ? found : undefined;
    });
    assert.ok(
      after.last_sync_at && before.last_sync_at && after.last_sync_at > before.last_sync_at,
      'the repair shows',
    );
    await remove(admin, connected.id);
  });

  test('GAP events are answered by reading the records; a stale change never overwrites a newer one', async ({
    newOrg,
    signedIn,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    rest.putUser(REP, 'ada@example.com');
    const connected = await connect(admin);
    rest.putOpportunity('0065g00000CDC0031', opportunity('Closed Won', 900));
    const at = Date.parse(String(rest.opportunity('0065g00000CDC0031')?.SystemModstamp).replace('+0000', 'Z'));
    pubsub.publish({ changeType: 'GAP_UPDATE', recordIds: ['0065g00000CDC0031'], commitTimestamp: at });
    const read = await until('the record a GAP event names', () => dealOf(client, '0065g00000CDC0031'));
    assert.equal(read.status, 'won');
    assert.equal(read.state.amount_cents, 90_000);

    pubsub.publish({
      changeType: 'UPDATE',
      recordIds: ['0065g00000CDC0031'],
      fields: { Amount: 1200 },
      commitTimestamp: at + 5000,
    });
    pubsub.publish({
      changeType: 'UPDATE',
      recordIds: ['0065g00000CDC0031'],
      fields: { Amount: 5 },
      commitTimestamp: at + 1000,
    });
    pubsub.publish({
      changeType: 'UPDATE',
      recordIds: ['0065g00000CDC0031'],
      nulled: ['LeadSource'],
      commitTimestamp: at + 6000,
    });
    await until('the three changes taken', async () => (await dealOf(client, '0065g00000CDC0031'))?.version === 3);
    assert.equal((await dealOf(client, '0065g00000CDC0031'))?.state.amount_cents, 120_000, 'the older change is stale');
    await remove(admin, connected.id);
  });

  test('a change that cannot be a deal event is named on the connection with its record, and never half written', async ({
    newOrg,
    signedIn,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    rest.putUser(REP, 'ada@example.com');
    const connected = await connect(admin);
    const at = Date.UTC(2026, 5, 1);
    const problem = (pattern: RegExp) =>
      until(`the connection names ${pattern}`, async () =>
        pattern.test((await connection(admin, connected.id)).error ?? ''),
      );
    pubsub.publish({
      changeType: 'CREATE',
      recordIds: ['0065g00000CDC0041'],
      fields: { ...opportunity('Pending Legal', 100), CloseDate: 20_000 },
      commitTimestamp: at,
    });
    await problem(/^Salesforce Opportunity 0065g00000CDC0041: stage: "Pending Legal" is not a stage/);
    pubsub.publish({
      changeType: 'CREATE',
      recordIds: ['0065g00000CDC0042'],
      fields: { ...opportunity('Closed Won', 100, '0055g00000NOBODY1'), CloseDate: 20_000 },
      commitTimestamp: at,
    });
    await problem(/^Salesforce Opportunity 0065g00000CDC0042: owner: user 0055g00000NOBODY1 is not a user/);
    pubsub.change('0065g00000CDC0043', opportunity('Closed Won', 100));
    await until('the good record', () => dealOf(client, '0065g00000CDC0043'));
    assert.equal((await connection(admin, connected.id)).status, 'connected', 'bad records do not stop the channel');
    assert.equal(await dealOf(client, '0065g00000CDC0041'), undefined);
    assert.equal(await dealOf(client, '0065g00000CDC0042'), undefined);
    await remove(admin, connected.id);
  });
  test('a process without the key of the connection leaves it to the one that has it, and says so in its own log', async ({
    newOrg,
    signedIn,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    rest.putUser(REP, 'ada@example.com');
    const connected = await connect(admin);
    const log = capturingLogger();
    const other = await startTestServer(
      {
        QUOTIENT_SECRET_KEY: randomBytes(32).toString('base64'),
        QUOTIENT_SALESFORCE_LOGIN_URL: rest.url,
        QUOTIENT_SALESFORCE_PUBSUB_URL: pubsub.url,
      },
      {},
      log.logger,
    );
    try {
      await until('the other process logs that it leaves the connection', async () =>
        log.lines.some((line) => line.connection_id === connected.id && /cannot open/.test(String(line.msg))),
      );
    } finally {
      await other.close();
    }
    pubsub.change('0065g00000CDC0051', opportunity('Negotiation', 100));
    await until('the deal, through the process that has the key', () => dealOf(client, '0065g00000CDC0051'));
    const shown = await connection(admin, connected.id);
    assert.equal(shown.status, 'connected');
    assert.equal(shown.error ?? null, null, "the other process's condition is not the connection's");
    assert.equal(pubsub.subscriptions.length, 1, 'the other process never subscribed');
    await remove(admin, connected.id);
  });

  test('a session Salesforce ends is renewed at the token endpoint, and the stream resumes after its replay id', async ({
    newOrg,
    signedIn,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    rest.putUser(REP, 'ada@example.com');
    const connected = await connect(admin);
    pubsub.change('0065g00000CDC0061', opportunity('Negotiation', 100));
    await until('the first deal', () => dealOf(client, '0065g00000CDC0061'));
    const grants = rest.grants.length;

    pubsub.endSessions();
    await until('subscribed again', async () => pubsub.subscriptions.length === 2);
    assert.deepEqual(pubsub.subscriptions.at(-1), { preset: 'CUSTOM', after: 1 });
    assert.deepEqual(rest.grants.slice(grants), ['jwt_bearer'], 'one new session, by a new JWT bearer assertion');
    pubsub.change('0065g00000CDC0062', opportunity('Negotiation', 200));
    await until('the deal after the renewal', () => dealOf(client, '0065g00000CDC0062'));
    assert.equal((await connection(admin, connected.id)).status, 'connected');
    assert.equal((await dealOf(client, '0065g00000CDC0061'))?.version, 1, 'nothing was applied twice');
    await remove(admin, connected.id);
  });

  test('after a database error mid-batch it subscribes again from the stored replay id; nothing is applied twice', async ({
    newOrg,
    signedIn,
    db,
  }) => {
    const { org, client } = await newOrg();
    const { client: admin } = await signedIn('admin', org.id);
    rest.putUser(REP, 'ada@example.com');
    const connected = await connect(admin);
    pubsub.change('0065g00000CDC0071', opportunity('Negotiation', 100));
    await until('the first deal', () => dealOf(client, '0065g00000CDC0071'));

    // The connection's row held by another transaction: the subscriber commits the batch's deal event, then waits to
    // store its replay id, and its database connection is ended there (a failover, a restarted PgBouncer).
    await db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM crm_connections WHERE org_id = ${org.id} AND id = ${connected.id} FOR UPDATE`;
        pubsub.change('0065g00000CDC0072', opportunity('Negotiation', 200));
        const blocked = await until('the replay id waits on the row', async () => {
          const rows = await db.$queryRaw<Array<{ pid: number }>>`SELECT pid FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query LIKE '%cdc_replay_id = $4%'`;
          return rows[0];
        });
        await db.$queryRaw`SELECT pg_terminate_backend(${blocked.pid}::int)`;
      },
      { timeout: 30_000 },
    );
    await until('subscribed again', async () => pubsub.subscriptions.length === 2);
    assert.deepEqual(pubsub.subscriptions.at(-1), { preset: 'CUSTOM', after: 1 }, 'from the stored replay id');
    pubsub.change('0065g00000CDC0073', opportunity('Negotiation', 300));
    await until('the deal after the error', () => dealOf(client, '0065g00000CDC0073'));
    assert.equal((await dealOf(client, '0065g00000CDC0072'))?.version, 1, 'the batch delivered again changed nothing');
    assert.equal(
      (await connection(admin, connected.id)).status,
      'connected',
      "the database's fault is not the connection's",
    );
    await remove(admin, connected.id);
  });
});
