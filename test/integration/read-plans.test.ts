import { expect, test } from 'vitest';
import { createPrismaClient } from '../../src/db/prisma.ts';
import { createSqlPool, type SqlPool, type Statement } from '../../src/repositories/transaction.ts';
import { testDatabase, testPool } from '../helpers/database.ts';
import {
  budgetBreaches,
  explainAsPlanned,
  LISTED_READS,
  type ReadWorld,
  recordingPool,
  seedReadWorld,
  seedSmallTenants,
} from '../helpers/readPlans.ts';
import { serverUrl, withMigratedScratchDatabase } from '../helpers/scratchDatabase.ts';
import { testServices } from '../helpers/services.ts';

// Reads stay flat as the tables grow (issue 31, docs/query-plans.md): each listed read (the earnings list with each
// filter and a deep cursor, a row's trace, a statement, payouts, the payroll export, the adjustments and inquiries
// lists) is run through Quotient's readers on an org with a year of data, and every statement it sends is explained
// the way the pool's connections plan it (PostgreSQL's default plan cache, see explainAsPlanned), executed. The read
// fails when a statement scans a growing table (earnings, deals, users, adjustments, inquiries) whole, or reads more
// of its rows than the read's budget, a bound set by what the read returns (a page, a rep's period), not by the
// table. The org is large enough that a scan or a read of the whole period would exceed every budget; the statistics
// are ANALYZE's own, taken after seeding, as autovacuum takes them.
//
// It runs twice: in a database of its own (the org among one other), and in the shared test database among every
// other test's orgs and many small ones seeded beside them. There the statistics are those of thousands of orgs and
// reps with a handful of rows each, and a plan that did not see which org and rep it reads would estimate a rep's
// rows below one; the row budgets are checked in both databases, with nothing but PostgreSQL's own statistics.

const SIZE = { reps: 60, dealsPerRepMonth: 12 };

async function checkReads(url: string, pool: SqlPool, world: ReadWorld): Promise<void> {
  const breaches: string[] = [];
  for (const read of LISTED_READS) {
    const recorded: Statement[] = [];
    const result = await read.run(recordingPool(pool, recorded), world, { setup: pool });
    expect(result, read.name).toBeTruthy();
    const explained = await explainAsPlanned(url, recorded);
    expect(explained.length, `${read.name} ran no statement on the tables`).toBeGreaterThan(0);
    breaches.push(...budgetBreaches(read, world, explained));
  }
  expect(breaches).toEqual([]);
}

test('in a database of its own, every listed read reads within its budget, through an index', async () => {
  await withMigratedScratchDatabase('quotient_reads', async (url) => {
    const db = createPrismaClient(url, 2);
    const pool = createSqlPool(url, 2, () => {});
    try {
      const services = testServices({ db, pool });
      // Another org first, so that the read org's rows are not the whole table.
      await seedReadWorld(
        db,
        pool,
        services,
        { reps: 30, dealsPerRepMonth: 12, idleReps: 3000 },
        'Read plans neighbour',
      );
      const world = await seedReadWorld(db, pool, services, SIZE, 'Read plans');
      expect(world.orgRows).toBeGreaterThan(2 * SIZE.reps * 12 * SIZE.dealsPerRepMonth - 1);
      await checkReads(url, pool, world);

      // The check has teeth: without the rep's index, the list by rep reads all of the rep's rows to sort them.
      await pool.query('DROP INDEX earnings_org_id_user_id_created_at_id_idx');
      const byRep = LISTED_READS.find((read) => read.name === 'GET /v1/earnings?user_id=');
      if (!byRep) throw new Error('the list by rep is not a listed read');
      const recorded: Statement[] = [];
      await byRep.run(recordingPool(pool, recorded), world, { setup: pool });
      expect(budgetBreaches(byRep, world, await explainAsPlanned(url, recorded))).toEqual([
        expect.stringMatching(/^GET \/v1\/earnings\?user_id=: \d+ rows of earnings read, budget 212/),
      ]);
    } finally {
      await pool.end();
      await db.$disconnect();
    }
  });
});

test('in the shared test database, among the other tests’ orgs and many small ones, every listed read reads within its budget, through an index, bound to its org', async () => {
  const db = testDatabase();
  const pool = testPool();
  const services = testServices();
  // The shared database's users table is as small as its tests left it: a neighbour with many reps makes it large
  // enough that a scan would show, as in a real installation.
  await seedReadWorld(db, pool, services, { reps: 5, dealsPerRepMonth: 2, idleReps: 3000 }, 'Read plans neighbour');
  // Many small tenants, whatever the other tests have left: their averages are what a plan blind to the values would
  // estimate from.
  await seedSmallTenants(pool, { orgs: 2000, repsPerOrg: 2, rowsPerRep: 3 }, 'Read plans small tenant');
  const world = await seedReadWorld(db, pool, services, SIZE, 'Read plans (shared database)');
  await checkReads(serverUrl(), pool, world);

  // Each row an earnings, adjustments or inquiries read returns names its rep by one probe of the users key, whatever
  // join the planner would choose. Joined, a plan sizing the org's reps from the small orgs' average (about one) could
  // read all of the org's reps again for each row of a page. Memoize and Materialize are turned off here, as a plan may go without them, so that no cache hides a scan
  // of the org's reps.
  const namingReps = LISTED_READS.filter((listed) =>
    /^GET \/(admin\/)?v1\/(earnings|adjustments|inquiries)\b/.test(listed.name),
  );
  expect(namingReps.length).toBeGreaterThanOrEqual(18);
  for (const read of namingReps) {
    const recorded: Statement[] = [];
    await read.run(recordingPool(pool, recorded), world, { setup: pool });
    const explained = await explainAsPlanned(serverUrl(), recorded, ['enable_memoize=off', 'enable_material=off']);
    const reps = explained.flatMap((statement) => statement.scans.filter((scan) => scan.table === 'users'));
    expect(reps.length, `${read.name} names no rep`).toBeGreaterThan(0);
    for (const scan of reps) {
      expect(`${scan.node} ${scan.conditions}`, read.name).toMatch(/^Index (Only )?Scan .*\b(id|external_id) = /);
    }
  }
});
