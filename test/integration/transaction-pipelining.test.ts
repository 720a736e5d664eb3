import { expect, test } from 'vitest';
import { createPrismaClient } from '../../src/db/prisma.ts';
import {
  createSqlPool,
  inPrismaTransaction,
  inTransaction,
  type Transaction,
} from '../../src/repositories/transaction.ts';
import { query, withScratchDatabase } from '../helpers/scratchDatabase.ts';

// A Transaction runs statements in the order they are issued, also when the caller issues the next before the
// previous has answered (the pg pool then sends them together). The earnings engine relies on it: it issues a
// rep's lock and the reads of the rep's deals together, and the reads must see what the lock's previous holder
// committed. In a database of its own, with one table of marks.

const LOCK = 'SELECT pg_advisory_xact_lock(4242)::text AS locked';
const COUNT = 'SELECT count(*)::int AS marks FROM marks';

async function withMarks(use: (url: string) => Promise<void>): Promise<void> {
  await withScratchDatabase('quotient_pipelining', async (url) => {
    await query(url, 'CREATE TABLE marks (n int NOT NULL)');
    await use(url);
  });
}

/**
 * Holds the lock in a transaction of its own until `release` is called, then writes a mark and commits; `held`
 * resolves once the lock is taken.
 */
function holdLockThenMark(url: string) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let onHeld = () => {};
  const held = new Promise<void>((resolve) => {
    onHeld = resolve;
  });
  const pool = createSqlPool(url, 1, () => {});
  const done = inTransaction(pool, async (tx) => {
    await tx.query({ text: LOCK, values: [] });
    onHeld();
    await released;
    await tx.query({ text: 'INSERT INTO marks VALUES (1)', values: [] });
  }).finally(() => pool.end());
  return { held, release, done };
}

/** The lock and the count issued together, without waiting for the lock's answer. */
async function lockAndCount(tx: Transaction): Promise<number> {
  const [, rows] = await Promise.all([
    tx.query({ text: LOCK, values: [] }),
    tx.query<{ marks: number }>({ text: COUNT, values: [] }),
  ]);
  return rows[0]?.marks ?? -1;
}

/** Waits until some session waits for the advisory lock. */
async function untilSomeoneWaits(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const [row] = await query<{ waiting: number }>(
      url,
      `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'`,
    );
    if ((row?.waiting ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('nobody waited for the advisory lock');
}

/** A runner of transactions on the database at `url`, and how to close it. */
interface Runner {
  run: (work: (tx: Transaction) => Promise<number>) => Promise<number>;
  close: () => Promise<void>;
}

const runners: Array<[string, (url: string) => Runner]> = [
  [
    'on the pg pool',
    (url) => {
      const pool = createSqlPool(url, 1, () => {});
      return { run: (work) => inTransaction(pool, work), close: () => pool.end() };
    },
  ],
  [
    'in a Prisma transaction',
    (url) => {
      const db = createPrismaClient(url, 1);
      return { run: (work) => inPrismaTransaction(db, work), close: () => db.$disconnect() };
    },
  ],
];

test.each(runners)(
  'a read issued together with a lock, %s, sees what the lock’s previous holder committed',
  async (_, open) => {
    await withMarks(async (url) => {
      const holder = holdLockThenMark(url);
      await holder.held;
      const runner = open(url);
      try {
        const counted = runner.run(lockAndCount);
        await untilSomeoneWaits(url);
        holder.release();
        await holder.done;
        expect(await counted).toBe(1);
      } finally {
        await runner.close();
      }
    });
  },
);

test('when one of the statements issued together fails, the others fail with it and nothing is kept', async () => {
  await withMarks(async (url) => {
    const pool = createSqlPool(url, 1, () => {});
    try {
      const failed = inTransaction(pool, async (tx) => {
        await Promise.all([
          tx.query({ text: 'INSERT INTO marks VALUES (1)', values: [] }),
          tx.query({ text: 'SELECT 1 / 0', values: [] }),
          tx.query({ text: 'INSERT INTO marks VALUES (2)', values: [] }),
        ]);
      });
      await expect(failed).rejects.toThrow('division by zero');
      // The pool's one connection is usable again, and neither insert was kept.
      const marks = await inTransaction(pool, (tx) => tx.query<{ marks: number }>({ text: COUNT, values: [] }));
      expect(marks).toEqual([{ marks: 0 }]);
    } finally {
      await pool.end();
    }
  });
});

test('when the work awaits a statement sent after the one that failed, the transaction fails with the first failure', async () => {
  await withMarks(async (url) => {
    const pool = createSqlPool(url, 1, () => {});
    try {
      // As the earnings engine does: a read issued with others, awaited on its own. The statement before it fails
      // (here a statement timeout, which the server answers 503); the read then fails with 25P02, "current
      // transaction is aborted", which said nothing of the cause and was answered 500 (found by `npm run soak`).
      const failed = inTransaction(pool, async (tx) => {
        const first = tx.query({ text: "SELECT set_config('statement_timeout', '1', true)", values: [] });
        const slow = tx.query({ text: 'SELECT pg_sleep(1)::text AS slept', values: [] });
        const read = tx.query<{ marks: number }>({ text: COUNT, values: [] });
        slow.catch(() => {});
        await first;
        await read;
      });
      await expect(failed).rejects.toMatchObject({ code: '57014' });
      const marks = await inTransaction(pool, (tx) => tx.query<{ marks: number }>({ text: COUNT, values: [] }));
      expect(marks).toEqual([{ marks: 0 }]);
    } finally {
      await pool.end();
    }
  });
});
