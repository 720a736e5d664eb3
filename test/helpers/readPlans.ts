import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg, { escapeLiteral } from 'pg';
import type { Services } from '../../src/composition.ts';
import type { Database } from '../../src/db/prisma.ts';
import { keysetFingerprint } from '../../src/domain/lists/keysetCursor.ts';
import { orgViewer, type Viewer } from '../../src/domain/viewer.ts';
import * as orgs from '../../src/repositories/orgs.ts';
import { databaseStatements, type SqlPool, type Statement } from '../../src/repositories/transaction.ts';
import { EARNING_CURSOR, earningListFingerprint } from '../../src/services/earnings/reader.ts';
import type { InquiryActor, InquiryDesk } from '../../src/services/inquiries.ts';
import { PAYOUT_CURSOR } from '../../src/services/payouts.ts';
import { loadWithIndexesBuiltAfter } from './bulkLoad.ts';
import { ingestRequest } from './ingestRequests.ts';
import { noPlanChanges } from './listeners.ts';
import { testServices } from './services.ts';

// The reads that must stay flat as the tables grow (issue 31; docs/query-plans.md): each one run through
// Quotient's own readers on a seeded org, every SQL statement it sends recorded, and each recorded statement
// explained as the pool's connections run it (PostgreSQL's default plan cache: see explainAsPlanned) with EXPLAIN
// (ANALYZE, BUFFERS). Used by test/integration/read-plans.test.ts (which fails when a read loses its
// index or reads more rows than its budget) and by scripts/query-plans.ts (which writes docs/query-plans.md).

/** The org-scoped tables whose rows grow with the data: a plan must read them through an index, within budget. */
export const GROWING_TABLES = ['earnings', 'deals', 'users', 'adjustments', 'inquiries'] as const;
export type GrowingTable = (typeof GROWING_TABLES)[number];

const MONTHS = Array.from({ length: 12 }, (_, index) => `2026-${String(index + 1).padStart(2, '0')}`);
/** Paid months, locked months, and the open month, as a year of payroll leaves them. */
const PERIOD_STATUS = (month: number) => (month <= 9 ? 'paid' : month <= 11 ? 'locked' : 'open');

export interface SeedSize {
  reps: number;
  /** Won deals per rep and month; each has a standing row and the row it superseded. */
  dealsPerRepMonth: number;
  /** Reps with nothing at all (after the others): an org's users table is larger than its paid reps. */
  idleReps?: number;
}

export interface ReadWorld {
  /** The database the org was seeded through: the readers are composed on it (and on the pool they are given). */
  db: Database;
  orgId: string;
  size: SeedSize;
  reps: Array<{ id: string; external_id: string }>;
  planId: string;
  /** A deal of the middle of the year, and a row of it. */
  dealId: string;
  earningId: string;
  /** Rows of the org, and of the database. */
  orgRows: number;
  totalRows: number;
}

export interface SeedOptions {
  /**
   * Load the bulk with the growing tables' indexes and foreign keys dropped, and build them after
   * (loadWithIndexesBuiltAfter), then vacuum: for a database of the caller's own, such as a benchmark's.
   */
  indexesBuiltAfter?: boolean;
  /** Told how long each step of the bulk took. */
  log?: (message: string) => void;
}

/**
 * An org with the four-chip example plan, a year of periods (nine paid, two locked, one open), `size.reps` reps
 * each with `size.dealsPerRepMonth` won deals a month, every deal with a standing row and the row it superseded,
 * a manual adjustment for every rep in each period (and a second for every third rep in the locked ones), and an
 * inquiry of every rep about each month's statement (every other one assigned to the org's admin). Two deals go
 * through the pipeline, whose
 * rows (and their traces) are the templates of the rest; the bulk is written with SQL, as reads do not care how
 * rows came to be (bench/reads.ts seeds through the pipeline).
 */
export async function seedReadWorld(
  db: Database,
  pool: SqlPool,
  services: Services,
  size: SeedSize,
  name: string,
  options: SeedOptions = {},
): Promise<ReadWorld> {
  const log = options.log ?? (() => {});
  const org = await orgs.create(databaseStatements(db), name);
  const plan = readFileSync(new URL('../../examples/plans/core-ae.yaml', import.meta.url), 'utf8');
  const applied = await services.admin.planAdmin.apply({ orgId: org.id, text: plan }, noPlanChanges);
  for (const [n, amount] of [
    [1, 5_000_000],
    [2, 8_000_000],
  ] as const) {
    await services.api.ingestion.ingest(
      ingestRequest(org.id, {
        external_id: `template-${n}`,
        event_type: 'upsert',
        state: {
          amount_cents: amount,
          stage: 'closed_won',
          close_date: '2026-01-15',
          owner_external_id: 'template-rep',
          custom: { region: 'EMEA', new_logo: true },
        },
      }),
    );
  }
  const sql = (text: string, values: unknown[] = []) => pool.query(text, values);
  // The template: a standing commission row a deal of the pipeline wrote.
  const [template] = (
    await sql(
      `SELECT plan_id, plan_version_id, rule_chip_id, rule_version, currency, trace FROM earnings
       WHERE org_id = $1 AND deal_id IS NOT NULL AND trace -> 'chip' ->> 'kind' = 'commission'
         AND status NOT IN ('superseded', 'reversed') LIMIT 1`,
      [org.id],
    )
  ).rows;
  if (!template) throw new Error('the pipeline wrote no commission row to copy');
  await sql(
    `INSERT INTO periods (org_id, id, kind, starts_on, ends_on, status, locked_at, paid_at)
     SELECT $1, to_char(m, 'YYYY-MM'), 'monthly', m::date, (m + interval '1 month' - interval '1 day')::date,
            s.status, CASE WHEN s.status <> 'open' THEN m + interval '1 month' END,
            CASE WHEN s.status = 'paid' THEN m + interval '40 days' END
     FROM generate_series(1, 12) AS n
     CROSS JOIN LATERAL (SELECT make_timestamptz(2026, n, 1, 0, 0, 0, 'UTC') AS m) AS at
     CROSS JOIN LATERAL (SELECT (ARRAY[${MONTHS.map((_, i) => `'${PERIOD_STATUS(i + 1)}'`).join(',')}])[n] AS status) AS s
     ON CONFLICT (org_id, id) DO UPDATE SET status = EXCLUDED.status, locked_at = EXCLUDED.locked_at,
       paid_at = EXCLUDED.paid_at`,
    [org.id],
  );
  const bulk = async () => {
    await sql(
      `INSERT INTO users (id, org_id, external_id, role, created_at)
       SELECT 'user_0' || substr(md5($1 || '/rep/' || r), 1, 25), $1, 'rep-' || lpad(r::text, 5, '0'), 'rep',
              timestamptz '2025-12-01 00:00:00+00' + r * interval '1 second'
       FROM generate_series(1, $2::int) AS r`,
      [org.id, size.reps],
    );
    await sql(
      `INSERT INTO users (id, org_id, external_id, role, created_at)
       SELECT 'user_0' || substr(md5($1 || '/idle/' || r), 1, 25), $1, 'idle-' || lpad(r::text, 5, '0'), 'rep',
              timestamptz '2025-12-02 00:00:00+00' + r * interval '1 second'
       FROM generate_series(1, $2::int) AS r`,
      [org.id, size.idleReps ?? 0],
    );
    await sql(
      `INSERT INTO deals (id, org_id, external_id, amount_cents, stage, close_date, owner_external_id, custom, currency,
                          status, user_id, version, won_at, created_at, updated_at)
       SELECT 'deal_0' || substr(md5(u.id || '/' || m || '/' || k), 1, 25), $1, u.external_id || '-' || m || '-' || k,
              100000 + k * 1000, 'closed_won', make_date(2026, m, 1 + (k % 28)), u.external_id,
              '{"region": "EMEA"}', 'USD', 'won', u.id, 1, at, at, at
       FROM users u CROSS JOIN generate_series(1, 12) AS m CROSS JOIN generate_series(1, $2::int) AS k
       CROSS JOIN LATERAL (SELECT make_timestamptz(2026, m, 1 + (k % 28), 12, 0, 0, 'UTC')
                                  + (substr(u.external_id, 5)::int) * interval '1 second' AS at) AS t
       WHERE u.org_id = $1 AND u.external_id LIKE 'rep-%'`,
      [org.id, size.dealsPerRepMonth],
    );
    // Each deal: the row of its first evaluation, superseded a minute later by the row that stands, whose status is
    // its period's (paid, approved once locked, pending while open).
    for (const version of ['first', 'standing'] as const) {
      await sql(
        `INSERT INTO earnings (id, org_id, line_key, user_id, period_id, deal_id, plan_id, plan_version_id, rule_chip_id,
                               rule_version, amount_cents, currency, pricing, status, supersedes_id, trace, created_at,
                               status_changed_at)
         SELECT 'earn_0' || substr(md5(d.id || '/' || $2), 1, 25), $1, 'seed/' || d.id, d.user_id, p.id, d.id,
                $3, $4, $5, $6, d.amount_cents / 10, $7, 'priced',
                CASE WHEN $2 = 'first' THEN 'superseded'
                     ELSE CASE p.status WHEN 'paid' THEN 'paid' WHEN 'locked' THEN 'approved' ELSE 'pending' END END,
                CASE WHEN $2 = 'first' THEN NULL ELSE 'earn_0' || substr(md5(d.id || '/first'), 1, 25) END,
                $8::jsonb, d.created_at + CASE WHEN $2 = 'first' THEN interval '0' ELSE interval '1 minute' END,
                d.created_at + interval '1 minute'
         FROM deals d JOIN periods p ON p.org_id = d.org_id AND p.id = to_char(d.close_date, 'YYYY-MM')
         WHERE d.org_id = $1 AND d.external_id LIKE 'rep-%'`,
        [
          org.id,
          version,
          template.plan_id,
          template.plan_version_id,
          template.rule_chip_id,
          template.rule_version,
          template.currency,
          JSON.stringify(template.trace),
        ],
      );
    }
    // A manual adjustment for every rep in every period, and a second one for every third rep in the locked ones.
    await sql(
      `INSERT INTO adjustments (id, org_id, user_id, period_id, amount_cents, currency, category, reason,
                                created_by_type, created_by, created_at)
       SELECT 'adj_0' || substr(md5(u.id || '/' || p.id || '/' || n), 1, 25), $1, u.id, p.id, 25000, 'USD',
              'one_off_bonus', 'seeded', 'cli', 'cli', p.starts_on + interval '20 days' + n * interval '1 second'
       FROM users u JOIN periods p ON p.org_id = u.org_id CROSS JOIN generate_series(1, 2) AS n
       WHERE u.org_id = $1 AND u.external_id LIKE 'rep-%'
         AND (n = 1 OR (p.status = 'locked' AND substr(u.external_id, 5)::int % 3 = 0))`,
      [org.id],
    );
    // An inquiry of every rep about each month's statement, the older ones resolved; every other one is assigned to
    // the org's admin (the lists name each one's rep and assignee).
    await sql(
      `WITH admin AS (
         INSERT INTO admins (id, org_id, email, display_name, role, password_hash)
         VALUES ('adm_0' || substr(md5($1 || '/admin'), 1, 25), $1, 'reads-' || $1 || '@example.test', 'Reads', 'admin',
                 'not a hash')
         RETURNING id)
       INSERT INTO inquiries (id, org_id, user_id, subject_kind, period_id, type, message, state, assignee_admin_id,
                              opened_by_kind, opened_by_id, opened_by_label, created_at, updated_at)
       SELECT 'inq_0' || substr(md5(u.id || '/' || p.id), 1, 25), $1, u.id, 'statement', p.id, 'other', 'seeded',
              CASE WHEN p.status = 'open' THEN 'open' ELSE 'resolved' END,
              CASE WHEN substr(u.external_id, 5)::int % 2 = 0 THEN admin.id END, 'rep', u.id, u.external_id, at, at
       FROM users u JOIN periods p ON p.org_id = u.org_id CROSS JOIN admin
       CROSS JOIN LATERAL (SELECT p.starts_on + interval '25 days'
                                  + substr(u.external_id, 5)::int * interval '1 second' AS at) AS t
       WHERE u.org_id = $1 AND u.external_id LIKE 'rep-%'`,
      [org.id],
    );
  };
  const from = performance.now();
  if (options.indexesBuiltAfter) await loadWithIndexesBuiltAfter(sql, GROWING_TABLES, bulk, { log, concurrency: 2 });
  else await bulk();
  log(`bulk of ${size.reps} reps loaded in ${((performance.now() - from) / 1000).toFixed(0)} s`);
  // Vacuumed as autovacuum would leave a loaded table (its visibility map set), so that none runs during the reads.
  await sql(
    `${options.indexesBuiltAfter ? 'VACUUM (ANALYZE)' : 'ANALYZE'} earnings, deals, users, adjustments, inquiries, periods`,
  );
  log(
    `${options.indexesBuiltAfter ? 'vacuumed and analysed' : 'analysed'} at ${((performance.now() - from) / 1000).toFixed(0)} s`,
  );
  const reps = (
    await sql(
      `SELECT id, external_id FROM users WHERE org_id = $1 AND external_id LIKE 'rep-%' ORDER BY created_at, id`,
      [org.id],
    )
  ).rows as Array<{ id: string; external_id: string }>;
  const middle = reps[Math.floor(reps.length / 2)] as { id: string };
  const [deal] = (
    await sql(
      `SELECT d.id AS deal_id, e.id AS earning_id FROM deals d JOIN earnings e ON e.org_id = d.org_id AND e.deal_id = d.id
       WHERE d.org_id = $1 AND d.user_id = $2 AND d.close_date >= '2026-06-01' AND e.status <> 'superseded'
       ORDER BY d.close_date LIMIT 1`,
      [org.id, middle.id],
    )
  ).rows as Array<{ deal_id: string; earning_id: string }>;
  const [counts] = (
    await sql(
      `SELECT count(*) FILTER (WHERE org_id = $1)::int AS org_rows, count(*)::int AS total_rows FROM earnings`,
      [org.id],
    )
  ).rows as Array<{ org_rows: number; total_rows: number }>;
  if (!deal || !counts) throw new Error('the seeded org has no deal in June');
  return {
    db,
    orgId: org.id,
    size,
    reps,
    planId: applied.plan_id,
    dealId: deal.deal_id,
    earningId: deal.earning_id,
    orgRows: counts.org_rows,
    totalRows: counts.total_rows,
  };
}

export interface SmallTenants {
  orgs: number;
  repsPerOrg: number;
  /** Rows of each rep, all in one period. */
  rowsPerRep: number;
}

/**
 * Many small orgs, each with a few reps with a few earnings rows, as a shared installation (or the shared test
 * database) holds beside a large org: the statistics a generic plan sees are theirs. Written with SQL: only their
 * numbers matter, no read looks at these rows. Not analysed here: the caller analyses once everything is seeded.
 */
export async function seedSmallTenants(pool: SqlPool, tenants: SmallTenants, name: string): Promise<void> {
  const sql = (text: string, values: unknown[]) => pool.query(text, values);
  const key = `${name}/${randomUUID()}`;
  await sql(
    `INSERT INTO orgs (id, name)
     SELECT 'org_0' || substr(md5($1 || '/org/' || o), 1, 25), $2 || ' ' || o FROM generate_series(1, $3::int) AS o`,
    [key, name, tenants.orgs],
  );
  await sql(
    `INSERT INTO users (id, org_id, external_id, role)
     SELECT 'user_0' || substr(md5($1 || '/rep/' || o || '/' || r), 1, 25), 'org_0' || substr(md5($1 || '/org/' || o), 1, 25),
            'rep-' || r, 'rep'
     FROM generate_series(1, $2::int) AS o CROSS JOIN generate_series(1, $3::int) AS r`,
    [key, tenants.orgs, tenants.repsPerOrg],
  );
  await sql(
    `INSERT INTO earnings (id, org_id, line_key, user_id, period_id, plan_id, plan_version_id, rule_chip_id,
                           rule_version, amount_cents, status, trace)
     SELECT 'earn_0' || substr(md5($1 || '/row/' || o || '/' || r || '/' || k), 1, 25),
            'org_0' || substr(md5($1 || '/org/' || o), 1, 25), 'small/' || r || '/' || k,
            'user_0' || substr(md5($1 || '/rep/' || o || '/' || r), 1, 25), '2026-06', 'plan_small', 'planv_small',
            'chip_small', '1', 10000, 'pending', '{}'
     FROM generate_series(1, $2::int) AS o CROSS JOIN generate_series(1, $3::int) AS r
     CROSS JOIN generate_series(1, $4::int) AS k`,
    [key, tenants.orgs, tenants.repsPerOrg, tenants.rowsPerRep],
  );
}

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
    budget: () => ({ earnings: 1, users: 1, deals: 0, adjustments: 0 }),
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

/** A pool whose statements are recorded, then run on `pool`. */
export function recordingPool(pool: SqlPool, recorded: Statement[]): SqlPool {
  return {
    query: (statement: string | Statement, values?: unknown[]) => {
      const recordedStatement = typeof statement === 'string' ? { text: statement, values: values ?? [] } : statement;
      recorded.push({ text: recordedStatement.text, values: recordedStatement.values ?? [] });
      return typeof statement === 'string' ? pool.query(statement, values) : pool.query(statement);
    },
  } as unknown as SqlPool;
}

/** A parameter value as an SQL literal, as node-postgres would send it. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Date) return escapeLiteral(value.toISOString());
  if (Array.isArray(value)) {
    const items = value.map((item) =>
      item === null ? 'NULL' : `"${String(item).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
    );
    return escapeLiteral(`{${items.join(',')}}`);
  }
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'object') return escapeLiteral(JSON.stringify(value));
  return escapeLiteral(String(value));
}

export interface ScanSummary {
  table: string;
  node: string;
  index: string | null;
  rowsRead: number;
  /** The scan's index condition, filter and recheck, as EXPLAIN prints them. */
  conditions: string;
}

export interface ExplainedStatement {
  text: string;
  plan: PlanNode;
  textPlan: string;
  scans: ScanSummary[];
  rowsRead: Partial<Record<GrowingTable, number>>;
  executionMs: number;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

function scansOf(node: PlanNode, into: ScanSummary[] = []): ScanSummary[] {
  const table = node['Relation Name'];
  if (table !== undefined) {
    const loops = node['Actual Loops'] ?? 1;
    const perLoop =
      (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
    const conditions = [node['Index Cond'], node['Recheck Cond'], node.Filter].filter(Boolean).join(' AND ');
    into.push({
      table,
      node: node['Node Type'],
      index: node['Index Name'] ?? null,
      rowsRead: perLoop * loops,
      conditions,
    });
  }
  if (node['Node Type'] === 'Bitmap Heap Scan') {
    // The index of a bitmap scan is named on its child.
    const child = node.Plans?.find((plan) => plan['Index Name']);
    const last = into.at(-1);
    if (last && child) last.index = child['Index Name'] ?? null;
  }
  for (const child of node.Plans ?? []) scansOf(child, into);
  return into;
}

/**
 * Each statement explained as the pool's connections plan it, executed (ANALYZE, BUFFERS), under PostgreSQL's default
 * plan cache (and `settings`, each `name=value`): a named statement is prepared and executed with its recorded values
 * as often as the plan cache takes custom plans before it may settle on a generic one, and explained on the next
 * execution, which runs the plan the pool's connections keep; an unnamed one is explained as it is sent, planned for
 * its values.
 */
/** PostgreSQL's plan cache makes this many custom plans of a prepared statement before it weighs a generic one. */
const CUSTOM_PLANS_BEFORE_GENERIC = 5;

export async function explainAsPlanned(
  url: string,
  statements: readonly Statement[],
  settings: readonly string[] = [],
): Promise<ExplainedStatement[]> {
  const options = settings.map((setting) => `-c ${setting}`).join(' ');
  const client = new pg.Client({ connectionString: url, ...(options ? { options } : {}) });
  await client.connect();
  try {
    const explained: ExplainedStatement[] = [];
    for (const statement of statements) {
      // The feed horizon reads only its writer slots (32 rows per org), no growing table.
      if (!/\b(earnings|deals|users|adjustments|inquiries|periods)\b/.test(statement.text)) continue;
      await client.query(`PREPARE read_plan AS ${statement.text}`);
      try {
        const args = statement.values.length ? `(${statement.values.map(literal).join(', ')})` : '';
        if (statement.name !== undefined) {
          for (let run = 0; run < CUSTOM_PLANS_BEFORE_GENERIC; run++) await client.query(`EXECUTE read_plan${args}`);
        }
        const json = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE read_plan${args}`);
        const text = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) EXECUTE read_plan${args}`);
        const [document] = json.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode; 'Execution Time': number }>;
        if (!document) throw new Error('EXPLAIN returned no plan');
        const scans = scansOf(document.Plan);
        const rowsRead: Partial<Record<GrowingTable, number>> = {};
        for (const scan of scans) {
          if ((GROWING_TABLES as readonly string[]).includes(scan.table)) {
            const table = scan.table as GrowingTable;
            rowsRead[table] = (rowsRead[table] ?? 0) + scan.rowsRead;
          }
        }
        explained.push({
          text: statement.text.replace(/\s+/g, ' ').trim(),
          plan: document.Plan,
          textPlan: text.rows.map((row) => row['QUERY PLAN']).join('\n'),
          scans,
          rowsRead,
          executionMs: document['Execution Time'],
        });
      } finally {
        await client.query('DEALLOCATE read_plan');
      }
    }
    return explained;
  } finally {
    await client.end();
  }
}

/** Tables that are not one org's: the org itself. */
const GLOBAL_TABLES = new Set(['orgs']);

/**
 * Whether a scan is bound to one org: its conditions name `org_id`, or it is a lookup by primary key (`id`), which
 * the listed reads make only from a row already bound to the org (a row's rep, an adjustment's void). Such lookups
 * become `(org_id, id)` once the tables' keys lead with org_id (docs/scaling.md, known gaps).
 */
function boundToOneOrg(scan: ScanSummary): boolean {
  return /\borg_id = /.test(scan.conditions) || (scan.index?.endsWith('_pkey') ?? false);
}

/**
 * What is wrong with a read's statements: a growing table scanned whole, more rows read than the budget, or an
 * org-scoped table read without naming the org (what Citus would have to ask every node: docs/scaling.md).
 */
export function budgetBreaches(
  read: ListedRead,
  world: ReadWorld,
  statements: readonly ExplainedStatement[],
): string[] {
  const budget = read.budget(world);
  const breaches: string[] = [];
  for (const statement of statements) {
    for (const scan of statement.scans) {
      if (scan.node === 'Seq Scan' && (GROWING_TABLES as readonly string[]).includes(scan.table)) {
        breaches.push(`${read.name}: a sequential scan of ${scan.table} in: ${statement.text.slice(0, 160)}`);
      }
    }
    for (const scan of statement.scans) {
      if (!GLOBAL_TABLES.has(scan.table) && !boundToOneOrg(scan)) {
        breaches.push(
          `${read.name}: ${scan.table} read without its org (${scan.node}${scan.index ? ` using ${scan.index}` : ''}: ${scan.conditions || 'no condition'}) in: ${statement.text.slice(0, 160)}`,
        );
      }
    }
    for (const table of GROWING_TABLES) {
      const read_ = statement.rowsRead[table] ?? 0;
      const most = budget[table] ?? 0;
      if (read_ > most) {
        breaches.push(
          `${read.name}: ${read_} rows of ${table} read, budget ${most}, in: ${statement.text.slice(0, 160)}\n${statement.textPlan}`,
        );
      }
    }
  }
  return breaches;
}
