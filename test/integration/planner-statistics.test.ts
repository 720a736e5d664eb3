import { readFile } from 'node:fs/promises';
import { escapeLiteral } from 'pg';
import { expect, test, vi } from 'vitest';
import { applyMigrations } from '../../src/db/migrate.ts';
import { PlannerStatistics } from '../../src/db/plannerStatistics.ts';
import { createPrismaClient } from '../../src/db/prisma.ts';
import { newId } from '../../src/lib/ids.ts';
import * as deals from '../../src/repositories/deals.ts';
import * as orgs from '../../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements, inTransaction, type SqlPool } from '../../src/repositories/transaction.ts';
import { runCli } from '../helpers/cli.ts';
import { ingestRequest } from '../helpers/ingestRequests.ts';
import { noPlanChanges } from '../helpers/listeners.ts';
import { query, withScratchDatabase } from '../helpers/scratchDatabase.ts';
import { testServices } from '../helpers/services.ts';

// The deal pipeline's statements are planned once per connection, on the statistics of the moment. In a fresh
// database (its own, so that the tables really start empty) a deal lookup planned on the empty table goes through
// the wrong index; PlannerStatistics analyzes the grown table and the same prepared statement is planned again.
// Autovacuum is off for the tables these tests grow: on its own schedule it could analyze one first (CI, 2026-11-27:
// deals analyzed during the 300 ingestions, and the lookup planned again before the keeper ran).

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
    for (const table of ['deals', 'source_events', 'domain_events']) {
      await query(url, `ALTER TABLE ${table} SET (autovacuum_enabled = off)`);
    }
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
    await write(
      'CREATE TABLE planner_probe (id int PRIMARY KEY, touched int NOT NULL DEFAULT 0) WITH (autovacuum_enabled = off)',
    );
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

test('told after each step of a loop, it checks after the 1st, 2nd, 4th… step between its intervals, and not once stopped', async () => {
  await withFreshPipeline(async ({ url, pool }) => {
    const insert = async (rows: number) => {
      await pool.query(`INSERT INTO planner_steps (id) SELECT n FROM generate_series(1, ${rows}) AS n`);
      await flushStatistics(pool);
    };
    const analyses = async () => {
      const [row] = await query<{ analyses: string }>(
        url,
        `SELECT analyze_count AS analyses FROM pg_stat_user_tables WHERE relname = 'planner_steps'`,
      );
      return Number(row?.analyses);
    };
    await pool.query('CREATE TABLE planner_steps (id int NOT NULL) WITH (autovacuum_enabled = off)');
    // An hour between timed checks: only the count of steps decides.
    const statistics = new PlannerStatistics(
      pool,
      (error) => {
        throw error;
      },
      { stepIntervalMs: 3_600_000 },
    );
    await insert(150);
    await statistics.afterWrites();
    expect(await analyses()).toBe(1);
    await insert(300);
    await statistics.afterWrites();
    expect(await analyses()).toBe(2);
    // The table has doubled again, but the third step is not checked; the fourth is.
    await insert(900);
    await statistics.afterWrites();
    expect(await analyses()).toBe(2);
    await statistics.afterWrites();
    expect(await analyses()).toBe(3);

    await statistics.stop();
    await insert(5000);
    for (let step = 0; step < 8; step++) await statistics.afterWrites();
    expect(await analyses()).toBe(3);
  });
});

const REPS = 80;
const DEALS_PER_REP = 30;

/**
 * An org of the example plan (four chips) with REPS reps of DEALS_PER_REP deals each and no earnings yet, in a fresh
 * database: deals and reps analyzed, as an import leaves them, and `earnings` empty.
 */
async function orgWithDealsAndNoEarnings(url: string): Promise<string> {
  await applyMigrations(url);
  const db = createPrismaClient(url, 1);
  const pool = createSqlPool(url, 1, () => {});
  try {
    const org = await orgs.create(databaseStatements(db), 'First recompute org');
    const plan = await readFile(new URL('../../examples/plans/core-ae.yaml', import.meta.url), 'utf8');
    await testServices({ db, pool }).admin.planAdmin.apply({ orgId: org.id, text: plan }, noPlanChanges);
    const reps = Array.from({ length: REPS }, (_, n) => ({ id: newId('user'), externalId: `rep-${n}` }));
    await pool.query(
      `INSERT INTO users (id, org_id, external_id) SELECT id, $1, external_id FROM unnest($2::text[], $3::text[]) AS u(id, external_id)`,
      [org.id, reps.map((rep) => rep.id), reps.map((rep) => rep.externalId)],
    );
    const seeded = Array.from({ length: REPS * DEALS_PER_REP }, (_, n) => {
      const rep = reps[n % REPS] as (typeof reps)[number];
      const won = n % 5 < 2;
      const closeDate = `2026-${String((n % 12) + 1).padStart(2, '0')}-${String((n % 28) + 1).padStart(2, '0')}`;
      return {
        id: newId('deal'),
        external_id: `deal-${n}`,
        amount_cents: 500_000 + ((n * 7919) % 4_000_000),
        stage: won ? 'closed_won' : 'negotiation',
        status: won ? 'won' : 'open',
        close_date: closeDate,
        won_at: won ? `${closeDate}T12:00:00.000Z` : null,
        owner_external_id: rep.externalId,
        user_id: rep.id,
        custom: { region: ['EMEA', 'NA', 'APAC'][n % 3], new_logo: n % 7 === 0 },
      };
    });
    await pool.query(
      `INSERT INTO deals (id, org_id, external_id, amount_cents, stage, status, close_date, won_at, owner_external_id,
                          user_id, custom, version, created_at, updated_at)
       SELECT d.id, $1, d.external_id, d.amount_cents, d.stage, d.status, d.close_date, d.won_at, d.owner_external_id,
              d.user_id, d.custom, 1, now(), now()
       FROM jsonb_to_recordset($2::jsonb) AS d(id text, external_id text, amount_cents bigint, stage text, status text,
            close_date date, won_at timestamptz, owner_external_id text, user_id text, custom jsonb)`,
      [org.id, JSON.stringify(seeded)],
    );
    // Published now, so that the analysis below leaves nothing to analyze in deals and users.
    await pool.query('SELECT pg_stat_force_next_flush()');
    await pool.query('ANALYZE deals, users');
    return org.id;
  } finally {
    await pool.end();
    await db.$disconnect();
  }
}

/** `earnings` as its statistics count it, once every client backend but ours has gone (and so published its counts). */
async function earningsCounts(url: string): Promise<{ rows: number; rowsReadBySequentialScans: number }> {
  await vi.waitFor(
    async () => {
      const [row] = await query<{ others: string }>(
        url,
        `SELECT count(*) AS others FROM pg_stat_activity
         WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      );
      expect(Number(row?.others)).toBe(0);
    },
    { timeout: 10_000, interval: 50 },
  );
  const [row] = await query<{ rows: string; read: string }>(
    url,
    `SELECT n_live_tup AS rows, seq_tup_read AS read FROM pg_stat_user_tables WHERE relname = 'earnings'`,
  );
  return { rows: Number(row?.rows), rowsReadBySequentialScans: Number(row?.read) };
}

test('the first quotient recompute on a fresh database, with no server running, does not read all of earnings for each rep', async () => {
  await withScratchDatabase('quotient_first_recompute', async (url) => {
    const orgId = await orgWithDealsAndNoEarnings(url);
    const before = await earningsCounts(url);

    const run = await runCli(['recompute', '--org', orgId, '--json'], {
      ...process.env,
      DATABASE_URL: url,
      LOG_LEVEL: 'warn',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ reps: REPS, deals: REPS * DEALS_PER_REP });
    expect(run.stderr).not.toContain('could not refresh the planner statistics');

    // Planned on the empty table, a rep's reads of its standing rows scanned the whole table, about two per rep, for
    // as long as the command ran: some 80 times the rows the table ends with were read. Analyzed as it grows, the
    // table is still scanned while it is small (the cheaper plan then), but read through the rep's index once grown.
    const after = await earningsCounts(url);
    expect(after.rows).toBeGreaterThan(REPS * DEALS_PER_REP);
    expect(after.rowsReadBySequentialScans - before.rowsReadBySequentialScans).toBeLessThan(10 * after.rows);
  });
});
