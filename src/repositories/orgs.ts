import type { Database } from '../db/prisma.ts';
import { newId } from '../lib/ids.ts';

export interface OrgRecord {
  id: string;
  name: string;
  created_at: Date;
}

export class OrgRepository {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  async create(name: string): Promise<OrgRecord> {
    return this.db.org.create({ data: { id: newId('org'), name }, select: { id: true, name: true, created_at: true } });
  }

  async list(): Promise<OrgRecord[]> {
    return this.db.org.findMany({ orderBy: { id: 'asc' }, select: { id: true, name: true, created_at: true } });
  }

  /** The org's default currency (ISO 4217); null when there is no such org. */
  async defaultCurrency(orgId: string): Promise<string | null> {
    const org = await this.db.org.findUnique({ where: { id: orgId }, select: { default_currency: true } });
    return org?.default_currency ?? null;
  }

  async find(orgId: string): Promise<OrgRecord | null> {
    return this.db.org.findUnique({ where: { id: orgId }, select: { id: true, name: true, created_at: true } });
  }
}
