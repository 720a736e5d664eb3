import { expect, test } from 'vitest';
import { createPrismaClient } from '../../src/db/prisma.ts';
import { createSqlPool, type SqlPool } from '../../src/repositories/transaction.ts';
import { seedReadWorld } from '../helpers/readPlans.ts';
import { withMigratedScratchDatabase } from '../helpers/scratchDatabase.ts';
import { testServices } from '../helpers/services.ts';

// bench:reads loads millions of rows with the growing tables' indexes and foreign keys built after the load
// (test/helpers/bulkLoad.ts). What it measures must be the schema the migrations make: every index, key and foreign
// key back as it was defined, validated and enforced.

/** Every index and constraint of the schema, as PostgreSQL prints their definitions, and whether each is valid. */
async function schemaDefinitions(pool: SqlPool): Promise<string[]> {
  const { rows } = await pool.query<{ definition: string }>(
    `SELECT format('%s: %s', indexrelid::regclass, pg_get_indexdef(indexrelid)) || CASE WHEN indisvalid THEN '' ELSE ' (invalid)' END AS definition
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
     UNION ALL
     SELECT format('%s.%s: %s', conrelid::regclass, conname, pg_get_constraintdef(c.oid)) || CASE WHEN convalidated THEN '' ELSE ' (not validated)' END
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace AND n.nspname = 'public'
     ORDER BY 1`,
  );
  return rows.map((row) => row.definition);
}

test('a read world loaded with its indexes built after has every index, key and foreign key the migrations define, validated and enforced', async () => {
  await withMigratedScratchDatabase('quotient_bulk_load', async (url) => {
    const db = createPrismaClient(url, 2);
    const pool = createSqlPool(url, 2, () => {});
    try {
      const migrated = await schemaDefinitions(pool);
      expect(migrated.length).toBeGreaterThan(50);
      const messages: string[] = [];
      const services = testServices({ db, pool });
      const size = { reps: 6, dealsPerRepMonth: 2 };
      const bulk = await seedReadWorld(db, pool, services, size, 'Bulk', {
        indexesBuiltAfter: true,
        log: (message) => messages.push(message),
      });
      expect(await schemaDefinitions(pool)).toEqual(migrated);
      expect(messages).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^indexes of earnings, deals, users, adjustments, inquiries built in/),
        ]),
      );

      // The same rows as a load with the indexes in place: the same statements wrote them.
      const inPlace = await seedReadWorld(db, pool, services, size, 'In place');
      expect(bulk.orgRows).toBe(inPlace.orgRows);
      expect(bulk.orgRows).toBeGreaterThan(2 * size.reps * 12 * size.dealsPerRepMonth);

      // Enforced: a row naming a rep the org does not have is refused by the foreign key put back.
      await expect(
        pool.query(`UPDATE earnings SET user_id = 'user_0nobody' WHERE org_id = $1 AND id = $2`, [
          bulk.orgId,
          bulk.earningId,
        ]),
      ).rejects.toThrow(/earnings_org_id_user_id_fkey/);
    } finally {
      await pool.end();
      await db.$disconnect();
    }
  });
});
