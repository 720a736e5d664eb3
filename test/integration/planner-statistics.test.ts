import { readFile } from 'node:fs/promises';
import { escapeLiteral } from 'pg';
import { expect, test, vi } from 'vitest';
import { createPrismaClient } from '../../src/db/prisma.ts';
import { newId } from '../../src/lib/ids.ts';
import * as deals from '../../src/repositories/deals.ts';
import * as orgs from '../../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements, inTransaction, type SqlPool } from '../../src/repositories/transaction.ts';
import { runCli, SLOW_CLI_TEST_MS } from '../helpers/cli.ts';
import { ingestRequest } from '../helpers/ingestRequests.ts';
import { noPlanChanges } from '../helpers/listeners.ts';
import { query, withMigratedScratchDatabase } from '../helpers/scratchDatabase.ts';
import { testServices } from '../helpers/services.ts';

// The planner's statistics (plannerStatistics: ANALYZE's, autovacuum's) as a fresh install has them: taken on empty
// tables, or in the middle of a bulk write, and then stale while the tables grow. With PostgreSQL's default plan
// cache, the deal pipeline's statements are planned on the data they run on all the same: no keeper refreshes the
// statistics, and none of these tests runs an ANALYZE but to take the statistics at the worst moment. Autovacuum is
// off for the tables they grow, so that it cannot refresh them on its own schedule in between.

const GROWN_TABLES = ['deals', 'source_events', 'domain_events', 'users', 'earnings'];

/** A fresh, migrated database with one org and a one-connection pipeline pool (so its prepared statements are ours). */
async function withFreshPipeline(
  use: (context: {
    url: string;
    pool: SqlPool;
    orgId: string;
    ingestDeals: (count: number) => Promise<void>;
  }) => Promise<void>,
): Promise<void> {
  await withMigratedScratchDatabase('quotient_planner', async (url) => {
    for (const table of GROWN_TABLES) await query(url, `ALTER TABLE ${table} SET (autovacuum_enabled = off)`);
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
    };
    try {
      await use({ url, pool, orgId: org.id, ingestDeals });
    } finally {
      await pool.end();
    }
  });
}

/** The plan of the pool's prepared deal lookup (deals.lockByExternalId), as its connection would run it. */
async function dealLookupPlan(pool: SqlPool, orgId: string): Promise<string> {
  const { rows } = await pool.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN EXECUTE deals_lock(${escapeLiteral(orgId)}, 'deal-7')`,
  );
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

const BY_ITS_KEY = /Index Cond: \(\(org_id = .*\) AND \(external_id = .*\)\)/;

test('a deal lookup prepared on the empty table is planned again by its key once the grown table is analyzed, as autovacuum does', async () => {
  await withFreshPipeline(async ({ url, pool, orgId, ingestDeals }) => {
    // More executions than the plan cache's five custom plans before it weighs a generic one: the connection keeps
    // a plan made while the table was empty.
    for (let run = 0; run < 8; run++) await inTransaction(pool, (tx) => deals.lockByExternalId(tx, orgId, 'deal-7'));
    await ingestDeals(300);
    // Autovacuum analyzes a table once 50 rows and a tenth of it have changed; PostgreSQL then drops every plan
    // that depends on the table, in every session, and plans again: no process of ours has to.
    await query(url, 'ANALYZE deals');
    for (let run = 0; run < 8; run++) await inTransaction(pool, (tx) => deals.lockByExternalId(tx, orgId, 'deal-7'));
    const plan = await dealLookupPlan(pool, orgId);
    expect(plan).toMatch(BY_ITS_KEY);
    expect(plan).not.toContain('Seq Scan');
  });
});

// A hang guard, not a measure: ten thousand rows in five chunks took 20 to 60 s beside a busy machine's other work.
const SLOW_TEST_MS = 180_000;
const CHUNKS = 5;
const CHUNK_ROWS = 2_000;
const REPS = 50;

/** Rows of `deals` read by sequential scans and rolled-back transactions of the database, once every backend but ours has gone. */
async function dealsCounters(url: string): Promise<{ rowsReadBySequentialScans: number; rollbacks: number }> {
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
  const [row] = await query<{ read: string; rollbacks: string }>(
    url,
    `SELECT (SELECT seq_tup_read FROM pg_stat_user_tables WHERE relname = 'deals') AS read,
            (SELECT xact_rollback FROM pg_stat_database WHERE datname = current_database()) AS rollbacks`,
  );
  return { rowsReadBySequentialScans: Number(row?.read), rollbacks: Number(row?.rollbacks) };
}

test(
  'an import whose deals are analyzed while its first chunk is uncommitted still applies every chunk by the deals it names',
  async () => {
    await withMigratedScratchDatabase('quotient_mid_chunk', async (url) => {
      for (const table of GROWN_TABLES) await query(url, `ALTER TABLE ${table} SET (autovacuum_enabled = off)`);
      const db = createPrismaClient(url, 1);
      const org = await orgs.create(databaseStatements(db), 'Mid-chunk statistics org');
      await db.$disconnect();
      // Statements are bounded: a chunk planned as a nested loop over its input would be cancelled, rolled back and
      // counted below, not waited for.
      const pool = createSqlPool(url, 2, () => {}, {
        timeouts: { connectMs: 60_000, statementMs: 60_000, lockMs: 60_000 },
      });
      let analyzedMidChunk: { tuples: number; pages: number } | undefined;
      const batch = testServices({
        pool,
        listeners: {
          deals: {
            onDealChanged: async () => {},
            // Inside the chunk's transaction, its rows written and not committed: the statistics are taken now, as
            // autovacuum or an ANALYZE of another session may take them.
            onDealsChanged: async () => {
              if (analyzedMidChunk) return;
              await query(url, 'ANALYZE deals, source_events, domain_events, users');
              const [row] = await query<{ tuples: number; pages: number }>(
                url,
                `SELECT reltuples AS tuples, relpages AS pages FROM pg_class WHERE relname = 'deals'`,
              );
              analyzedMidChunk = { tuples: Number(row?.tuples), pages: Number(row?.pages) };
            },
          },
        },
      }).api.dealEventBatch;
      const before = await dealsCounters(url);
      try {
        for (let chunk = 0; chunk < CHUNKS; chunk++) {
          const events = Array.from({ length: CHUNK_ROWS }, (_, n) => {
            const body = {
              external_id: `deal-${chunk}-${n}`,
              event_type: 'upsert',
              state: {
                amount_cents: 10_000 + n,
                stage: n % 3 === 0 ? 'closed_won' : 'qualified',
                owner_external_id: `rep-${n % REPS}`,
                close_date: `2026-${String((n % 12) + 1).padStart(2, '0')}-15`,
              },
            };
            return { event: ingestRequest(org.id, body).event, body };
          });
          const results = await batch.ingestAll({ orgId: org.id, keyId: null, events, receivedAt: new Date() });
          expect(results.filter((result) => result.kind !== 'accepted')).toEqual([]);
        }
      } finally {
        await pool.end();
      }
      // The statistics were taken as the stall needs them: the chunk's pages on disk, none of its rows counted.
      expect(analyzedMidChunk?.pages).toBeGreaterThan(0);
      expect(analyzedMidChunk?.tuples).toBeLessThan(CHUNK_ROWS / 10);
      const after = await dealsCounters(url);
      expect(after.rollbacks - before.rollbacks).toBe(0);
      // A chunk may scan `deals` once (a hash join over its input); a nested loop over the input scanning the table
      // per row reads it CHUNK_ROWS times.
      const [count] = await query<{ deals: string }>(url, 'SELECT count(*) AS deals FROM deals');
      expect(Number(count?.deals)).toBe(CHUNKS * CHUNK_ROWS);
      expect(after.rowsReadBySequentialScans - before.rowsReadBySequentialScans).toBeLessThan(
        4 * CHUNKS * CHUNKS * CHUNK_ROWS,
      );
    });
  },
  SLOW_TEST_MS,
);

const RECOMPUTE_REPS = 80;
const DEALS_PER_REP = 30;

/**
 * An org of the example plan (four chips) with RECOMPUTE_REPS reps of DEALS_PER_REP deals each and no earnings yet,
 * in a fresh migrated database: deals and reps analyzed, as an import leaves them, and `earnings` empty.
 */
async function orgWithDealsAndNoEarnings(url: string): Promise<string> {
  const db = createPrismaClient(url, 1);
  const pool = createSqlPool(url, 1, () => {});
  try {
    const org = await orgs.create(databaseStatements(db), 'First recompute org');
    const plan = await readFile(new URL('../../examples/plans/core-ae.yaml', import.meta.url), 'utf8');
    await testServices({ db, pool }).admin.planAdmin.apply({ orgId: org.id, text: plan }, noPlanChanges);
    const reps = Array.from({ length: RECOMPUTE_REPS }, (_, n) => ({ id: newId('user'), externalId: `rep-${n}` }));
    await pool.query(
      `INSERT INTO users (id, org_id, external_id) SELECT id, $1, external_id FROM unnest($2::text[], $3::text[]) AS u(id, external_id)`,
      [org.id, reps.map((rep) => rep.id), reps.map((rep) => rep.externalId)],
    );
    const seeded = Array.from({ length: RECOMPUTE_REPS * DEALS_PER_REP }, (_, n) => {
      const rep = reps[n % RECOMPUTE_REPS] as (typeof reps)[number];
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

test(
  'the first quotient recompute on a fresh database, with no server running, does not read all of earnings for each rep',
  async () => {
    await withMigratedScratchDatabase('quotient_first_recompute', async (url) => {
      const orgId = await orgWithDealsAndNoEarnings(url);
      const before = await earningsCounts(url);

      const run = await runCli(['recompute', '--org', orgId, '--json'], {
        ...process.env,
        DATABASE_URL: url,
        LOG_LEVEL: 'warn',
      });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ reps: RECOMPUTE_REPS, deals: RECOMPUTE_REPS * DEALS_PER_REP });

      // The statistics of `earnings` are those of the empty table for as long as the command runs. A rep's reads of its
      // standing rows, planned for the table as large as it is at each execution, scan it only while it is small.
      const after = await earningsCounts(url);
      expect(after.rows).toBeGreaterThan(RECOMPUTE_REPS * DEALS_PER_REP);
      expect(after.rowsReadBySequentialScans - before.rowsReadBySequentialScans).toBeLessThan(10 * after.rows);
    });
  },
  SLOW_CLI_TEST_MS,
);
