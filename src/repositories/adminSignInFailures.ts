import { newId } from '../lib/ids.ts';
import { prismaOf, type Transaction } from './transaction.ts';

/** Failed sign-ins by subject ("email:…", "ip:…"), for throttling. */

export async function record(tx: Transaction, subjects: string[], at: Date): Promise<void> {
  await prismaOf(tx).adminSignInFailure.createMany({
    data: subjects.map((subject) => ({ id: newId('sif'), subject, occurred_at: at })),
  });
}

/** Per subject: failures in [since, until], and the oldest of them (when the window frees a slot). */
export async function countBetween(
  tx: Transaction,
  subjects: string[],
  since: Date,
  until: Date,
): Promise<Map<string, { count: number; oldest: Date }>> {
  const rows = await prismaOf(tx).adminSignInFailure.groupBy({
    by: ['subject'],
    where: { subject: { in: subjects }, occurred_at: { gte: since, lte: until } },
    _count: { _all: true },
    _min: { occurred_at: true },
  });
  return new Map(rows.map((row) => [row.subject, { count: row._count._all, oldest: row._min.occurred_at ?? since }]));
}

/** A successful sign-in clears the account's failures (not the address's). */
export async function clear(tx: Transaction, subject: string): Promise<void> {
  await prismaOf(tx).adminSignInFailure.deleteMany({ where: { subject } });
}

export async function deleteBefore(tx: Transaction, at: Date): Promise<void> {
  await prismaOf(tx).adminSignInFailure.deleteMany({ where: { occurred_at: { lt: at } } });
}
