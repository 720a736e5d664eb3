import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { PeriodChangeListener } from '../../src/services/periodChanges.ts';
import { PERIOD_CHANGE_TRANSACTION_TIMEOUT_MS } from '../../src/services/periods.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// Lock and mark-paid of a period with many earnings rows. Each is one Prisma interactive transaction that moves
// every row of the period, so it grows with the period; Prisma closes such a transaction after 5 s unless told
// otherwise, and the lock then failed and rolled back. Nothing here is timed: the ledger's moves are made to run
// after the transaction has already lived longer than Prisma's default (the database sleeps first, in the
// transaction), which the configured bound (PERIOD_CHANGE_TRANSACTION_TIMEOUT_MS) must allow.

const PERIOD = '2026-04';
const REPS = 40;
const DEALS = 3_000;
const BATCH = 1_000;
/** Prisma's default interactive-transaction timeout. */
const PRISMA_DEFAULT_TIMEOUT_MS = 5_000;

/** The earnings engine's period moves, run after the transaction has slept past Prisma's default timeout. */
function outlivingPrismaDefault(engine: PeriodChangeListener): PeriodChangeListener {
  const sleep = `SELECT 1 AS slept FROM pg_sleep(${(PRISMA_DEFAULT_TIMEOUT_MS + 500) / 1000})`;
  return {
    ...(engine.beforePeriodLocked ? { beforePeriodLocked: engine.beforePeriodLocked.bind(engine) } : {}),
    onPeriodLocked: async (tx, change) => {
      await tx.query({ text: sleep, values: [] });
      await engine.onPeriodLocked(tx, change);
    },
    onPeriodPaid: async (tx, change) => {
      await tx.query({ text: sleep, values: [] });
      await engine.onPeriodPaid(tx, change);
    },
  };
}

describe('lock and pay a period with many earnings rows', () => {
  test('the bound is documented and longer than Prisma’s default', () => {
    assert.equal(PERIOD_CHANGE_TRANSACTION_TIMEOUT_MS, 15 * 60_000);
    assert.ok(PERIOD_CHANGE_TRANSACTION_TIMEOUT_MS > PRISMA_DEFAULT_TIMEOUT_MS);
  });

  // Seeding 3,000 deals through the batch endpoint and two transactions that sleep 5.5 s each on a shared 2-core machine.
  test('a period of thousands of rows locks and pays in transactions that outlive 5 s', { timeout: 300_000 }, async ({
    db,
    org,
    client,
  }) => {
    await applyPlan(db, org.id, planDocument());
    for (let start = 0; start < DEALS; start += BATCH) {
      const events = Array.from({ length: BATCH }, (_, offset) => {
        const index = start + offset;
        return {
          external_id: `scale-${index}`,
          dedup_key: `scale-${index}`,
          state: {
            ...state(100_000 + index, 'closed_won', `2026-04-${String(1 + (index % 28)).padStart(2, '0')}`, {
              region: 'NA',
            }),
            owner_external_id: `rep-${index % REPS}`,
          },
        };
      });
      const result = await client.deals.ingestEvents(events);
      assert.equal(result.results.length, BATCH);
    }
    const pending = await db.earning.count({ where: { org_id: org.id, period_id: PERIOD, status: 'pending' } });
    assert.ok(pending >= DEALS, `${pending} pending rows`);

    const periods = testServices({ db, listeners: { periods: outlivingPrismaDefault } }).admin.periods;
    const locked = await periods.lock(org.id, PERIOD);
    assert.equal(locked.changed, true);
    assert.equal(locked.period.status, 'locked');
    assert.equal(locked.rows_moved, pending);
    assert.equal(await db.earning.count({ where: { org_id: org.id, period_id: PERIOD, status: 'pending' } }), 0);
    assert.equal(await db.earning.count({ where: { org_id: org.id, period_id: PERIOD, status: 'approved' } }), pending);

    const paid = await periods.markPaid(org.id, PERIOD);
    assert.equal(paid.changed, true);
    assert.equal(paid.period.status, 'paid');
    assert.equal(paid.rows_moved, pending);
    assert.equal(await db.earning.count({ where: { org_id: org.id, period_id: PERIOD, status: 'approved' } }), 0);
    assert.equal(await db.earning.count({ where: { org_id: org.id, period_id: PERIOD, status: 'paid' } }), pending);
  });
});
