import assert from 'node:assert/strict';
import pg from 'pg';
import { afterAll, describe, test } from 'vitest';
import { inPrismaTransaction, type Transaction } from '../../src/repositories/transaction.ts';
import { enqueueWebhookEvent } from '../../src/services/webhookOutbox.ts';
import { createOrg } from '../factories/access.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { closeTestDatabase, testDatabase } from '../helpers/database.ts';
import { testServices } from '../helpers/services.ts';
import { assertMatchesContract } from '../helpers/webhookReceiver.ts';

afterAll(closeTestDatabase);

// The outbox is written inside the caller's transaction: what commits is announced, what rolls back is not.
// Only what is written is checked: the workers of other test files may already be attempting these deliveries
// (to URLs that do not resolve). That a new delivery is due at once, webhooks-delivery.test.ts shows.

const PERIOD = {
  id: '2026-04',
  kind: 'monthly',
  starts_on: '2026-04-01',
  ends_on: '2026-04-30',
  status: 'locked',
} as const;
const at = new Date('2026-05-01T09:00:00.000Z');

async function messagesOf(orgId: string) {
  return testDatabase().webhookMessage.findMany({
    where: { org_id: orgId },
    include: { deliveries: { orderBy: { endpoint_id: 'asc' } } },
    orderBy: { id: 'asc' },
  });
}

describe('the webhook outbox', () => {
  test('a committed change writes one message and a due delivery per enabled endpoint subscribed to its kind', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const all = await createEndpoint(db, org.id, 'https://hooks.example.test/all');
    const periods = await createEndpoint(db, org.id, 'https://hooks.example.test/periods', ['period.locked']);
    await createEndpoint(db, org.id, 'https://hooks.example.test/deals', ['deal.updated']);
    const disabled = await createEndpoint(db, org.id, 'https://hooks.example.test/disabled');
    await db.webhookEndpoint.updateMany({ where: { id: disabled.endpoint.id }, data: { enabled: false } });
    const removed = await createEndpoint(db, org.id, 'https://hooks.example.test/removed');
    await testServices({ db }).admin.webhooks.remove(org.id, removed.endpoint.id);
    const elsewhere = await createOrg(db);
    await createEndpoint(db, elsewhere.id, 'https://hooks.example.test/other-org');

    const enqueued = await inPrismaTransaction(db, (tx) =>
      enqueueWebhookEvent(tx, org.id, 'period.locked', { period: PERIOD }, { timestamp: at }),
    );
    assert.ok(enqueued);
    assert.deepEqual(enqueued.endpoint_ids, [all.endpoint.id, periods.endpoint.id].sort());

    const [message, ...more] = await messagesOf(org.id);
    assert.equal(more.length, 0);
    assert.equal(message?.id, enqueued.message_id);
    assert.equal(message?.type, 'period.locked');
    assert.deepEqual(message?.payload, {
      type: 'period.locked',
      timestamp: at.toISOString(),
      data: { period: PERIOD },
    });
    assertMatchesContract(message?.payload);
    assert.deepEqual(
      message?.deliveries.map((delivery) => delivery.endpoint_id),
      enqueued.endpoint_ids,
    );
    assert.equal((await messagesOf(elsewhere.id)).length, 0);
  });

  test('the payload is stored as written, members in the contract order, so every attempt sends the same bytes', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    await createEndpoint(db, org.id, 'https://hooks.example.test/all');
    const enqueued = await inPrismaTransaction(db, (tx) =>
      enqueueWebhookEvent(tx, org.id, 'period.paid', { period: { ...PERIOD, status: 'paid' } }, { timestamp: at }),
    );
    const [row] = await db.$queryRaw<{ body: string }[]>`
      SELECT payload::text AS body FROM webhook_messages WHERE id = ${enqueued?.message_id}`;
    assert.equal(
      row?.body,
      `{"type":"period.paid","timestamp":"${at.toISOString()}","data":{"period":{"id":"2026-04","kind":"monthly","starts_on":"2026-04-01","ends_on":"2026-04-30","status":"paid"}}}`,
    );
  });

  test('when no endpoint takes the kind, then nothing is written', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    await createEndpoint(db, org.id, 'https://hooks.example.test/deals', ['deal.updated']);
    const enqueued = await inPrismaTransaction(db, (tx) =>
      enqueueWebhookEvent(tx, org.id, 'period.locked', { period: PERIOD }, { timestamp: at }),
    );
    assert.equal(enqueued, null);
    assert.equal((await messagesOf(org.id)).length, 0);
  });

  test('a rolled-back Prisma transaction announces nothing', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    await createEndpoint(db, org.id, 'https://hooks.example.test/all');
    await assert.rejects(
      inPrismaTransaction(db, async (tx) => {
        const enqueued = await enqueueWebhookEvent(tx, org.id, 'period.locked', { period: PERIOD }, { timestamp: at });
        assert.ok(enqueued, 'written inside the transaction');
        throw new Error('the change failed after announcing itself');
      }),
      /the change failed/,
    );
    assert.equal((await messagesOf(org.id)).length, 0);
    assert.equal(await db.webhookDelivery.count({ where: { org_id: org.id } }), 0);
  });

  test('inside a plain pg transaction (the deal pipeline’s), commit announces and rollback does not', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    const { endpoint } = await createEndpoint(db, org.id, 'https://hooks.example.test/all');
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    // Sent unnamed, as the pool sends them through a transaction pooler (npm run test:pgbouncer): a name prepared in
    // one transaction may be unknown to the server connection the pooler gives the next one.
    const tx: Transaction = {
      query: async <Row>({ text, values }: { name?: string; text: string; values: unknown[] }) =>
        (await client.query({ text, values })).rows as Row[],
    };
    try {
      await client.query('BEGIN');
      await enqueueWebhookEvent(tx, org.id, 'period.locked', { period: PERIOD }, { timestamp: at });
      await client.query('ROLLBACK');
      assert.equal((await messagesOf(org.id)).length, 0, 'rolled back: nothing');

      await client.query('BEGIN');
      const enqueued = await enqueueWebhookEvent(tx, org.id, 'period.paid', { period: PERIOD }, { timestamp: at });
      await client.query('COMMIT');
      const messages = await messagesOf(org.id);
      assert.deepEqual(
        messages.map((message) => [message.id, message.type, message.deliveries.map((d) => d.endpoint_id)]),
        [[enqueued?.message_id, 'period.paid', [endpoint.id]]],
      );
    } finally {
      await client.end();
    }
  });
});
