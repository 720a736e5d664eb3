import type { ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { cli, orgWithExamplePlan, sender, serve, stop } from './quotientProcess.ts';

// `npm run bench:scale`: a year of an org's deals through Quotient's own API. One org with product.md's four-chip
// plan (examples/plans/core-ae.yaml), BENCH_SCALE_REPS reps (default 500) and BENCH_SCALE_DEALS deals (default
// 120,000) over the twelve months of 2026, sent month by month to `quotient serve` as POST /v1/deals/events over
// BENCH_SCALE_CONNECTIONS connections (default 8): each deal once, in its month's order (half won, a third left
// open, the rest lost). Each month is locked with `quotient periods lock` once the next month's deals are in, and
// marked paid a month later, as a payroll team would. Prints each month's events per second (whether the cost of
// an event grows as the year fills up), the lock and pay times, and the earnings rows and database size at the end.
// The full size of docs/benchmarks.md: BENCH_SCALE_REPS=2000 BENCH_SCALE_DEALS=1000000.

const reps = Number(process.env.BENCH_SCALE_REPS ?? 500);
const deals = Number(process.env.BENCH_SCALE_DEALS ?? 120_000);
const connections = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 8);
const YEAR = 2026;
const month = (m: number) => `${YEAR}-${String(m).padStart(2, '0')}`;

const dataDir = await mkdtemp(join(tmpdir(), 'quotient-bench-scale-'));
await chmod(dataDir, 0o755);
const database = await openEmbeddedDatabase(dataDir);
const admin = new pg.Pool({ connectionString: database.url, max: 1 });
let server: ChildProcess | undefined;
try {
  await applyMigrations(database.url);
  const { orgId, key } = await orgWithExamplePlan(database.url, 'Bench scale');
  const started = await serve(database.url);
  server = started.child;
  const send = sender(started.url, key);
  process.stdout.write(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; ${reps} reps, ${deals} deals over ${YEAR}, four-chip plan, ${connections} connections\n`,
  );
  process.stdout.write(
    `${'month'.padEnd(8)}  ${'events'.padStart(7)}  ${'seconds'.padStart(8)}  ${'events/s'.padStart(8)}  period work\n`,
  );
  const total = performance.now();
  for (let m = 1; m <= 12; m++) {
    const first = Math.floor(((m - 1) * deals) / 12);
    const last = Math.floor((m * deals) / 12);
    let next = first;
    const from = performance.now();
    await Promise.all(
      Array.from({ length: connections }, async () => {
        for (let n = next++; n < last; n = next++) await send(dealEvent(n, m, first, last));
      }),
    );
    const seconds = (performance.now() - from) / 1000;
    const work: string[] = [];
    if (m >= 2) work.push(`lock ${month(m - 1)} ${await timed(['periods', 'lock', month(m - 1), '--org', orgId])} s`);
    if (m >= 3) {
      work.push(`pay ${month(m - 2)} ${await timed(['periods', 'mark-paid', month(m - 2), '--org', orgId])} s`);
    }
    process.stdout.write(
      `${month(m).padEnd(8)}  ${String(last - first).padStart(7)}  ${seconds.toFixed(1).padStart(8)}  ${((last - first) / seconds).toFixed(0).padStart(8)}  ${work.join(', ')}\n`,
    );
  }
  const { rows } = await admin.query<{ earnings: string; size: string }>(
    `SELECT (SELECT count(*) FROM earnings)::text AS earnings, pg_size_pretty(pg_database_size(current_database())) AS size`,
  );
  process.stdout.write(
    `${deals} deals in ${((performance.now() - total) / 1000).toFixed(0)} s; ${rows[0]?.earnings} earnings rows; database ${rows[0]?.size}\n`,
  );
} finally {
  await stop(server);
  await admin.end();
  await database.stop();
  await rm(dataDir, { recursive: true, force: true });
}

/** Deal `n`, the `n - first`-th of its month's `last - first`: dated in order over the month, to rep n mod reps. */
function dealEvent(n: number, m: number, first: number, last: number): object {
  const day = Math.floor(((n - first) * 28) / (last - first)) + 1;
  const kind = n % 6; // 0-2 won, 3-4 open, 5 lost
  return {
    external_id: `scale-${n}`,
    dedup_key: `scale-${n}`,
    event_type: 'upsert',
    state: {
      amount_cents: 200_000 + ((n * 7919) % 3_000_000),
      stage: kind < 3 ? 'closed_won' : kind < 5 ? 'proposal' : 'closed_lost',
      close_date: `${month(m)}-${String(day).padStart(2, '0')}`,
      owner_external_id: `rep-${n % reps}`,
      region: ['EMEA', 'NA', 'APAC'][n % 3],
      new_logo: n % 7 === 0,
    },
  };
}

/** Runs a CLI command and returns how long it took, in seconds. */
async function timed(args: string[]): Promise<string> {
  const from = performance.now();
  await cli(database.url, args);
  return ((performance.now() - from) / 1000).toFixed(1);
}
