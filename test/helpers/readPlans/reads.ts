import type { Services } from '../../../src/composition.ts';
import type { Database } from '../../../src/db/prisma.ts';
import { keysetFingerprint } from '../../../src/domain/lists/keysetCursor.ts';
import { orgViewer, type Viewer } from '../../../src/domain/viewer.ts';
import type { SqlPool } from '../../../src/repositories/transaction.ts';
import { EARNING_CURSOR, earningListFingerprint } from '../../../src/services/earnings/reader.ts';
import type { InquiryActor, InquiryDesk } from '../../../src/services/inquiries.ts';
import { PAYOUT_CURSOR } from '../../../src/services/payouts.ts';
import { testServices } from '../services.ts';
import type { GrowingTable, ReadWorld } from './world.ts';

// The listed reads: each one run through Quotient's readers on a seeded world, with the rows of each growing table
// it may read.

/** One listed read: what it does through Quotient's readers, and how many rows of each growing table it may read. */
export interface ListedRead {
  name: string;
  /** Runs the read on readers built on `pool` (whose statements are recorded). */
  run: (pool: SqlPool, world: ReadWorld, services: { setup: SqlPool }) => Promise<unknown>;
  /** Per statement, the most rows of these tables it may read (scans' rows returned + removed by filters, × loops). */
  budget: (world: ReadWorld) => Partial<Record<GrowingTable, number>>;
}

const PAGE = 100;

/** What a read needs before it runs (a cursor), found once per world: its finding is not the read. */
const prepared = new WeakMap<ReadWorld, Map<string, Promise<string>>>();
function once(world: ReadWorld, key: string, find: () => Promise<string>): Promise<string> {
  const found = prepared.get(world) ?? new Map<string, Promise<string>>();
  prepared.set(world, found);
  const value = found.get(key) ?? find();
  found.set(key, value);
  return value;
}
const viewerOf = (world: ReadWorld): Viewer => orgViewer(world.orgId);
/** A rep token of the world's first rep, who manages the next three: the rep and their reports are visible. */
function managerViewerOf(world: ReadWorld): Viewer {
  const team = world.reps.slice(0, 4).map((rep) => rep.id);
  return {
    kind: 'rep',
    orgId: world.orgId,
    userId: team[0] as string,
    tokenId: 'reptok_read_plans',
    visibleUserIds: team,
  };
}
const middleRep = (world: ReadWorld) =>
  world.reps[Math.floor(world.reps.length / 2)] as { id: string; external_id: string };
/** The list's budget: a page (and the one row that tells whether there is a next), twice over for slack. */
const listBudget = (pages = 1) => ({
  earnings: 2 * pages * (PAGE + 1) + 10,
  users: PAGE + 2,
  deals: 0,
  adjustments: 0,
});
/** A page of adjustments or of inquiries, as listBudget bounds the earnings': each row's rep probed by its key. */
const rowsListBudget = (table: 'adjustments' | 'inquiries') => ({
  ...listBudget(),
  earnings: 0,
  [table]: 2 * (PAGE + 1) + 10,
});

const readerServices = new WeakMap<SqlPool, Services['api']>();

/** The /v1 readers on `pool`, composed as the server composes them; statements read as of 2026-12-15. */
function readersOn(pool: SqlPool, world: ReadWorld): Services['api'] {
  let api = readerServices.get(pool);
  if (!api) {
    api = testServices({ db: world.db, pool, now: () => new Date('2026-12-15T12:00:00Z') }).api;
    readerServices.set(pool, api);
  }
  return api;
}

const inquiryDesks = new WeakMap<SqlPool, InquiryDesk>();

/**
 * The inquiries desk with its statements run on `pool` (recorded, planned as the pool plans them), composed as the
 * server composes it. The desk runs its reads on the database it is given (`databaseStatements`): here a database
 * whose raw queries are the pool's.
 */
function inquiryDeskOn(pool: SqlPool): InquiryDesk {
  let desk = inquiryDesks.get(pool);
  if (!desk) {
    const database = {
      $queryRawUnsafe: async (text: string, ...values: unknown[]) => (await pool.query(text, values)).rows,
    };
    desk = testServices({ db: database as unknown as Database, pool }).api.inquiries;
    inquiryDesks.set(pool, desk);
  }
  return desk;
}

async function inquiriesPage(pool: SqlPool, world: ReadWorld, actor: InquiryActor) {
  return inquiryDeskOn(pool).list(world.orgId, actor, { filters: {}, limit: PAGE });
}

async function earningsPage(
  pool: SqlPool,
  world: ReadWorld,
  filters: Parameters<typeof earningListFingerprint>[1],
  cursor?: string,
) {
  return readersOn(pool, world).earningReader.listPage(viewerOf(world), {
    filters,
    limit: PAGE,
    ...(cursor ? { cursor } : {}),
  });
}

/** The payroll export: every rep's payout, so it grows with the reps, page by page (a statement per page). */
export const PAYROLL_EXPORT: ListedRead = {
  name: 'quotient periods export (the payroll export: every payout of a period)',
  run: (pool, world) => readersOn(pool, world).payoutReader.all(world.orgId, '2026-10'),
  budget: (world) => payoutBudget(world, world.reps.length),
};

/** Reps in a page of the export as bench/reads.ts times it: as many as its smallest org has. */
export const EXPORT_PAGE_REPS = 50;

/**
 * One page of the payroll export, the part of it that must stay flat: the export's statement (payoutsAfter, the one
 * `GET /v1/payouts` pages with) for EXPORT_PAGE_REPS reps. The export runs it for 500 reps a page.
 */
export const PAYROLL_EXPORT_PAGE: ListedRead = {
  name: `the payroll export's statement, a page of ${EXPORT_PAGE_REPS} reps`,
  run: (pool, world) =>
    readersOn(pool, world).payoutReader.page(viewerOf(world), '2026-10', { limit: EXPORT_PAGE_REPS }),
  budget: (world) => payoutBudget(world, EXPORT_PAGE_REPS),
};

export const LISTED_READS: ListedRead[] = [
  {
    name: 'GET /v1/earnings (first page)',
    run: (pool, world) => earningsPage(pool, world, {}),
    budget: () => listBudget(),
  },
  {
    name: 'GET /v1/earnings (a deep cursor page, 90% of the way)',
    run: async (pool, world, { setup }) => {
      const cursor = await once(world, 'deep earnings cursor', async () => {
        const { rows } = await setup.query(
          `SELECT created_at AS at, id FROM earnings WHERE org_id = $1 ORDER BY created_at, id OFFSET $2 LIMIT 1`,
          [world.orgId, Math.floor(world.orgRows * 0.9)],
        );
        return EARNING_CURSOR.encode(rows[0], earningListFingerprint(world.orgId, {}));
      });
      return earningsPage(pool, world, {}, cursor);
    },
    budget: () => listBudget(),
  },
  {
    name: 'GET /v1/earnings?user_id=',
    run: (pool, world) => earningsPage(pool, world, { userId: middleRep(world).id }),
    budget: () => listBudget(),
  },
  {
    name: 'GET /v1/earnings?user_external_id=',
    run: (pool, world) => earningsPage(pool, world, { userExternalId: middleRep(world).external_id }),
    budget: () => ({ ...listBudget(), users: PAGE + 3 }),
  },
  {
    name: 'GET /v1/earnings?period_id=',
    run: (pool, world) => earningsPage(pool, world, { periodId: '2026-06' }),
    budget: () => listBudget(),
  },
  {
    name: 'GET /v1/earnings?user_id=&period_id=',
    run: (pool, world) => earningsPage(pool, world, { userId: middleRep(world).id, periodId: '2026-06' }),
    budget: () => listBudget(),
  },
  {
    name: 'GET /v1/earnings?deal_id=',
    run: (pool, world) => earningsPage(pool, world, { dealId: world.dealId }),
    budget: () => listBudget(),
  },
  {
    name: 'GET /v1/earnings?status=approved',
    run: (pool, world) => earningsPage(pool, world, { statuses: ['approved'] }),
    budget: () => listBudget(),
  },
  {
    name: 'GET /v1/earnings?status=pending&status=approved',
    run: (pool, world) => earningsPage(pool, world, { statuses: ['pending', 'approved'] }),
    budget: () => listBudget(2),
  },
  {
    name: 'GET /v1/earnings?plan_id=',
    run: (pool, world) => earningsPage(pool, world, { planId: world.planId }),
    budget: () => listBudget(),
  },
  {
    name: 'GET /v1/earnings?created_since=',
    run: (pool, world) => earningsPage(pool, world, { createdSince: new Date('2026-11-01T00:00:00Z') }),
    budget: () => listBudget(),
  },
  {
    name: 'GET /v1/earnings with a rep token (a manager and three reports)',
    run: (pool, world) =>
      readersOn(pool, world).earningReader.listPage(managerViewerOf(world), { filters: {}, limit: PAGE }),
    budget: () => listBudget(4),
  },
  {
    name: 'GET /v1/earnings/{id} (the row and its trace)',
    run: async (pool, world) => {
      return readersOn(pool, world).earningReader.find(viewerOf(world), world.earningId);
    },
    // The row, and for its stored trace's cause the domain event's deal (its external id), by primary key.
    budget: () => ({ earnings: 1, users: 1, deals: 1, adjustments: 0 }),
  },
  {
    name: 'GET /v1/users/{id}/statements/{period_id}',
    run: async (pool, world) => {
      return readersOn(pool, world).statementReader.statement(viewerOf(world), middleRep(world).id, '2026-06');
    },
    // The rep's rows of the period (standing and superseded), its deals of the period, its adjustments. Not flat
    // yet: the attainment credits (adjustments.attainmentCreditsOfReps) read the rep's adjustments of every period,
    // each probed for a void (the seed has up to 2 a month).
    budget: (world) => ({
      earnings: 2 * world.size.dealsPerRepMonth + 10,
      deals: world.size.dealsPerRepMonth + 5,
      users: 1,
      adjustments: 2 * 2 * 12 + 5,
    }),
  },
  {
    name: 'GET /v1/payouts (first page of 10 reps)',
    run: (pool, world) => readersOn(pool, world).payoutReader.page(viewerOf(world), '2026-10', { limit: 10 }),
    budget: (world) => payoutBudget(world, 10),
  },
  {
    name: 'GET /v1/payouts (the last page)',
    run: async (pool, world, { setup }) => {
      const cursor = await once(world, 'last payouts cursor', async () => {
        const rep = world.reps[Math.max(0, world.reps.length - 6)] as { id: string };
        const { rows } = await setup.query('SELECT created_at FROM users WHERE id = $1', [rep.id]);
        return PAYOUT_CURSOR.encode(
          { at: rows[0].created_at, id: rep.id },
          keysetFingerprint(world.orgId, { payouts_of: '2026-10' }),
        );
      });
      return readersOn(pool, world).payoutReader.page(viewerOf(world), '2026-10', { limit: 10, cursor });
    },
    budget: (world) => payoutBudget(world, 10),
  },
  {
    // The admin's list (GET /admin/v1/adjustments, the CLI's) runs the same statement: adjustmentPage.
    name: 'GET /v1/adjustments (first page)',
    run: (pool, world) =>
      readersOn(pool, world).adjustmentReader.listPage(viewerOf(world), { filters: {}, limit: PAGE }),
    budget: () => rowsListBudget('adjustments'),
  },
  {
    name: 'GET /v1/adjustments?user_external_id=',
    run: (pool, world) =>
      readersOn(pool, world).adjustmentReader.listPage(viewerOf(world), {
        filters: { userExternalId: middleRep(world).external_id },
        limit: PAGE,
      }),
    budget: () => ({ ...rowsListBudget('adjustments'), users: PAGE + 3 }),
  },
  {
    // The rep portal's list (a rep token): the rep's and their reports' adjustments, not the org's filtered.
    name: 'GET /v1/adjustments with a rep token (a manager and three reports)',
    run: (pool, world) =>
      readersOn(pool, world).adjustmentReader.listPage(managerViewerOf(world), { filters: {}, limit: PAGE }),
    budget: () => rowsListBudget('adjustments'),
  },
  {
    name: 'GET /v1/inquiries (an API key: newest first)',
    run: (pool, world) =>
      inquiriesPage(pool, world, { kind: 'api_key', keyId: 'key_read_plans', keyName: 'read plans' }),
    budget: () => rowsListBudget('inquiries'),
  },
  {
    name: "GET /admin/v1/inquiries (the admins' queue: oldest first)",
    run: (pool, world) => inquiriesPage(pool, world, { kind: 'admin', admin: { kind: 'cli' } }),
    budget: () => rowsListBudget('inquiries'),
  },
  PAYROLL_EXPORT,
];

/**
 * A page of `reps` payouts: the reps (and the one after), each probed once for a row (the first of its rows in the
 * period's index range, and the row that one superseded) and an adjustment, then each one's rows of the period (the
 * standing and the superseded) and adjustments summed. Less than the period's approved rows of an org several times
 * the page, which a hashed probe would read.
 */
function payoutBudget(world: ReadWorld, reps: number) {
  const rowsPerRep = 2 * world.size.dealsPerRepMonth;
  return { users: reps + 2, earnings: (reps + 1) * (rowsPerRep + 4) + 10, adjustments: 3 * (reps + 1) + 5, deals: 0 };
}
