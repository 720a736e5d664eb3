import type { Database } from '../db/prisma.ts';
import { newId } from '../lib/ids.ts';

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

const RECORD_FIELDS = {
  id: true,
  org_id: true,
  email: true,
  display_name: true,
  role: true,
  created_at: true,
  disabled_at: true,
} as const;

function toRecord<Row extends { role: string }>(row: Row): Row & { role: AdminRole } {
  return { ...row, role: row.role as AdminRole };
}

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

export class AdminRepository {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  /** Null when the email is taken (by any org: an email signs in to one org). */
  async create(input: {
    orgId: string;
    email: string;
    displayName: string;
    role: AdminRole;
    passwordHash: string;
  }): Promise<AdminRecord | null> {
    const rows = await this.db.$queryRaw<Array<{ id: string }>>`
      INSERT INTO admins (id, org_id, email, display_name, role, password_hash)
      VALUES (${newId('adm')}, ${input.orgId}, ${input.email}, ${input.displayName}, ${input.role}, ${input.passwordHash})
      ON CONFLICT (email) DO NOTHING RETURNING id`;
    const id = rows[0]?.id;
    return id ? this.findForOrg(input.orgId, id) : null;
  }

  async listForOrg(orgId: string): Promise<AdminRecord[]> {
    const rows = await this.db.admin.findMany({
      where: { org_id: orgId },
      orderBy: { id: 'asc' },
      select: RECORD_FIELDS,
    });
    return rows.map(toRecord);
  }

  async findForOrg(orgId: string, adminId: string): Promise<AdminRecord | null> {
    const row = await this.db.admin.findFirst({ where: { org_id: orgId, id: adminId }, select: RECORD_FIELDS });
    return row ? toRecord(row) : null;
  }

  async findByEmailForOrg(orgId: string, email: string): Promise<AdminRecord | null> {
    const row = await this.db.admin.findFirst({ where: { org_id: orgId, email }, select: RECORD_FIELDS });
    return row ? toRecord(row) : null;
  }

  /** The account that may sign in with this email, with its password hash; null when none or disabled. */
  async findSignInAccount(email: string): Promise<(AdminRecord & { password_hash: string }) | null> {
    const row = await this.db.admin.findFirst({
      where: { email, disabled_at: null },
      select: { ...RECORD_FIELDS, password_hash: true },
    });
    return row ? toRecord(row) : null;
  }

  /** Disables the account and ends its sessions in one transaction; `changed` is false when it was disabled. */
  async disable(orgId: string, adminId: string, at: Date): Promise<{ changed: boolean }> {
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.admin.updateMany({
        where: { org_id: orgId, id: adminId, disabled_at: null },
        data: { disabled_at: at },
      });
      await tx.adminSession.updateMany({ where: { admin_id: adminId, ended_at: null }, data: { ended_at: at } });
      return { changed: count > 0 };
    });
  }
}

export class AdminSessionRepository {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async create(input: {
    tokenDigest: string;
    adminId: string;
    orgId: string;
    csrfToken: string;
    at: Date;
    expiresAt: Date;
  }): Promise<{ id: string }> {
    return this.db.adminSession.create({
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
  async findLive(tokenDigest: string): Promise<SessionWithAdmin | null> {
    const row = await this.db.adminSession.findFirst({
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

  async touch(sessionId: string, at: Date): Promise<void> {
    await this.db.adminSession.updateMany({ where: { id: sessionId, ended_at: null }, data: { last_seen_at: at } });
  }

  async end(sessionId: string, at: Date): Promise<void> {
    await this.db.adminSession.updateMany({ where: { id: sessionId, ended_at: null }, data: { ended_at: at } });
  }
}

/** Failed sign-ins by subject ("email:…", "ip:…"), for throttling. */
export class SignInFailureRepository {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async record(subjects: string[], at: Date): Promise<void> {
    await this.db.adminSignInFailure.createMany({
      data: subjects.map((subject) => ({ id: newId('sif'), subject, occurred_at: at })),
    });
  }

  /** Per subject: failures in [since, until], and the oldest of them (when the window frees a slot). */
  async countBetween(
    subjects: string[],
    since: Date,
    until: Date,
  ): Promise<Map<string, { count: number; oldest: Date }>> {
    const rows = await this.db.adminSignInFailure.groupBy({
      by: ['subject'],
      where: { subject: { in: subjects }, occurred_at: { gte: since, lte: until } },
      _count: { _all: true },
      _min: { occurred_at: true },
    });
    return new Map(rows.map((row) => [row.subject, { count: row._count._all, oldest: row._min.occurred_at ?? since }]));
  }

  /** A successful sign-in clears the account's failures (not the address's). */
  async clear(subject: string): Promise<void> {
    await this.db.adminSignInFailure.deleteMany({ where: { subject } });
  }

  async deleteBefore(at: Date): Promise<void> {
    await this.db.adminSignInFailure.deleteMany({ where: { occurred_at: { lt: at } } });
  }
}
