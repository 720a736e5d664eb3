import { named, sql, type Transaction } from './transaction.ts';

// The rep hierarchy of manager overrides: one row per rep and day from which a manager (or nobody)
// applies. Read by deal events and recomputes (which run on either driver's transaction), written by the
// hierarchy admin: plain SQL, like the other repositories the earnings engine reads.

/** The advisory-lock class of hierarchy changes ("mgrs"); the key is hashtext(org_id). */
const HIERARCHY_LOCK_CLASS = 0x6d677273;

export interface ManagerEntryRecord {
  rep_user_id: string;
  rep_external_id: string;
  manager_user_id: string | null;
  manager_external_id: string | null;
  /** YYYY-MM-DD. */
  from: string;
  created_at: Date;
  updated_at: Date;
}

const ENTRY_COLUMNS = `
  m.rep_user_id, r.external_id AS rep_external_id, m.manager_user_id, mu.external_id AS manager_external_id,
  m.effective_from::text AS "from", m.created_at, m.updated_at`;

/** Every entry of the org, by rep and day. */
export async function entriesOfOrg(tx: Transaction, orgId: string): Promise<ManagerEntryRecord[]> {
  return tx.query<ManagerEntryRecord>(
    named('rep_managers_of_org', {
      text: `SELECT ${ENTRY_COLUMNS}
             FROM rep_managers m
             JOIN users r ON r.org_id = m.org_id AND r.id = m.rep_user_id
             LEFT JOIN users mu ON mu.org_id = m.org_id AND mu.id = m.manager_user_id
             WHERE m.org_id = $1
             ORDER BY r.external_id, m.effective_from`,
      values: [orgId],
    }),
  );
}

/**
 * From `from` on, the rep's manager is `managerUserId` (null: nobody). An entry of the same rep and day is
 * replaced; entries of other days stay.
 */
export async function setFrom(
  tx: Transaction,
  orgId: string,
  entry: { id: string; repUserId: string; managerUserId: string | null; from: string },
): Promise<void> {
  await tx.query(
    sql`INSERT INTO rep_managers (id, org_id, rep_user_id, manager_user_id, effective_from, updated_at)
        VALUES (${entry.id}, ${orgId}, ${entry.repUserId}, ${entry.managerUserId}, ${entry.from}::date, now())
        ON CONFLICT (org_id, rep_user_id, effective_from)
        DO UPDATE SET manager_user_id = EXCLUDED.manager_user_id, updated_at = EXCLUDED.updated_at`,
  );
}

/** Makes every other hierarchy change of the org wait until this transaction ends (a cycle check reads it all). */
export async function lockHierarchy(tx: Transaction, orgId: string): Promise<void> {
  await tx.query(sql`SELECT pg_advisory_xact_lock(${HIERARCHY_LOCK_CLASS}::int, hashtext(${orgId}))::text AS locked`);
}
