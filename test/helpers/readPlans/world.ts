import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Services } from '../../../src/composition.ts';
import type { Database } from '../../../src/db/prisma.ts';
import * as orgs from '../../../src/repositories/orgs.ts';
import { databaseStatements, type SqlPool } from '../../../src/repositories/transaction.ts';
import { loadWithIndexesBuiltAfter } from '../bulkLoad.ts';
import { ingestRequest } from '../ingestRequests.ts';
import { noPlanChanges } from '../listeners.ts';

// The seeded worlds of the read-plan checks: one large org at a size, and many small tenants beside it.

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
  const plan = readFileSync(new URL('../../../examples/plans/core-ae.yaml', import.meta.url), 'utf8');
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
