import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { QuotientClient } from '../../sdk/src/index.ts';
import { createClient } from '../../sdk/src/index.ts';
import * as planWrites from '../../src/repositories/planWrites.ts';
import { inPrismaTransaction } from '../../src/repositories/transaction.ts';
import * as webhookEndpoints from '../../src/repositories/webhookEndpoints.ts';
import { createOrgWithKey } from '../factories/access.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { exited, spawnServe } from '../helpers/cli.ts';
import { closeTestDatabase, testDatabase } from '../helpers/database.ts';

// Each server process keeps its orgs' configuration (plans in force, webhook endpoints) between deal events, and
// uses it only when it is of the version the event's own first statement read. So a change is seen by the very
// next event on every process: never one stale event.

let servers: Array<{ child: ChildProcess; url: string }>;

beforeAll(async () => {
  servers = await Promise.all(
    [1, 2].map(() => spawnServe({ ...process.env, LOG_LEVEL: 'warn', QUOTIENT_RATE_LIMIT_STORE: 'postgres' })),
  );
});

afterAll(async () => {
  for (const served of servers ?? []) served.child.kill('SIGTERM');
  await Promise.all((servers ?? []).map((served) => exited(served.child)));
  await closeTestDatabase();
});

function commissionPlan(key: string, rateBps: number) {
  return planDocument({
    key,
    chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: rateBps }],
  });
}

async function wonDeal(client: QuotientClient, externalId: string): Promise<string> {
  const ids = await client.deals.ingestEvent({
    external_id: externalId,
    state: { amount_cents: 1_000_000, stage: 'closed_won', close_date: '2026-04-10', owner_external_id: 'rep-1' },
  });
  return ids.deal_id;
}

async function earnedOn(orgId: string, dealId: string): Promise<number[]> {
  const rows = await testDatabase().earning.findMany({
    where: { org_id: orgId, deal_id: dealId },
    orderBy: { id: 'asc' },
  });
  return rows.map((row) => Number(row.amount_cents));
}

describe("the org's configuration, cached per process", () => {
  test('a plan applied between two events changes the second event’s earnings, on both processes', async () => {
    const db = testDatabase();
    const { org, rawKey } = await createOrgWithKey(db);
    const [first, second] = servers.map((served) =>
      createClient({ baseUrl: served.url, apiKey: rawKey, backoff: { initialDelayMs: 10, maxDelayMs: 100 } }),
    ) as [QuotientClient, QuotientClient];

    // No plan yet: both processes hold the configuration without one.
    assert.deepEqual(await earnedOn(org.id, await wonDeal(first, 'before-plan-1')), []);
    assert.deepEqual(await earnedOn(org.id, await wonDeal(second, 'before-plan-2')), []);

    await applyPlan(db, org.id, commissionPlan('base-plan', 1000));
    assert.deepEqual(await earnedOn(org.id, await wonDeal(first, 'at-10-pct-1')), [100_000]);
    assert.deepEqual(await earnedOn(org.id, await wonDeal(second, 'at-10-pct-2')), [100_000]);

    await applyPlan(db, org.id, commissionPlan('base-plan', 2500));
    assert.deepEqual(await earnedOn(org.id, await wonDeal(second, 'at-25-pct-2')), [250_000]);
    assert.deepEqual(await earnedOn(org.id, await wonDeal(first, 'at-25-pct-1')), [250_000]);

    // Through the repository's write, which bumps the org's configuration version in its transaction.
    const [plan] = await db.plan.findMany({ where: { org_id: org.id }, select: { id: true } });
    await inPrismaTransaction(db, (tx) => planWrites.archive(tx, org.id, plan?.id as string, new Date()));
    assert.deepEqual(await earnedOn(org.id, await wonDeal(first, 'archived-1')), []);
    assert.deepEqual(await earnedOn(org.id, await wonDeal(second, 'archived-2')), []);
  });

  test('a webhook endpoint added between two events receives the second event’s deal.updated', async () => {
    const db = testDatabase();
    const { org, rawKey } = await createOrgWithKey(db);
    const client = createClient({ baseUrl: servers[0]?.url as string, apiKey: rawKey });
    await wonDeal(client, 'no-endpoint-yet');
    assert.equal(await db.webhookMessage.count({ where: { org_id: org.id } }), 0);
    await inPrismaTransaction(db, (tx) =>
      webhookEndpoints.createEndpoint(tx, org.id, {
        url: 'https://example.com/hook',
        events: ['deal.updated'],
        secret: 'whsec_test',
      }),
    );
    await wonDeal(client, 'endpoint-now');
    assert.equal(await db.webhookMessage.count({ where: { org_id: org.id, type: 'deal.updated' } }), 1);
  });
});
