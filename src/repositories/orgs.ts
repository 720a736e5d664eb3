import { newId } from '../lib/ids.ts';
import { prismaOf, type Transaction } from './transaction.ts';

export interface OrgRecord {
  id: string;
  name: string;
  default_currency: string;
  created_at: Date;
}

const ORG_FIELDS = { id: true, name: true, default_currency: true, created_at: true } as const;

export async function create(tx: Transaction, name: string, defaultCurrency?: string): Promise<OrgRecord> {
  return prismaOf(tx).org.create({
    data: { id: newId('org'), name, ...(defaultCurrency === undefined ? {} : { default_currency: defaultCurrency }) },
    select: ORG_FIELDS,
  });
}

export async function list(tx: Transaction): Promise<OrgRecord[]> {
  return prismaOf(tx).org.findMany({ orderBy: { id: 'asc' }, select: ORG_FIELDS });
}

/**
 * Sets the default currency in one statement, only while the org has no deals and no plans (whose meaning it
 * fixes): `in_use` when it has some and the currency differs, `unchanged` when it is already this one.
 */
export async function setDefaultCurrencyIfUnused(
  tx: Transaction,
  orgId: string,
  currency: string,
): Promise<'changed' | 'unchanged' | 'in_use'> {
  const current = await defaultCurrency(tx, orgId);
  if (current === currency) return 'unchanged';
  const updated = await prismaOf(tx).$executeRaw`
    UPDATE orgs SET default_currency = ${currency}
    WHERE id = ${orgId}
      AND NOT EXISTS (SELECT 1 FROM deals WHERE org_id = ${orgId})
      AND NOT EXISTS (SELECT 1 FROM plans WHERE org_id = ${orgId})`;
  return updated === 1 ? 'changed' : 'in_use';
}

/** The org's default currency (ISO 4217); null when there is no such org. */
export async function defaultCurrency(tx: Transaction, orgId: string): Promise<string | null> {
  const org = await prismaOf(tx).org.findUnique({ where: { id: orgId }, select: { default_currency: true } });
  return org?.default_currency ?? null;
}

export async function find(tx: Transaction, orgId: string): Promise<OrgRecord | null> {
  return prismaOf(tx).org.findUnique({ where: { id: orgId }, select: ORG_FIELDS });
}
