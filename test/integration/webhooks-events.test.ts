import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { createSqlPool } from '../../src/repositories/transaction.ts';
import { createOrg } from '../factories/access.ts';
import { dealEvent } from '../factories/deals.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { test } from '../helpers/fixtures.ts';
import { ingestRequest } from '../helpers/ingestRequests.ts';
import { testServices } from '../helpers/services.ts';
import { assertMatchesContract } from '../helpers/webhookReceiver.ts';

// The emission points: each change writes its webhook to the outbox in its own transaction. The stored payload
// is what a worker sends, byte for byte, so it is checked here; the endpoints' URLs do not resolve.

async function payloadsOf(orgId: string) {
  const messages = await testDatabase().webhookMessage.findMany({ where: { org_id: orgId }, orderBy: { id: 'asc' } });
  for (const message of messages) assertMatchesContract(message.payload);
  return messages.map((message) => message.payload as { type: string; timestamp: string; data: unknown });
}

describe('period webhooks', () => {
  test('periods lock and mark-paid announce period.locked and period.paid, at the times they happened', async () => {
    const org = await createOrg(testDatabase());
    await createEndpoint(testDatabase(), org.id, 'https://hooks.example.test/all');

    const locked = onlyJson(await runCli(['periods', 'lock', '2026-04', '--org', org.id, '--json'])) as {
      locked_at: string;
    };
    const again = await runCli(['periods', 'lock', '2026-04', '--org', org.id, '--json']);
    assert.equal(again.code, 0, again.stderr);
    const paid = onlyJson(await runCli(['periods', 'mark-paid', '2026-04', '--org', org.id, '--json'])) as {
      paid_at: string;
    };

    const period = { id: '2026-04', kind: 'monthly', starts_on: '2026-04-01', ends_on: '2026-04-30' };
    assert.deepEqual(await payloadsOf(org.id), [
      { type: 'period.locked', timestamp: locked.locked_at, data: { period: { ...period, status: 'locked' } } },
      { type: 'period.paid', timestamp: paid.paid_at, data: { period: { ...period, status: 'paid' } } },
    ]);
  });

  test('when the rest of the status change fails, the period keeps its status and nothing is announced', async () => {
    const db = testDatabase();
    const org = await createOrg(db);
    await createEndpoint(db, org.id, 'https://hooks.example.test/all');
    const failingLedger = {
      onPeriodLocked: async () => {
        throw new Error('the ledger could not approve the period');
      },
      onPeriodPaid: async () => {},
    };
    await assert.rejects(
      testServices({ db, listeners: { periods: failingLedger } }).admin.periods.lock(org.id, '2026-05'),
      /could not approve/,
    );
    assert.deepEqual(await payloadsOf(org.id), []);
    assert.equal(await db.period.count({ where: { org_id: org.id, status: 'locked' } }), 0);
  });
});

describe('deal webhooks', () => {
  async function subscribeToDeals(orgId: string) {
    await createEndpoint(testDatabase(), orgId, 'https://hooks.example.test/deals', ['deal.updated']);
  }

  test('an accepted deal event announces deal.updated: the deal as GET /v1/deals shows it, and its domain event', async ({
    org,
    client,
  }) => {
    await subscribeToDeals(org.id);
    const created = await client.deals.ingestEvent(dealEvent());
    const { external_id } = (await client.deals.listPage()).deals[0] ?? {};
    const won = await client.deals.ingestEvent({ external_id: external_id as string, state: { stage: 'closed_won' } });
    const [deal] = (await client.deals.listPage({ external_id })).deals;
    assert.ok(deal);

    const payloads = await payloadsOf(org.id);
    assert.deepEqual(
      payloads.map((payload) => [payload.type, (payload.data as { domain_event: unknown }).domain_event]),
      [
        ['deal.updated', { id: created.domain_event_id, kind: 'deal.created' }],
        ['deal.updated', { id: won.domain_event_id, kind: 'deal.closed_won' }],
      ],
    );
    assert.deepEqual((payloads[1]?.data as { deal: unknown } | undefined)?.deal, deal);
    assert.equal(payloads[1]?.timestamp, deal.updated_at);
  });

  test('stale events and replays change nothing and announce nothing', async ({ org, client }) => {
    await subscribeToDeals(org.id);
    const first = dealEvent({ occurred_at: '2026-04-10T12:00:00Z', dedup_key: 'crm-1' });
    await client.deals.ingestEvent(first);
    await client.deals.ingestEvent(first);
    await client.deals.ingestEvent({
      external_id: first.external_id,
      state: { stage: 'lost' },
      occurred_at: '2026-04-01T12:00:00Z',
    });
    assert.equal((await payloadsOf(org.id)).length, 1);
  });

  test('when the rest of the deal change fails, the event is refused and nothing is announced', async ({ org }) => {
    await subscribeToDeals(org.id);
    const pool = createSqlPool(process.env.DATABASE_URL as string, 2, () => {});
    const failingEngine = {
      onDealChanged: async () => {
        throw new Error('earnings evaluation failed');
      },
    };
    try {
      const body = dealEvent();
      await assert.rejects(
        testServices({ pool, listeners: { deals: failingEngine } }).api.ingestion.ingest(ingestRequest(org.id, body)),
        /earnings evaluation failed/,
      );
    } finally {
      await pool.end();
    }
    assert.deepEqual(await payloadsOf(org.id), []);
  });
});
