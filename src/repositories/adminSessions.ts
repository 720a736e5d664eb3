import { newId } from '../lib/ids.ts';
import { type AdminRecord, RECORD_FIELDS, toRecord } from './admins.ts';
import { orgOfCredential } from './credentialOrgs.ts';
import { prismaOf, sql, type Transaction } from './transaction.ts';

/** A live session with its admin, as every console request reads it. */
export interface SessionWithAdmin {
  id: string;
  org_id: string;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  admin: AdminRecord & { org_name: string };
}

export async function create(
  tx: Transaction,
  input: {
    tokenDigest: string;
    adminId: string;
    orgId: string;
    csrfToken: string;
    at: Date;
    expiresAt: Date;
  },
): Promise<{ id: string }> {
  const id = newId('ses');
  await tx.query(sql`
    WITH lookup AS (
      INSERT INTO credential_orgs (kind, lookup, org_id, created_at)
      VALUES ('admin_session', ${input.tokenDigest}, ${input.orgId}, ${input.at})
    )
    INSERT INTO admin_sessions (id, token_digest, admin_id, org_id, csrf_token, created_at, last_seen_at, expires_at)
    VALUES (${id}, ${input.tokenDigest}, ${input.adminId}, ${input.orgId}, ${input.csrfToken}, ${input.at}, ${input.at},
            ${input.expiresAt})`);
  return { id };
}

/** The session of this token digest, not ended, with an admin that is not disabled; null otherwise. */
export async function findLive(tx: Transaction, tokenDigest: string): Promise<SessionWithAdmin | null> {
  const orgId = await orgOfCredential(tx, 'admin_session', tokenDigest);
  if (orgId === null) return null;
  const row = await prismaOf(tx).adminSession.findFirst({
    where: { org_id: orgId, token_digest: tokenDigest, ended_at: null, admin: { disabled_at: null } },
    select: {
      id: true,
      org_id: true,
      csrf_token: true,
      created_at: true,
      last_seen_at: true,
      expires_at: true,
      admin: { select: { ...RECORD_FIELDS, org: { select: { name: true } } } },
    },
  });
  if (!row) return null;
  const { org, ...admin } = row.admin;
  return { ...row, admin: { ...toRecord(admin), org_name: org.name } };
}

/** The session as findLive read it: its id, and its org (every statement names the org: docs/scaling.md). */
type SessionKey = Pick<SessionWithAdmin, 'id' | 'org_id'>;

export async function touch(tx: Transaction, session: SessionKey, at: Date): Promise<void> {
  await prismaOf(tx).adminSession.updateMany({
    where: { org_id: session.org_id, id: session.id, ended_at: null },
    data: { last_seen_at: at },
  });
}

export async function end(tx: Transaction, session: SessionKey, at: Date): Promise<void> {
  await prismaOf(tx).adminSession.updateMany({
    where: { org_id: session.org_id, id: session.id, ended_at: null },
    data: { ended_at: at },
  });
}
