import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { backendsServing, cpuSecondsBetween, snapshot } from './cpu.ts';
import { DISTINCT_DEALS, dealEvents } from './events.ts';
import { orgWithExamplePlan, serve, stop } from './quotientProcess.ts';

// `node bench/ingestProbe.ts`: where a four-chip deal event's PostgreSQL work goes, statement by statement. Not a
// benchmark (nothing is compared; `npm run bench` measures): a throwaway embedded PostgreSQL with pg_stat_statements,
// one org with product.md's four-chip plan, `quotient serve`, and bench/events.ts's upserts over its 5,000 deals sent
// once each and 1,000 more unmeasured; then PROBE_EVENTS (3,000) on PROBE_CONNECTIONS (4) connections, and per event:
// the server's and its backends' CPU, each statement's time, calls, rows, buffers and WAL (pg_stat_statements), and
// the rows each table gained or changed. PROBE_EXPLAIN=1 then logs 40 more events' plans with their buffers, WAL and
// trigger times (auto_explain) to PROBE_EXPLAIN_LOG (/tmp/ingest-probe-explain.log); PROBE_PERF=<file> records the
// server and its backends with `perf record -g` over the measured events; PROBE_CPU_PROF=<dir> runs the server under
// `node --cpu-prof`. QUOTIENT_RATE_LIMIT_STORE=memory counts rate limits as `npm run bench` does.
const measured = Number(process.env.PROBE_EVENTS ?? 3000);
const connections = Number(process.env.PROBE_CONNECTIONS ?? 4);
const explain = process.env.PROBE_EXPLAIN === '1';
const dataDir = await mkdtemp(join(tmpdir(), 'quotient-ingest-probe-'));
await chmod(dataDir, 0o755);
const flags = [
  '-c',
  `shared_preload_libraries=pg_stat_statements${explain ? ',auto_explain' : ''}`,
  '-c',
  'pg_stat_statements.track=all',
  ...(explain
    ? ['log_analyze', 'log_buffers', 'log_wal', 'log_triggers', 'log_nested_statements'].flatMap((name) => [
        '-c',
        `auto_explain.${name}=on`,
      ])
    : []),
];
const database = await openEmbeddedDatabase(dataDir, { extraFlags: flags });
const admin = new pg.Pool({ connectionString: database.url, max: 2 });
let server: ChildProcess | undefined;
try {
  await applyMigrations(database.url);
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const { key } = await orgWithExamplePlan(database.url, 'Probe');
  if (process.env.PROBE_CPU_PROF) {
    process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${process.env.PROBE_CPU_PROF}`;
  }
  const started = await serve(database.url);
  server = started.child;
  const next = dealEvents('probe');
  const post = async (body: string) => {
    const response = await fetch(`${started.url}/v1/deals/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const drive = async (count: number) => {
    let sent = 0;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (sent < count) {
          sent++;
          await post(next());
        }
      }),
    );
  };
  await drive(DISTINCT_DEALS + 1000);
  await admin.query('ANALYZE');
  await admin.query('SELECT pg_stat_statements_reset()');
  const pid = server.pid as number;
  const backends = await backendsServing(admin, pid);
  const before = [snapshot([pid]), snapshot(backends)] as const;
  const perf = process.env.PROBE_PERF
    ? spawn(
        'perf',
        [
          'record',
          '-e',
          'cpu-clock',
          '-F',
          '2000',
          '-g',
          '-o',
          process.env.PROBE_PERF,
          '-p',
          [pid, ...backends].join(','),
        ],
        { stdio: 'ignore' },
      )
    : undefined;
  if (perf) await new Promise((done) => setTimeout(done, 1000));
  const t0 = Date.now();
  await drive(measured);
  if (perf) {
    perf.kill('SIGINT');
    await new Promise((done) => perf.once('exit', done));
  }
  const seconds = (Date.now() - t0) / 1000;
  const after = [snapshot([pid]), snapshot(backends)] as const;
  const serverMs = ((cpuSecondsBetween(before[0], after[0]) ?? 0) * 1000) / measured;
  const dbMs = ((cpuSecondsBetween(before[1], after[1]) ?? 0) * 1000) / measured;
  process.stdout.write(
    `${measured} events in ${seconds.toFixed(1)} s (${(measured / seconds).toFixed(0)}/s), server ${serverMs.toFixed(2)} ms, db ${dbMs.toFixed(2)} ms per event\n`,
  );
  const { rows } = await admin.query(
    `SELECT calls, total_exec_time + total_plan_time AS total, rows, shared_blks_hit, shared_blks_dirtied, wal_records, wal_bytes, regexp_replace(query, '\\s+', ' ', 'g') AS query
     FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total DESC LIMIT 30`,
  );
  process.stdout.write('ms/event calls/event ms/call rows/call blks/call dirtied/call walrec/call walB/call query\n');
  for (const row of rows) {
    const calls = Number(row.calls);
    process.stdout.write(
      `${(row.total / measured).toFixed(3)} ${(calls / measured).toFixed(2)} ${(row.total / calls).toFixed(3)} ${(Number(row.rows) / calls).toFixed(1)} ${(Number(row.shared_blks_hit) / calls).toFixed(1)} ${(Number(row.shared_blks_dirtied) / calls).toFixed(1)} ${(Number(row.wal_records) / calls).toFixed(1)} ${(Number(row.wal_bytes) / calls).toFixed(0)} ${String(row.query).slice(0, 150)}\n`,
    );
  }
  const tables = await admin.query(
    `SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd > 0 ORDER BY relname`,
  );
  for (const t of tables.rows)
    process.stdout.write(`${t.relname} ins ${t.n_tup_ins} upd ${t.n_tup_upd} hot ${t.n_tup_hot_upd}\n`);
  const sizes = await admin.query(
    `SELECT c.relname, pg_relation_size(c.oid) AS bytes, (SELECT count(*) FROM pg_index i WHERE i.indrelid = c.oid) AS indexes
     FROM pg_class c WHERE c.relname IN ('earnings','deals','domain_events','source_events','audit_entries','period_standings')`,
  );
  for (const t of sizes.rows) process.stdout.write(`${t.relname} ${t.bytes} bytes, ${t.indexes} indexes\n`);
  if (explain) {
    await admin.query('ALTER SYSTEM SET auto_explain.log_min_duration = 0');
    await admin.query('SELECT pg_reload_conf()');
    await new Promise((done) => setTimeout(done, 500));
    await drive(40);
    await admin.query('ALTER SYSTEM SET auto_explain.log_min_duration = -1');
    await admin.query('SELECT pg_reload_conf()');
    const log = process.env.PROBE_EXPLAIN_LOG ?? '/tmp/ingest-probe-explain.log';
    for (const file of await readdir(dataDir, { recursive: true })) {
      if (String(file).endsWith('postgres.log')) await copyFile(join(dataDir, String(file)), log);
    }
    process.stdout.write(`plans of 40 events in ${log}\n`);
  }
} finally {
  await stop(server);
  await admin.end();
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}
