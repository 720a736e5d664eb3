import assert from 'node:assert/strict';
import type { EarningListItem, QuotientClient } from '../../sdk/src/index.ts';
import { createSqlPool } from '../../src/repositories/transaction.ts';
import { externalId } from '../factories/deals.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// A rep a deal no longer credits keeps rows of it (a clawback of what a locked period approved). Those lines are
// dated by the deal: when the deal later moves to another period, the event moves them too, exactly where a
// full recompute would put them (the property tests' incremental = full, through the real ingestion).

async function live(client: QuotientClient): Promise<string[]> {
  const rows: EarningListItem[] = [];
  for await (const row of client.earnings.list({ status: ['projected', 'pending'] })) rows.push(row);
  return rows.map((row) => `${row.user_external_id} ${row.status} ${row.amount_cents} ${row.period_id}`).sort();
}

test("a removed split rep's clawback moves with the deal's new close date, as a recompute would place it", async ({
  db,
  org,
  client,
}) => {
  const applied = await applyPlan(
    db,
    org.id,
    planDocument({ chips: [{ key: 'base', name: 'Base', kind: 'commission', rate_bps: 1000 }] }),
  );
  const external = externalId();
  await client.deals.ingestEvent({
    external_id: external,
    state: { amount_cents: 1_000_000, stage: 'closed_won', close_date: '2026-03-20', owner_external_id: 'rep-017' },
    splits: [{ owner_external_id: 'rep-018', share_bps: 10_000 }],
  });
  await testServices({ db }).admin.periods.lock(org.id, '2026-03');

  // Reopened, undated, without splits: rep-018's approved 1,000.00 is clawed back; rep-017 has a forecast.
  await client.deals.ingestEvent({
    external_id: external,
    state: { stage: 'proposal', close_date: null },
    splits: null,
  });
  const [undated] = (await live(client)).filter((row) => row.startsWith('rep-018'));
  assert.match(undated ?? '', /^rep-018 pending -100000 /);

  // Dated in May: the clawback line is dated by the deal, so it moves to May with rep-017's forecast.
  await client.deals.ingestEvent({ external_id: external, state: { close_date: '2026-05-15' } });
  const afterEvent = await live(client);
  assert.deepEqual(afterEvent, ['rep-017 projected 100000 2026-05', 'rep-018 pending -100000 2026-05']);

  const pool = createSqlPool(process.env.DATABASE_URL as string, 2, () => {});
  try {
    await testServices({ pool }).admin.recompute.run({ orgId: org.id, planIds: [applied.plan_id] });
  } finally {
    await pool.end();
  }
  assert.deepEqual(await live(client), afterEvent, 'a full recompute changes nothing');
});
