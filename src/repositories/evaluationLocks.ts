import { named, type Transaction } from './transaction.ts';

// The lock that keeps two evaluations of one rep's earnings lines apart, taken by deal events of an org with plans
// in force and by recomputes.

/** The advisory-lock class of the rep evaluation locks ("earn"); the key is hashtext(org_id/user_id). */
export const REP_LOCK_CLASS = 0x6561726e;

/**
 * Makes every other evaluation of these reps' lines wait until this transaction ends: a rep's tiered and
 * attainment lines depend on all of the rep's deals in a period, so two evaluations of one rep must not
 * interleave. One lock per rep (covering all of its periods), taken in id order so that a transaction that
 * needs two reps (a deal changing owner) cannot deadlock with another.
 */
export async function lockRepsForEvaluation(tx: Transaction, orgId: string, userIds: readonly string[]): Promise<void> {
  // Issued together: the transaction runs them in this order, and statements issued after them (the reads of
  // what the locks protect) start only once every lock is held.
  await Promise.all(
    [...new Set(userIds)].sort().map((userId) =>
      tx.query(
        named('earnings_lock_rep', {
          text: 'SELECT pg_advisory_xact_lock($1::int, hashtext($2))::text AS locked',
          values: [REP_LOCK_CLASS, `${orgId}/${userId}`],
        }),
      ),
    ),
  );
}
