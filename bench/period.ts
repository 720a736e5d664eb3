import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { backendsServing, cpuSecondsBetween, snapshot } from './cpu.ts';
import { orgWithExamplePlan, sender, serve, stop } from './quotientProcess.ts';
import { printTopStatements } from './statements.ts';

// `npm run bench:period`: what one more deal event costs a rep as the rep's period grows. One org with
// product.md's four-chip plan (examples/plans/core-ae.yaml) and one rep per size in BENCH_PERIOD_SIZES (default
// 10,1000,20000), each given that many won deals in October 2026 through `quotient serve`'s own
// POST /v1/deals/events with the plan active (the reps in parallel, each rep's events in order). Every rep is past
// quota from its first deal on, so a new deal dated after the others moves no other line's band: the common
// event. Then, after one unmeasured block per rep, BENCH_PERIOD_ROUNDS (3) rounds of one block of
// BENCH_PERIOD_BLOCK (20) such events per rep, the reps' order rotated every round so a noisy neighbour hits every
// size, each event sent alone. Per size: the median event's wall time, the CPU of the server process and of the
// PostgreSQL backends serving it per event (bench/cpu.ts), statements, rows returned and buffers touched per event
// (pg_stat_statements), and each figure over the smallest size's. BENCH_PERIOD_TOP=1 also prints the run's
// statements by total time.

const sizes = (process.env.BENCH_PERIOD_SIZES ?? '10,1000,20000').split(',').map(Number);
const rounds = Number(process.env.BENCH_PERIOD_ROUNDS ?? 3);
const block = Number(process.env.BENCH_PERIOD_BLOCK ?? 20);
const showTop = process.env.BENCH_PERIOD_TOP === '1';
const PERIOD = '2026-10';
const QUOTA_CENTS = 10_000_000; // core-ae.yaml's quota_cents

interface Counters {
  calls: number;
  rows: number;
  blocks: number;
}

interface Sample {
  wallMs: number[];
  serverSeconds: number;
  databaseSeconds: number;
  counters: Counters;
  events: number;
}

const dataDir = await mkdtemp(join(tmpdir(), 'quotient-bench-period-'));
await chmod(dataDir, 0o755);
const database = await openEmbeddedDatabase(dataDir, {
  extraFlags: ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'],
});
const admin = new pg.Pool({ connectionString: database.url, max: 2 });
let server: ChildProcess | undefined;
try {
  await applyMigrations(database.url);
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const { key } = await orgWithExamplePlan(database.url, 'Bench period');
  const started = await serve(database.url);
  server = started.child;
  const send = sender(started.url, key);
  process.stdout.write(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; four-chip plan, reps with ${sizes.join(', ')} won deals in ${PERIOD}\n`,
  );

  const seedStarted = Date.now();
  await Promise.all(
    sizes.map(async (size) => {
      const from = Date.now();
      for (let n = 0; n < size; n++) await send(seedEvent(size, n));
      process.stdout.write(
        `seeded ${size} deals through POST /v1/deals/events in ${((Date.now() - from) / 1000).toFixed(1)} s\n`,
      );
    }),
  );
  process.stdout.write(`seeding took ${((Date.now() - seedStarted) / 1000).toFixed(1)} s in all\n\n`);

  const samples = new Map<number, Sample>(
    sizes.map((size) => [
      size,
      { wallMs: [], serverSeconds: 0, databaseSeconds: 0, counters: { calls: 0, rows: 0, blocks: 0 }, events: 0 },
    ]),
  );
  const pid = server.pid as number;
  let next = 0;
  // One unmeasured block per rep first, so that no size is measured while the server's code is still compiling.
  for (const size of sizes) for (let n = 0; n < block; n++) await send(measuredEvent(size, next++));
  for (let round = 0; round < rounds; round++) {
    const order = sizes.map((_, index) => sizes[(index + round) % sizes.length] as number);
    for (const size of order) {
      const sample = samples.get(size) as Sample;
      const backends = await backendsServing(admin, pid);
      const counted = await statementCounters();
      const cpuBefore = [snapshot([pid]), snapshot(backends)] as const;
      for (let n = 0; n < block; n++) {
        const from = process.hrtime.bigint();
        await send(measuredEvent(size, next++));
        sample.wallMs.push(Number(process.hrtime.bigint() - from) / 1e6);
      }
      const cpuAfter = [snapshot([pid]), snapshot(backends)] as const;
      const countedAfter = await statementCounters();
      sample.serverSeconds += cpuSecondsBetween(cpuBefore[0], cpuAfter[0]) ?? 0;
      sample.databaseSeconds += cpuSecondsBetween(cpuBefore[1], cpuAfter[1]) ?? 0;
      sample.counters.calls += countedAfter.calls - counted.calls;
      sample.counters.rows += countedAfter.rows - counted.rows;
      sample.counters.blocks += countedAfter.blocks - counted.blocks;
      sample.events += block;
    }
  }
  report(samples);
  if (showTop) {
    // The statements of the whole run by total time (seeding included), to say where an event's time goes.
    process.stdout.write('\nStatements of the whole run by total time\n');
    await printTopStatements(admin, 12, 120);
  }
} finally {
  await stop(server);
  await admin.end();
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}

/**
 * Seed deal `n` of the rep with `size` deals, dated in counting order over the 1st to the 27th, as they would be
 * won: the first alone reaches twice the quota, so every later one is past it.
 */
function seedEvent(size: number, n: number): object {
  return {
    external_id: `period-${size}-seed-${n}`,
    dedup_key: `period-${size}-seed-${n}`,
    event_type: 'upsert',
    state: {
      amount_cents: n === 0 ? 2 * QUOTA_CENTS : 50_000 + (n % 97) * 100,
      stage: 'closed_won',
      close_date: `${PERIOD}-${String(Math.floor((n * 27) / size) + 1).padStart(2, '0')}`,
      owner_external_id: `rep-${size}`,
      region: ['EMEA', 'NA', 'APAC'][n % 3],
      new_logo: n % 7 === 0,
    },
  };
}

/** A new won deal dated after every seeded one: counted last, past quota, it moves no other line. */
function measuredEvent(size: number, n: number): object {
  return {
    external_id: `period-${size}-measured-${n}`,
    dedup_key: `period-${size}-measured-${n}`,
    event_type: 'upsert',
    state: {
      amount_cents: 40_000 + (n % 89) * 100,
      stage: 'closed_won',
      close_date: `${PERIOD}-31`,
      owner_external_id: `rep-${size}`,
      region: 'EMEA',
      new_logo: false,
    },
  };
}

/** pg_stat_statements' totals over this database, less the bench's own reads of it. */
async function statementCounters(): Promise<Counters> {
  const { rows } = await admin.query<{ calls: string; rows: string; blocks: string }>(
    `SELECT coalesce(sum(calls), 0) AS calls, coalesce(sum(s.rows), 0) AS rows,
            coalesce(sum(shared_blks_hit + shared_blks_read), 0) AS blocks
     FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
     WHERE d.datname = current_database() AND query NOT ILIKE '%pg_stat%'`,
  );
  const row = rows[0];
  return { calls: Number(row?.calls), rows: Number(row?.rows), blocks: Number(row?.blocks) };
}

function report(samples: Map<number, Sample>): void {
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  const figures = [...samples].map(([size, sample]) => ({
    size,
    wall: median(sample.wallMs),
    server: (sample.serverSeconds * 1000) / sample.events,
    database: (sample.databaseSeconds * 1000) / sample.events,
    calls: sample.counters.calls / sample.events,
    rows: sample.counters.rows / sample.events,
    blocks: sample.counters.blocks / sample.events,
  }));
  const first = figures[0];
  if (!first) return;
  const ratio = (value: number, base: number) => (base === 0 ? '-' : `${(value / base).toFixed(2)}×`);
  process.stdout.write(
    `One more won deal per rep (${rounds} rounds × ${block} events per size, alternating); ratio over the ${first.size}-deal rep\n`,
  );
  process.stdout.write(
    `${'deals'.padStart(7)}  ${'p50 ms'.padStart(8)}  ${'server'.padStart(7)}  ${'pg'.padStart(7)}  ${'cpu ms'.padStart(7)}  ${'stmts'.padStart(6)}  ${'rows'.padStart(8)}  ${'buffers'.padStart(8)}  ${'p50 ×'.padStart(7)}  ${'cpu ×'.padStart(7)}  ${'rows ×'.padStart(7)}\n`,
  );
  for (const row of figures) {
    const cpu = row.server + row.database;
    process.stdout.write(
      `${String(row.size).padStart(7)}  ${row.wall.toFixed(1).padStart(8)}  ${row.server.toFixed(1).padStart(7)}  ${row.database.toFixed(1).padStart(7)}  ${cpu.toFixed(1).padStart(7)}  ${row.calls.toFixed(1).padStart(6)}  ${row.rows.toFixed(0).padStart(8)}  ${row.blocks.toFixed(0).padStart(8)}  ${ratio(row.wall, first.wall).padStart(7)}  ${ratio(cpu, first.server + first.database).padStart(7)}  ${ratio(row.rows, first.rows).padStart(7)}\n`,
    );
  }
  const last = figures[figures.length - 1] as (typeof figures)[number];
  const cpuRatio = (last.server + last.database) / (first.server + first.database);
  process.stdout.write(
    `goal: the ${last.size}-deal rep's event within 1.5× the ${first.size}-deal rep's (CPU): ${cpuRatio.toFixed(2)}× ${cpuRatio <= 1.5 ? 'met' : 'NOT met'}\n`,
  );
}
