import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ignorePeriodChanges } from '../../src/services/periodChanges.ts';
import { PeriodAdmin } from '../../src/services/periods.ts';
import { withPeriodWebhooks } from '../../src/services/webhookAnnouncements.ts';
import { createOrg } from '../factories/access.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { closeTestDatabase, testDatabase } from '../helpers/database.ts';
import { assertMatchesContract } from '../helpers/webhookReceiver.ts';

after(closeTestDatabase);

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
      ...ignorePeriodChanges,
      onPeriodLocked: async () => {
        throw new Error('the ledger could not approve the period');
      },
    };
    await assert.rejects(
      new PeriodAdmin(db, withPeriodWebhooks(failingLedger)).lock(org.id, '2026-05'),
      /could not approve/,
    );
    assert.deepEqual(await payloadsOf(org.id), []);
    assert.equal(await db.period.count({ where: { org_id: org.id, status: 'locked' } }), 0);
  });
});
