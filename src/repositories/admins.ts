import { newId } from '../lib/ids.ts';
import { prismaOf, type Transaction } from './transaction.ts';

export type AdminRole = 'admin' | 'viewer';

export interface AdminRecord {
  id: string;
  org_id: string;
  email: string;
  display_name: string;
  role: AdminRole;
  created_at: Date;
  disabled_at: Date | null;
}

export const RECORD_FIELDS = {
  id: true,
  org_id: true,
  email: true,
  display_name: true,
  role: true,
  created_at: true,
  disabled_at: true,
} as const;

export function toRecord<Row extends { role: string }>(row: Row): Row & { role: AdminRole } {
  return { ...row, role: row.role as AdminRole };
}

/**
 * Null when the email is taken (by any org: an email signs in to one org). The email's row of `credential_orgs`
 * is what keeps it unique across orgs, and what finds its org at sign-in (docs/scaling.md): written first, in the
 * same statement, and the admin only when it was.
 */
export async function create(
  tx: Transaction,
  input: {
    orgId: string;
    email: string;
    displayName: string;
    role: AdminRole;
    passwordHash: string;
  },
): Promise<AdminRecord | null> {
  const rows = await prismaOf(tx).$queryRaw<Array<{ id: string }>>`
    WITH lookup AS (
      INSERT INTO credential_orgs (kind, lookup, org_id) VALUES ('admin_email', ${input.email}, ${input.orgId})
      ON CONFLICT (kind, lookup) DO NOTHING
      RETURNING org_id
    )
    INSERT INTO admins (id, org_id, email, display_name, role, password_hash)
    SELECT ${newId('adm')}, lookup.org_id, ${input.email}, ${input.displayName}, ${input.role}, ${input.passwordHash}
    FROM lookup
    RETURNING id`;
  const id = rows[0]?.id;
  return id ? findForOrg(tx, input.orgId, id) : null;
}

export async function listForOrg(tx: Transaction, orgId: string): Promise<AdminRecord[]> {
  const rows = await prismaOf(tx).admin.findMany({
    where: { org_id: orgId },
    orderBy: { id: 'asc' },
    select: RECORD_FIELDS,
  });
  return rows.map(toRecord);
}

export async function findForOrg(tx: Transaction, orgId: string, adminId: string): Promise<AdminRecord | null> {
  const row = await prismaOf(tx).admin.findFirst({ where: { org_id: orgId, id: adminId }, select: RECORD_FIELDS });
  return row ? toRecord(row) : null;
}

export async function findByEmailForOrg(tx: Transaction, orgId: string, email: string): Promise<AdminRecord | null> {
  const row = await prismaOf(tx).admin.findFirst({ where: { org_id: orgId, email }, select: RECORD_FIELDS });
  return row ? toRecord(row) : null;
}

/** The account that may sign in with this email, with its password hash; null when none or disabled. */
export async function findSignInAccount(
  tx: Transaction,
  email: string,
): Promise<(AdminRecord & { password_hash: string }) | null> {
  const client = prismaOf(tx);
  const lookup = await client.credentialOrg.findUnique({
    where: { kind_lookup: { kind: 'admin_email', lookup: email } },
    select: { org_id: true },
  });
  if (!lookup) return null;
  const row = await client.admin.findFirst({
    where: { org_id: lookup.org_id, email, disabled_at: null },
    select: { ...RECORD_FIELDS, password_hash: true },
  });
  return row ? toRecord(row) : null;
}

/** Disables the account and ends its sessions, in the caller's transaction; `changed` is false when it was disabled. */
export async function disable(
  tx: Transaction,
  orgId: string,
  adminId: string,
  at: Date,
): Promise<{ changed: boolean }> {
  const client = prismaOf(tx);
  const { count } = await client.admin.updateMany({
    where: { org_id: orgId, id: adminId, disabled_at: null },
    data: { disabled_at: at },
  });
  await client.adminSession.updateMany({
    where: { org_id: orgId, admin_id: adminId, ended_at: null },
    data: { ended_at: at },
  });
  return { changed: count > 0 };
}
