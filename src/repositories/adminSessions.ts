import { newId } from '../lib/ids.ts';
import { type AdminRecord, RECORD_FIELDS, toRecord } from './admins.ts';
import { prismaOf, type Transaction } from './transaction.ts';

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
  return prismaOf(tx).adminSession.create({
    data: {
      id: newId('ses'),
      token_digest: input.tokenDigest,
      admin_id: input.adminId,
      org_id: input.orgId,
      csrf_token: input.csrfToken,
      created_at: input.at,
      last_seen_at: input.at,
      expires_at: input.expiresAt,
    },
    select: { id: true },
  });
}

/** The session of this token digest, not ended, with an admin that is not disabled; null otherwise. */
export async function findLive(tx: Transaction, tokenDigest: string): Promise<SessionWithAdmin | null> {
  const row = await prismaOf(tx).adminSession.findFirst({
    where: { token_digest: tokenDigest, ended_at: null, admin: { disabled_at: null } },
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

export async function touch(tx: Transaction, orgId: string, sessionId: string, at: Date): Promise<void> {
  await prismaOf(tx).adminSession.updateMany({
    where: { org_id: orgId, id: sessionId, ended_at: null },
    data: { last_seen_at: at },
  });
}

export async function end(tx: Transaction, orgId: string, sessionId: string, at: Date): Promise<void> {
  await prismaOf(tx).adminSession.updateMany({
    where: { org_id: orgId, id: sessionId, ended_at: null },
    data: { ended_at: at },
  });
}
