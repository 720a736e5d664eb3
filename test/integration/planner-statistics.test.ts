import { escapeLiteral } from 'pg';
import { expect, test, vi } from 'vitest';
import { applyMigrations } from '../../src/db/migrate.ts';
import { PlannerStatistics } from '../../src/db/plannerStatistics.ts';
import { createPrismaClient } from '../../src/db/prisma.ts';
import * as deals from '../../src/repositories/deals.ts';
import * as orgs from '../../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements, inTransaction, type SqlPool } from '../../src/repositories/transaction.ts';
import { ingestRequest } from '../helpers/ingestRequests.ts';
import { query, withScratchDatabase } from '../helpers/scratchDatabase.ts';
import { testServices } from '../helpers/services.ts';

// The deal pipeline's statements are planned once per connection, on the statistics of the moment. In a fresh
// database (its own, so that the tables really start empty) a deal lookup planned on the empty table goes through
// the wrong index; PlannerStatistics analyzes the grown table and the same prepared statement is planned again.

/** A fresh, migrated database with one org and a one-connection pipeline pool (so its prepared statements are ours). */
async function withFreshPipeline(
  use: (context: {
    url: string;
    pool: SqlPool;
    orgId: string;
    ingestDeals: (count: number) => Promise<void>;
  }) => Promise<void>,
): Promise<void> {
  await withScratchDatabase('quotient_planner', async (url) => {
    await applyMigrations(url);
    const db = createPrismaClient(url, 1);
    const org = await orgs.create(databaseStatements(db), 'Planner statistics org');
    await db.$disconnect();
    const pool = createSqlPool(url, 1, () => {});
    const ingestion = testServices({ pool, listeners: { deals: { onDealChanged: async () => {} } } }).api.ingestion;
    const ingestDeals = async (count: number) => {
      for (let n = 0; n < count; n++) {
        const body = {
          external_id: `deal-${n}`,
          event_type: 'upsert',
          state: { amount_cents: 1000 + n, stage: 'qualified' },
        };
        await ingestion.ingest(ingestRequest(org.id, body));
      }
      await flushStatistics(pool);
    };
    try {
      await use({ url, pool, orgId: org.id, ingestDeals });
    } finally {
      await pool.end();
    }
  });
}

/**
 * Makes the pool's one connection publish its table counters now: a busy backend publishes them at most once a
 * second, and the keeper reads the published ones.
 */
async function flushStatistics(pool: SqlPool): Promise<void> {
  await pool.query('SELECT pg_stat_force_next_flush()');
}

/** The plan of the pool's prepared deal lookup (deals.lockByExternalId), as its connection would run it. */
async function dealLookupPlan(pool: SqlPool, orgId: string): Promise<string> {
  const { rows } = await pool.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN EXECUTE deals_lock(${escapeLiteral(orgId)}, 'deal-7')`,
  );
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

const THROUGH_THE_ORG = 'Filter: (external_id = $2)';
const BY_ITS_KEY = /Index Cond: \(\(org_id = \$1\) AND \(external_id = \$2\)\)/;

test('a deal lookup planned on the empty table is planned again by its key once the grown table is analyzed', async () => {
  await withFreshPipeline(async ({ pool, orgId, ingestDeals }) => {
    await inTransaction(pool, (tx) => deals.lockByExternalId(tx, orgId, 'deal-7'));
    // Planned on the empty table: every deal of the org is read and filtered.
    expect(await dealLookupPlan(pool, orgId)).toContain(THROUGH_THE_ORG);

    await ingestDeals(300);
    // The data alone does not change a plan already made.
    expect(await dealLookupPlan(pool, orgId)).toContain(THROUGH_THE_ORG);

    const statistics = new PlannerStatistics(pool, (error) => {
      throw error;
    });
    expect(await statistics.refresh()).toEqual(expect.arrayContaining(['deals', 'domain_events', 'source_events']));
    expect(await dealLookupPlan(pool, orgId)).toMatch(BY_ITS_KEY);
    // Nothing has changed since: nothing is analyzed again.
    expect(await statistics.refresh()).toEqual([]);
  });
});

test('a table is analyzed again only when it has changed by as many rows as it had at its last analysis', async () => {
  await withFreshPipeline(async ({ pool }) => {
    const statistics = new PlannerStatistics(
      pool,
      (error) => {
        throw error;
      },
      { minimumChanges: 100 },
    );
    const write = async (sql: string) => {
      await pool.query(sql);
      await flushStatistics(pool);
    };
    await write('CREATE TABLE planner_probe (id int PRIMARY KEY, touched int NOT NULL DEFAULT 0)');
    await write('INSERT INTO planner_probe (id) SELECT n FROM generate_series(1, 99) AS n');
    // Fewer changes than the minimum: left to autovacuum.
    expect(await statistics.refresh()).not.toContain('planner_probe');
    await write('INSERT INTO planner_probe (id) VALUES (100)');
    expect(await statistics.refresh()).toContain('planner_probe');
    // 100 rows at the analysis: 99 changes are not enough, the 100th is.
    await write('UPDATE planner_probe SET touched = 1 WHERE id < 100');
    expect(await statistics.refresh()).not.toContain('planner_probe');
    await write('UPDATE planner_probe SET touched = 1 WHERE id = 100');
    expect(await statistics.refresh()).toContain('planner_probe');
  });
});

test('started, it analyzes on its own schedule', async () => {
  await withFreshPipeline(async ({ url, pool, ingestDeals }) => {
    await ingestDeals(120);
    const failures: unknown[] = [];
    const statistics = new PlannerStatistics(pool, (error) => failures.push(error), { intervalMs: 20 });
    statistics.start();
    try {
      await vi.waitFor(
        async () => {
          const [row] = await query<{ analyzed: boolean }>(
            url,
            `SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE relname = 'deals'`,
          );
          expect(row?.analyzed).toBe(true);
        },
        { timeout: 10_000, interval: 50 },
      );
    } finally {
      await statistics.stop();
    }
    expect(failures).toEqual([]);
  });
});
