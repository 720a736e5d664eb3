import type { RepLeaving } from '../domain/earnings/leavers.ts';
import type { QuotaEntry, RepQuotas } from '../domain/earnings/quotas.ts';
import { named, sql, statementParameters, type Transaction } from './transaction.ts';

// Reps' quota tables (rep_quotas) and start dates (users.start_date), docs/quotas.md: one row per rep, plan and day
// from which a quota (or the plan's own, null) applies. Read by deal events, recomputes and statements (either
// driver's transaction), written by the quota admin: plain SQL, like the other repositories the engine reads.

/** The advisory-lock class of quota changes ("qtas"); the key is hashtext(org_id). */
const QUOTA_LOCK_CLASS = 0x71746173;

export interface QuotaRecord {
  user_id: string;
  rep_external_id: string;
  plan_id: string;
  plan_key: string;
  /** ISO 4217: the plan's currency (its current version's, else the org's default), which `quota_cents` is in. */
  currency: string;
  /** YYYY-MM-DD. */
  from: string;
  quota_cents: number | null;
  created_at: Date;
  updated_at: Date;
}

/** A rep's quota tables by plan id, and its start date. */
export interface RepQuotaBook {
  start_date: string | null;
  /** The rep's leaving date and the last day of the latest period paid when they were deactivated (leavers.ts). */
  leaving?: RepLeaving | null;
  by_plan: ReadonlyMap<string, QuotaEntry[]>;
}

const NO_BOOK: RepQuotaBook = { start_date: null, by_plan: new Map() };

/** What the engine reads of a rep's book for one plan. */
export function quotasUnder(book: RepQuotaBook | undefined, planId: string): RepQuotas {
  const found = book ?? NO_BOOK;
  const entries = found.by_plan.get(planId) ?? [];
  return found.leaving
    ? { start_date: found.start_date, entries, leaving: found.leaving }
    : { start_date: found.start_date, entries };
}

/**
 * The books of the reps (user ids), in one round trip; a rep without entries or start date has none. One rep (a
 * statement's, a recompute's) is looked up by its whole key: planned without its values, `id = ANY($2)` on the key's
 * second column can be left to a filter over every rep of the org (the planner counts each element of the array as a
 * descent of the index, and a small tenant's reps as fewer rows than that).
 */
export async function booksOfReps(
  tx: Transaction,
  orgId: string,
  userIds: readonly string[],
): Promise<Map<string, RepQuotaBook>> {
  const books = new Map<string, RepQuotaBook>();
  if (userIds.length === 0) return books;
  const [only] = userIds;
  const oneRep = userIds.length === 1 && only !== undefined;
  const rows = await tx.query<{
    user_id: string;
    start_date: string | null;
    leaving_date: string | null;
    paid_through: string | null;
    plan_id: string | null;
    from: string | null;
    quota_cents: string | number | null;
  }>(
    named(oneRep ? 'rep_quota_book' : 'rep_quota_books', {
      text: `SELECT u.id AS user_id, u.start_date::text AS start_date, u.leaving_date::text AS leaving_date,
                    CASE WHEN u.leaving_date IS NOT NULL THEN
                      (SELECT max(p.ends_on)::text FROM periods p
                       WHERE p.org_id = $1 AND p.status = 'paid' AND p.paid_at <= u.deactivated_at)
                    END AS paid_through,
                    q.plan_id, q.effective_from::text AS "from", q.quota_cents
             FROM users u
             LEFT JOIN rep_quotas q ON q.org_id = u.org_id AND q.user_id = u.id
             WHERE u.org_id = $1 AND ${oneRep ? 'u.id = $2' : 'u.id = ANY($2::text[])'}
               AND (u.start_date IS NOT NULL OR u.leaving_date IS NOT NULL OR q.user_id IS NOT NULL)
             ORDER BY u.id, q.plan_id, q.effective_from`,
      values: [orgId, oneRep ? only : [...userIds]],
    }),
  );
  for (const row of rows) {
    const leaving = row.leaving_date === null ? null : { date: row.leaving_date, paid_through: row.paid_through };
    const book = books.get(row.user_id) ?? {
      start_date: row.start_date,
      leaving,
      by_plan: new Map<string, QuotaEntry[]>(),
    };
    books.set(row.user_id, book);
    if (row.plan_id === null || row.from === null) continue;
    const entries = (book.by_plan as Map<string, QuotaEntry[]>).get(row.plan_id) ?? [];
    entries.push({ from: row.from, quota_cents: row.quota_cents === null ? null : Number(row.quota_cents) });
    (book.by_plan as Map<string, QuotaEntry[]>).set(row.plan_id, entries);
  }
  return books;
}

/** How many reps have a quota of their own (an entry with a figure) under the plan. */
export async function repsWithOwnQuota(tx: Transaction, orgId: string, planId: string): Promise<number> {
  const rows = await tx.query<{ reps: string | number }>(
    sql`SELECT count(DISTINCT user_id) AS reps FROM rep_quotas
        WHERE org_id = ${orgId} AND plan_id = ${planId} AND quota_cents IS NOT NULL`,
  );
  return Number(rows[0]?.reps ?? 0);
}

/** Every entry of the org (or of one rep, or one plan), by rep, plan and day. */
export async function entriesOfOrg(
  tx: Transaction,
  orgId: string,
  filter: { userId?: string; planId?: string } = {},
): Promise<QuotaRecord[]> {
  const { values, param } = statementParameters(orgId);
  const rep = filter.userId === undefined ? '' : ` AND q.user_id = ${param(filter.userId)}`;
  const plan = filter.planId === undefined ? '' : ` AND q.plan_id = ${param(filter.planId)}`;
  const rows = await tx.query<Omit<QuotaRecord, 'quota_cents'> & { quota_cents: string | number | null }>({
    text: `SELECT q.user_id, u.external_id AS rep_external_id, q.plan_id, p.key AS plan_key,
                  COALESCE(v.definition ->> 'currency', o.default_currency) AS currency,
                  q.effective_from::text AS "from", q.quota_cents, q.created_at, q.updated_at
           FROM rep_quotas q
           JOIN users u ON u.org_id = $1 AND u.id = q.user_id
           JOIN plans p ON p.org_id = $1 AND p.id = q.plan_id
           LEFT JOIN plan_versions v ON v.org_id = $1 AND v.id = p.current_version_id
           JOIN orgs o ON o.id = $1
           WHERE q.org_id = $1${rep}${plan}
           ORDER BY u.external_id, p.key, q.effective_from`,
    values,
  });
  return rows.map((row) => ({
    ...row,
    quota_cents: row.quota_cents === null ? null : Number(row.quota_cents),
  }));
}

/** From `from` on, the rep's quota under the plan is `quotaCents` (null: the plan's). Replaces that day's entry. */
export async function setFrom(
  tx: Transaction,
  orgId: string,
  entry: { userId: string; planId: string; from: string; quotaCents: number | null },
): Promise<void> {
  await tx.query(
    sql`INSERT INTO rep_quotas (org_id, user_id, plan_id, effective_from, quota_cents, updated_at)
        VALUES (${orgId}, ${entry.userId}, ${entry.planId}, ${entry.from}::date, ${entry.quotaCents}::bigint, now())
        ON CONFLICT (org_id, user_id, plan_id, effective_from)
        DO UPDATE SET quota_cents = EXCLUDED.quota_cents, updated_at = EXCLUDED.updated_at`,
  );
}

/** The reps' start dates (user id → YYYY-MM-DD or null). */
export async function startDates(
  tx: Transaction,
  orgId: string,
  userIds: readonly string[],
): Promise<Map<string, string | null>> {
  if (userIds.length === 0) return new Map();
  const rows = await tx.query<{ id: string; start_date: string | null }>(
    sql`SELECT id, start_date::text AS start_date FROM users WHERE org_id = ${orgId} AND id = ANY(${[...userIds]}::text[])`,
  );
  return new Map(rows.map((row) => [row.id, row.start_date]));
}

export async function setStartDate(
  tx: Transaction,
  orgId: string,
  userId: string,
  startDate: string | null,
): Promise<void> {
  await tx.query(sql`UPDATE users SET start_date = ${startDate}::date WHERE org_id = ${orgId} AND id = ${userId}`);
}

/** Makes every other quota change of the org wait until this transaction ends (an upload checks all its rows). */
export async function lockQuotas(tx: Transaction, orgId: string): Promise<void> {
  await tx.query(sql`SELECT pg_advisory_xact_lock(${QUOTA_LOCK_CLASS}::int, hashtext(${orgId}))::text AS locked`);
}
