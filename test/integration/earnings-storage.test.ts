import pg from 'pg';
import { expect, test } from 'vitest';
import { withMigratedScratchDatabase } from '../helpers/scratchDatabase.ts';

// Earnings rows are written on the hot path of every deal event with a plan: up to a page's size they are kept
// whole, their traces uncompressed (migration 20261123040000_earnings_rows_uncompressed, docs/benchmarks.md). In a
// migrated database of its own, two rows written directly, without their foreign keys' rows.

/** A trace of about `bytes` bytes, as compressible as the engine's sentences are. */
function traceOf(bytes: number) {
  const sentence = '10.00% of 50,000.00 = 5,000.00. ';
  return { explanation: Array.from({ length: Math.ceil(bytes / sentence.length) }, () => sentence) };
}

test('an earnings row is stored uncompressed up to a page, and a longer one is still compressed', async () => {
  await withMigratedScratchDatabase('quotient_earnings_storage', async (url) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // Without the rows the foreign keys name (user, deal): only how the rows are stored is looked at.
      await client.query("SET session_replication_role = 'replica'");
      const insert = `INSERT INTO earnings (id, org_id, line_key, user_id, period_id, plan_id, plan_version_id,
                        rule_chip_id, rule_version, amount_cents, status, trace)
                      VALUES ($1, 'org_1', $1, 'user_1', '2026-04', 'plan_1', 'pv_1', 'chip_1', '1', 500000,
                        'pending', $2::jsonb)`;
      await client.query(insert, ['earn_typical', JSON.stringify(traceOf(3_000))]);
      await client.query(insert, ['earn_long', JSON.stringify(traceOf(20_000))]);
      const { rows } = await client.query<{ id: string; compression: string | null }>(
        'SELECT id, pg_column_compression(trace) AS compression FROM earnings ORDER BY id',
      );
      expect(rows).toEqual([
        { id: 'earn_long', compression: expect.any(String) },
        { id: 'earn_typical', compression: null },
      ]);
    } finally {
      await client.end();
    }
  });
});
