type Sql = (text: string, values?: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }>;

interface Definitions {
  /** Foreign keys of or to the tables: dropped first, added (and validated) last. */
  foreignKeys: Array<{ table: string; name: string; definition: string }>;
  /** Primary keys and unique constraints of the tables (foreign keys lean on them). */
  keys: Array<{ table: string; name: string; definition: string }>;
  /** The other indexes of the tables, as CREATE INDEX statements. */
  indexes: Array<{ name: string; definition: string }>;
}

/**
 * Runs `load` on `tables` stripped of their indexes, keys and foreign keys (and the foreign keys of other tables
 * that reference them), then puts each back from its own definition (pg_get_indexdef, pg_get_constraintdef), the
 * foreign keys last, after an ANALYZE (their validating joins are planned from statistics). A btree built once over
 * the loaded rows holds the same entries as one maintained row by row, and a foreign key added after the load is
 * validated over every row in one join rather than probed per row: what the tables hold in the end is what a load
 * with them in place leaves, at a fraction of the cost for millions of rows. For a database nothing else uses while
 * it loads (a benchmark's own): the tables are unguarded meanwhile. The caller vacuums and analyses the tables after.
 * `concurrency`: how many indexes are built at once (no more than the connections `sql` runs on).
 */
export async function loadWithIndexesBuiltAfter(
  sql: Sql,
  tables: readonly string[],
  load: () => Promise<void>,
  { log = () => {}, concurrency = 1 }: { log?: (message: string) => void; concurrency?: number } = {},
): Promise<void> {
  const definitions = await definitionsOf(sql, tables);
  for (const { table, name } of [...definitions.foreignKeys, ...definitions.keys]) {
    await sql(`ALTER TABLE ${quote(table)} DROP CONSTRAINT ${quote(name)}`);
  }
  for (const { name } of definitions.indexes) await sql(`DROP INDEX ${quote(name)}`);
  await load();
  let from = performance.now();
  for (const { table, name, definition } of definitions.keys) {
    await sql(`ALTER TABLE ${quote(table)} ADD CONSTRAINT ${quote(name)} ${definition}`);
  }
  // CREATE INDEX locks out writes only: a table's indexes are built side by side, one per connection of the pool,
  // and their scans of the heap run together (synchronised scans) instead of one after the other.
  const queue = [...definitions.indexes];
  const buildNext = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) await sql(next.definition);
  };
  await Promise.all(Array.from({ length: concurrency }, buildNext));
  log(`indexes of ${tables.join(', ')} built in ${seconds(from)} s`);
  // A foreign key is validated by one join of the referencing and the referenced rows, planned like any query: on
  // tables never analysed the planner guesses their sizes from nothing and may probe the referenced key once per row
  // (ten million index probes took over 19 minutes), where with statistics it hashes or merges them in one pass.
  from = performance.now();
  await sql('ANALYZE');
  log(`analysed in ${seconds(from)} s`);
  for (const { table, name, definition } of definitions.foreignKeys) {
    from = performance.now();
    await sql(`ALTER TABLE ${quote(table)} ADD CONSTRAINT ${quote(name)} ${definition}`);
    log(`foreign key ${name} validated in ${seconds(from)} s`);
  }
}

async function definitionsOf(sql: Sql, tables: readonly string[]): Promise<Definitions> {
  const constraints = (
    await sql(
      `SELECT c.conrelid::regclass::text AS table, c.conname AS name, c.contype AS type,
              pg_get_constraintdef(c.oid) AS definition
       FROM pg_constraint c
       WHERE c.contype IN ('p', 'u', 'f')
         AND (c.conrelid::regclass::text = ANY ($1) OR (c.contype = 'f' AND c.confrelid::regclass::text = ANY ($1)))
       ORDER BY c.contype DESC, c.conrelid::regclass::text, c.conname`,
      [tables],
    )
  ).rows as Array<{ table: string; name: string; type: string; definition: string }>;
  const indexes = (
    await sql(
      `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i
       WHERE i.indrelid::regclass::text = ANY ($1)
         AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.contype IN ('p', 'u'))
       ORDER BY i.indrelid::regclass::text, 1`,
      [tables],
    )
  ).rows as Array<{ name: string; definition: string }>;
  const strip = ({ table, name, definition }: { table: string; name: string; definition: string }) => ({
    table,
    name,
    definition,
  });
  return {
    foreignKeys: constraints.filter((c) => c.type === 'f').map(strip),
    keys: constraints.filter((c) => c.type !== 'f').map(strip),
    indexes,
  };
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const seconds = (from: number) => ((performance.now() - from) / 1000).toFixed(0);
