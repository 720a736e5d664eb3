import type { DealChangeForBooks, LedgerRowForBooks, RecordedConversion } from '../domain/accounting/history.ts';
import type { AccountingPolicy } from '../domain/accounting/policy.ts';
import type { AccountingClose } from '../domain/accounting/schedule.ts';
import { named, type Transaction } from './transaction.ts';

// The accounting books' tables (policy versions, closed months, conversions recorded at a close) and what the
// books read of the ledger and the deals' history, always scoped by org, in plain SQL on the caller's
// `Transaction`. Instants come back as ISO text and dates as `YYYY-MM-DD`, whichever driver runs the statement.

export interface StoredPolicyVersion {
  id: string;
  number: number;
  policy: AccountingPolicy;
  digest: string;
  created_at: string;
}

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

// Serialises policy applies and closes of one org (also the very first, when there is no row to lock yet).
const BOOKS_LOCK_CLASS = 0x61636374; // "acct"

/** Holds the org's lock on its books until the transaction ends. */
export async function lockBooks(tx: Transaction, orgId: string): Promise<void> {
  await tx.query({
    text: 'SELECT 1 AS locked FROM pg_advisory_xact_lock($1::int, hashtext($2))',
    values: [BOOKS_LOCK_CLASS, orgId],
  });
}

export async function policyVersions(tx: Transaction, orgId: string): Promise<StoredPolicyVersion[]> {
  const rows = await tx.query<Omit<StoredPolicyVersion, 'policy'> & { definition: AccountingPolicy }>(
    named('accounting_policy_versions', {
      text: `SELECT id, number, definition, digest, ${ISO('created_at')} AS created_at
             FROM accounting_policy_versions WHERE org_id = $1 ORDER BY number`,
      values: [orgId],
    }),
  );
  return rows.map(({ definition, ...row }) => ({ ...row, number: Number(row.number), policy: definition }));
}

export async function insertPolicyVersion(
  tx: Transaction,
  orgId: string,
  version: { id: string; number: number; policy: AccountingPolicy; digest: string },
): Promise<StoredPolicyVersion> {
  // The times come back as timestamps and are written out here: Citus refuses a non-immutable function such as
  // to_char() in the RETURNING clause of a write to a distributed table.
  const rows = await tx.query<{ created_at: Date | string }>({
    text: `INSERT INTO accounting_policy_versions (id, org_id, number, definition, digest)
           VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING created_at`,
    values: [version.id, orgId, version.number, JSON.stringify(version.policy), version.digest],
  });
  return { ...version, created_at: rows[0] ? new Date(rows[0].created_at).toISOString() : '' };
}

export async function closes(tx: Transaction, orgId: string): Promise<AccountingClose[]> {
  return tx.query<AccountingClose>(
    named('accounting_closes', {
      text: `SELECT month, ${ISO('closed_at')} AS closed_at FROM accounting_closes WHERE org_id = $1 ORDER BY month`,
      values: [orgId],
    }),
  );
}

/** Closes the months at the transaction's time; returns that time. */
export async function insertCloses(tx: Transaction, orgId: string, months: readonly string[]): Promise<string> {
  const rows = await tx.query<{ closed_at: Date | string }>({
    text: `INSERT INTO accounting_closes (org_id, month, closed_at)
           SELECT $1, month, now() FROM unnest($2::text[]) AS month
           RETURNING closed_at`,
    values: [orgId, months],
  });
  return rows[0] ? new Date(rows[0].closed_at).toISOString() : '';
}

/** The conversions recorded when the months their rows were capitalised in closed. */
export async function recordedConversions(tx: Transaction, orgId: string): Promise<RecordedConversion[]> {
  const rows = await tx.query<RecordedConversion>(
    named('accounting_conversions', {
      text: `SELECT earning_id, book_currency, rate, inverse, to_char(rate_effective_on, 'YYYY-MM-DD') AS rate_effective_on,
                    ${ISO('rate_set_at')} AS rate_set_at, converted_minor
             FROM accounting_conversions WHERE org_id = $1`,
      values: [orgId],
    }),
  );
  return rows.map((row) => ({ ...row, converted_minor: Number(row.converted_minor) }));
}

/** Records the conversions (a row's first record stays: a conversion never changes). */
export async function insertConversions(
  tx: Transaction,
  orgId: string,
  conversions: readonly RecordedConversion[],
): Promise<void> {
  if (conversions.length === 0) return;
  await tx.query({
    text: `INSERT INTO accounting_conversions
             (org_id, earning_id, book_currency, rate, inverse, rate_effective_on, rate_set_at, converted_minor)
           SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::boolean[], $6::date[], $7::timestamptz[],
                                    $8::bigint[])
           ON CONFLICT (org_id, earning_id) DO NOTHING`,
    values: [
      orgId,
      conversions.map((conversion) => conversion.earning_id),
      conversions.map((conversion) => conversion.book_currency),
      conversions.map((conversion) => conversion.rate),
      conversions.map((conversion) => conversion.inverse),
      conversions.map((conversion) => conversion.rate_effective_on),
      conversions.map((conversion) => conversion.rate_set_at),
      conversions.map((conversion) => String(conversion.converted_minor)),
    ],
  });
}

/** Every row of the plans' lines whose period has locked: the only rows that can have been capitalised. */
export async function ledgerRowsOfPlans(
  tx: Transaction,
  orgId: string,
  planKeys: readonly string[],
): Promise<LedgerRowForBooks[]> {
  if (planKeys.length === 0) return [];
  const rows = await tx.query<LedgerRowForBooks>(
    named('accounting_ledger_rows_of_plans', {
      text: `SELECT e.id, e.line_key, u.external_id AS user_external_id, e.deal_id, d.external_id AS deal_external_id,
                    to_char(d.close_date, 'YYYY-MM-DD') AS deal_close_date, d.custom AS deal_custom,
                    p.key AS plan_key, c.key AS chip_key, e.amount_cents AS amount_minor, e.currency, e.status,
                    e.period_id, to_char(pe.ends_on, 'YYYY-MM-DD') AS period_ends_on,
                    ${ISO('pe.locked_at')} AS period_locked_at, ${ISO('e.status_changed_at')} AS status_changed_at
             FROM earnings e
             JOIN periods pe ON pe.org_id = e.org_id AND pe.id = e.period_id
             JOIN plans p ON p.org_id = e.org_id AND p.id = e.plan_id
             JOIN chips c ON c.org_id = e.org_id AND c.id = e.rule_chip_id
             JOIN users u ON u.org_id = e.org_id AND u.id = e.user_id
             LEFT JOIN deals d ON d.org_id = e.org_id AND d.id = e.deal_id
             WHERE e.org_id = $1 AND p.key = ANY($2::text[]) AND pe.locked_at IS NOT NULL
             ORDER BY e.created_at, e.id`,
      values: [orgId, planKeys],
    }),
  );
  return rows.map((row) => ({ ...row, amount_minor: Number(row.amount_minor) }));
}

/** The applied (not stale) events of these deals, oldest first, with the fields each changed. */
export async function dealChanges(
  tx: Transaction,
  orgId: string,
  dealIds: readonly string[],
): Promise<DealChangeForBooks[]> {
  if (dealIds.length === 0) return [];
  return tx.query<DealChangeForBooks>(
    named('accounting_deal_changes', {
      text: `SELECT id, deal_id, changes, ${ISO('occurred_at')} AS occurred_at, ${ISO('created_at')} AS created_at
             FROM domain_events WHERE org_id = $1 AND deal_id = ANY($2::text[]) AND NOT stale
             ORDER BY created_at, id`,
      values: [orgId, dealIds],
    }),
  );
}

export async function orgExists(tx: Transaction, orgId: string): Promise<boolean> {
  const rows = await tx.query<{ id: string }>(
    named('accounting_org_exists', { text: 'SELECT id FROM orgs WHERE id = $1', values: [orgId] }),
  );
  return rows.length > 0;
}
