import type pg from 'pg';

// BENCH_PROFILE=1 of `npm run bench` (bench/run.ts): what PostgreSQL did per request of a scenario's run, from
// pg_stat_statements, pg_stat_user_tables and pg_stat_wal, counted from the last reset before the run.

/** Row writes per table (pg_stat_user_tables), for the rows each request writes. */
type TableWrites = Map<string, { inserted: number; updated: number; hot: number }>;

async function tableWrites(admin: pg.Pool): Promise<TableWrites> {
  const { rows } = await admin.query<{ relname: string; ins: string; upd: string; hot: string }>(
    'SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables',
  );
  return new Map(
    rows.map((row) => [row.relname, { inserted: Number(row.ins), updated: Number(row.upd), hot: Number(row.hot) }]),
  );
}

/** What the whole cluster wrote to its WAL: records, full-page images and bytes (pg_stat_wal). */
interface WalCounters {
  records: number;
  fullPageImages: number;
  bytes: number;
}

async function walCounters(admin: pg.Pool): Promise<WalCounters> {
  const { rows } = await admin.query<{ records: string; fpi: string; bytes: string }>(
    'SELECT wal_records AS records, wal_fpi AS fpi, wal_bytes AS bytes FROM pg_stat_wal',
  );
  const row = rows[0];
  return { records: Number(row?.records), fullPageImages: Number(row?.fpi), bytes: Number(row?.bytes) };
}

/** The tables' row writes when pg_stat_statements was last reset. */
let writesAtReset: TableWrites = new Map();
/** PostgreSQL's WAL counters (pg_stat_wal) when pg_stat_statements was last reset. */
let walAtReset: WalCounters = { records: 0, fullPageImages: 0, bytes: 0 };

export async function resetStatements(admin: pg.Pool): Promise<void> {
  await admin.query('SELECT pg_stat_statements_reset()');
  writesAtReset = await tableWrites(admin);
  walAtReset = await walCounters(admin);
}

/**
 * The statements pg_stat_statements counted since its last reset, per request of the run that made them, and the
 * rows each request inserted and updated per table.
 */
export async function printStatements(admin: pg.Pool, name: string, requests: number): Promise<void> {
  // Backends publish their table counters at most once a second.
  await new Promise((done) => setTimeout(done, 1_500));
  const writes = await tableWrites(admin);
  const wal = await walCounters(admin);
  const { rows } = await admin.query<{ query: string; calls: string; total: number; mean: number }>(
    `SELECT regexp_replace(query, '\\s+', ' ', 'g') AS query, calls, total_exec_time + total_plan_time AS total,
            (total_exec_time + total_plan_time) / calls AS mean
     FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
     WHERE d.datname = current_database() AND query NOT ILIKE '%pg_stat_statements%'
     ORDER BY total DESC LIMIT 15`,
  );
  const total = rows.reduce((sum, row) => sum + row.total, 0);
  process.stdout.write(
    `PostgreSQL time per request (planning + execution, pg_stat_statements), ${name}: ${(total / requests).toFixed(3)} ms in the top statements\n`,
  );
  process.stdout.write(`  ${'ms/req'.padStart(7)}  ${'calls/req'.padStart(9)}  ${'ms/call'.padStart(7)}  statement\n`);
  for (const row of rows) {
    process.stdout.write(
      `  ${(row.total / requests).toFixed(3).padStart(7)}  ${(Number(row.calls) / requests).toFixed(2).padStart(9)}  ${row.mean.toFixed(3).padStart(7)}  ${row.query.slice(0, 110)}\n`,
    );
  }
  process.stdout.write(`Rows written per request, ${name} (pg_stat_user_tables)\n`);
  for (const [table, after] of [...writes].sort(([a], [b]) => a.localeCompare(b))) {
    const before = writesAtReset.get(table) ?? { inserted: 0, updated: 0, hot: 0 };
    const per = (count: number) => (count / requests).toFixed(2);
    const inserted = after.inserted - before.inserted;
    const updated = after.updated - before.updated;
    if (inserted + updated < requests / 100) continue;
    process.stdout.write(
      `  ${table.padEnd(22)} inserted ${per(inserted).padStart(6)}  updated ${per(updated).padStart(6)} (HOT ${per(after.hot - before.hot)})\n`,
    );
  }
  const walPer = (count: number, before: number) => ((count - before) / requests).toFixed(2);
  process.stdout.write(
    `WAL per request (pg_stat_wal, whole cluster): ${walPer(wal.records, walAtReset.records)} records, ` +
      `${walPer(wal.fullPageImages, walAtReset.fullPageImages)} full-page images, ` +
      `${Math.round((wal.bytes - walAtReset.bytes) / requests)} bytes\n\n`,
  );
}
