import type { ExchangeRate } from '../domain/earnings/exchange.ts';
import { bumpConfigVersion } from './orgs.ts';
import { prismaOf, type Transaction } from './transaction.ts';

// The org's dated exchange rates (docs/currencies.md), through Prisma: written and listed by admins; the engine
// reads them with the org's configuration (orgs.loadConfig).

export interface StoredExchangeRate extends ExchangeRate {
  created_at: Date;
  updated_at: Date;
}

function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Sets the pair's rate from `effective_on` (replacing the pair's rate of that very day, if any). */
export async function set(
  tx: Transaction,
  orgId: string,
  rate: ExchangeRate,
): Promise<{ rate: StoredExchangeRate; replaced: string | null }> {
  const key = {
    org_id: orgId,
    from_currency: rate.from_currency,
    to_currency: rate.to_currency,
    effective_on: new Date(`${rate.effective_on}T00:00:00.000Z`),
  };
  const client = prismaOf(tx);
  const before = await client.exchangeRate.findUnique({
    where: { org_id_from_currency_to_currency_effective_on: key },
  });
  const now = new Date();
  const row = await client.exchangeRate.upsert({
    where: { org_id_from_currency_to_currency_effective_on: key },
    create: { ...key, rate: rate.rate, created_at: now, updated_at: now },
    update: { rate: rate.rate, updated_at: now },
  });
  await bumpConfigVersion(tx, orgId);
  return { rate: toRate(row), replaced: before?.rate ?? null };
}

/** The org's rates, by pair and then date; those from or to `currency` only when it is given. */
export async function list(tx: Transaction, orgId: string, currency?: string): Promise<StoredExchangeRate[]> {
  const rows = await prismaOf(tx).exchangeRate.findMany({
    where: {
      org_id: orgId,
      ...(currency === undefined ? {} : { OR: [{ from_currency: currency }, { to_currency: currency }] }),
    },
    orderBy: [{ from_currency: 'asc' }, { to_currency: 'asc' }, { effective_on: 'asc' }],
  });
  return rows.map(toRate);
}

function toRate(row: {
  from_currency: string;
  to_currency: string;
  effective_on: Date;
  rate: string;
  created_at: Date;
  updated_at: Date;
}): StoredExchangeRate {
  return {
    from_currency: row.from_currency,
    to_currency: row.to_currency,
    effective_on: dayOf(row.effective_on),
    rate: row.rate,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
