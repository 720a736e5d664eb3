import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { createPrismaClient } from '../src/db/prisma.ts';
import { newId } from '../src/lib/ids.ts';
import * as orgs from '../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements } from '../src/repositories/transaction.ts';
import { childrenCpuSeconds, clusterCpuSeconds } from './cpu.ts';
import { noPlanChanges } from './listeners.ts';
import { benchServices } from './services.ts';

// `quotient recompute` at growing sizes: for each size, a new org with product.md's four-chip plan and that many
// deals written straight into the tables in bulk (200 per rep, over the 12 months of 2026: 40% won, 40% open,
// 20% lost), then the command itself, run as a user runs it. First the recompute that writes every line, then
// a plan change (base commission 10% → 12%), whose recompute supersedes the base rows. With `against` (BENCH_AGAINST, a
// checkout of another version), each size runs BENCH_RECOMPUTE_ROUNDS (2) rounds of both versions, each on an org of
// its own, the order flipped every round, and prints this version's time over that one's. After each first recompute,
// a `floor` line (BENCH_RECOMPUTE_FLOOR=0 leaves it out): the time PostgreSQL alone takes to store the rows it wrote
// (storageFloor below).

const DEALS_PER_REP = 200;
const BATCH = 10_000;
const EXAMPLE_PLAN = new URL('../examples/plans/core-ae.yaml', import.meta.url);

export interface RecomputeRun {
  deals: number;
  reps: number;
  seconds: number;
  lines_evaluated: number;
  rows_written: number;
  rows_superseded: number;
  rows_reversed: number;
  /** CPU seconds of the command (its process) and of every PostgreSQL process over the run. */
  cpu?: { command: number; postgres: number };
}

export async function benchRecompute(
  databaseUrl: string,
  sizes: readonly number[],
  against?: string,
  rounds = Number(process.env.BENCH_RECOMPUTE_ROUNDS ?? 2),
): Promise<void> {
  const plan = await readFile(EXAMPLE_PLAN, 'utf8');
  process.stdout.write(
    `quotient recompute, product.md's four-chip plan, ${DEALS_PER_REP} deals per rep (each run its own org)${
      against ? `; this checkout against ${against}, ${rounds} rounds alternating` : ''
    }\n`,
  );
  process.stdout.write(
    `${'deals'.padStart(8)}  ${'version'.padEnd(8)}  ${'run'.padEnd(12)}  ${'seconds'.padStart(8)}  ${'deals/s'.padStart(8)}  ${'lines'.padStart(8)}  ${'written'.padStart(8)}  ${'superseded'.padStart(10)}  load\n`,
  );
  const checkouts = against ? ['this', 'against'] : ['this'];
  for (const size of sizes) {
    const seconds = new Map<string, number[]>();
    for (let round = 0; round < (against ? rounds : 1); round++) {
      const order = round % 2 === 0 ? checkouts : [...checkouts].reverse();
      for (const version of order) {
        const checkout = version === 'this' ? process.cwd() : (against as string);
        for (const [name, run] of await firstAndPlanChange(databaseUrl, plan, size, checkout)) {
          line(size, name === 'floor' ? 'floor' : version, name === 'floor' ? 'rows stored' : name, run);
          const key = `${version} ${name}`;
          seconds.set(key, [...(seconds.get(key) ?? []), run.seconds]);
        }
      }
    }
    if (against) {
      for (const name of ['first', 'plan change']) {
        const total = (version: string) => (seconds.get(`${version} ${name}`) ?? []).reduce((a, b) => a + b, 0);
        process.stdout.write(
          `${String(size).padStart(8)}  ${name}: this version took ${(total('this') / total('against')).toFixed(2)}x the time of ${against}\n`,
        );
      }
    }
  }
  process.stdout.write('\n');
}

/** A new org of `size` deals with the plan, recomputed by `checkout`'s CLI, then its plan changed (10% → 12%). */
async function firstAndPlanChange(
  databaseUrl: string,
  plan: string,
  size: number,
  checkout: string,
): Promise<Array<readonly [string, RecomputeRun]>> {
  const db = createPrismaClient(databaseUrl, 2);
  const setupPool = createSqlPool(databaseUrl, 1, () => {});
  const org = await orgs.create(databaseStatements(db), `Bench recompute ${size}`);
  await benchServices(db, setupPool).admin.planAdmin.apply({ orgId: org.id, text: plan }, noPlanChanges);
  await setupPool.end();
  await db.$disconnect();
  await seedDeals(databaseUrl, org.id, size);
  const postmaster = await postmasterPid(databaseUrl);
  const first = await withCpu(postmaster, () =>
    recompute(databaseUrl, checkout, ['recompute', '--org', org.id, '--json']),
  );
  const floor =
    process.env.BENCH_RECOMPUTE_FLOOR === '0'
      ? []
      : [['floor', await withCpu(postmaster, () => storageFloor(databaseUrl, org.id))] as const];
  const changed = plan.replace('rate_bps: 1000', 'rate_bps: 1200');
  const applied = await withCpu(postmaster, () =>
    recompute(databaseUrl, checkout, ['plans', 'apply', '-', '--org', org.id, '--json'], changed),
  );
  return [['first', first], ...floor, ['plan change', applied]];
}

/**
 * The floor under a first recompute: PostgreSQL storing the rows that recompute wrote, and nothing else. The org's
 * rows are copied (untimed) into a table of their own; then, timed, two connections (one per core) insert them
 * into a new table like earnings (its eleven indexes, its storage settings, no foreign keys), half each, with one
 * INSERT … SELECT: no evaluation, no JSON, no round trip per rep, no key checks. What a recompute spends above this
 * is the engine's, the command's and the protocol's; the floor itself is the heap, the index entries and the WAL.
 */
async function storageFloor(databaseUrl: string, orgId: string): Promise<RecomputeRun> {
  const clients = [0, 1].map(() => new pg.Client({ connectionString: databaseUrl }));
  await Promise.all(clients.map((client) => client.connect()));
  const [one, two] = clients as [pg.Client, pg.Client];
  try {
    await one.query('DROP TABLE IF EXISTS bench_floor_rows, bench_floor_target');
    await one.query('CREATE UNLOGGED TABLE bench_floor_rows AS SELECT * FROM earnings WHERE org_id = $1', [orgId]);
    await one.query('CREATE TABLE bench_floor_target (LIKE earnings INCLUDING ALL)');
    await one.query('ALTER TABLE bench_floor_target SET (toast_tuple_target = 8160)');
    await one.query('CHECKPOINT');
    const start = performance.now();
    const counts = await Promise.all(
      [one, two].map((client, half) =>
        client.query('INSERT INTO bench_floor_target SELECT * FROM bench_floor_rows WHERE abs(hashtext(id)) % 2 = $1', [
          half,
        ]),
      ),
    );
    const seconds = (performance.now() - start) / 1000;
    const rows = counts.reduce((sum, result) => sum + (result.rowCount ?? 0), 0);
    return { deals: 0, reps: 0, seconds, lines_evaluated: 0, rows_written: rows, rows_superseded: 0, rows_reversed: 0 };
  } finally {
    await one.query('DROP TABLE IF EXISTS bench_floor_rows, bench_floor_target');
    await Promise.all(clients.map((client) => client.end()));
  }
}

/** The run with the CPU its command (a child of this process) and the cluster spent meanwhile. */
async function withCpu(postmaster: number, run: () => Promise<RecomputeRun>): Promise<RecomputeRun> {
  const [command, postgres] = [childrenCpuSeconds() ?? 0, clusterCpuSeconds(postmaster) ?? 0];
  const result = await run();
  return {
    ...result,
    cpu: { command: (childrenCpuSeconds() ?? 0) - command, postgres: (clusterCpuSeconds(postmaster) ?? 0) - postgres },
  };
}

async function postmasterPid(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ setting: string }>(`SELECT current_setting('data_directory') AS setting`);
    return Number(readFileSync(join(rows[0]?.setting ?? '', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } finally {
    await client.end();
  }
}

function line(size: number, version: string, name: string, run: RecomputeRun): void {
  process.stdout.write(
    `${String(size).padStart(8)}  ${version.padEnd(8)}  ${name.padEnd(12)}  ${run.seconds.toFixed(2).padStart(8)}  ${Math.round(
      size / run.seconds,
    )
      .toString()
      .padStart(
        8,
      )}  ${String(run.lines_evaluated).padStart(8)}  ${String(run.rows_written).padStart(8)}  ${String(run.rows_superseded).padStart(10)}  ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}${
      run.cpu ? `  CPU s: command ${run.cpu.command.toFixed(1)}, PostgreSQL ${run.cpu.postgres.toFixed(1)}` : ''
    }\n`,
  );
}

/** Runs the CLI command and returns its recompute summary (the document itself, or its `recompute` member). */
function recompute(databaseUrl: string, checkout: string, args: string[], stdin?: string): Promise<RecomputeRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(checkout, 'src/cli/main.ts'), ...args], {
      cwd: checkout,
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stdin.end(stdin ?? '');
    child.once('exit', (code) => {
      if (code !== 0) {
        fail(new Error(`quotient ${args.join(' ')} exited with ${code}: ${stdout}`));
        return;
      }
      const document = JSON.parse(stdout) as RecomputeRun & { recompute?: RecomputeRun };
      done(document.recompute ?? document);
    });
  });
}

/** `count` deals and their reps, inserted with a few statements of 10,000 rows each. */
export async function seedDeals(databaseUrl: string, orgId: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const reps = Array.from({ length: Math.ceil(count / DEALS_PER_REP) }, (_, index) => ({
      id: newId('user'),
      external_id: `rep-${index}`,
    }));
    await client.query(
      `INSERT INTO users (id, org_id, external_id) SELECT u.id, $1, u.external_id FROM unnest($2::text[], $3::text[]) AS u(id, external_id)`,
      [orgId, reps.map((rep) => rep.id), reps.map((rep) => rep.external_id)],
    );
    for (let start = 0; start < count; start += BATCH) {
      const deals = Array.from({ length: Math.min(BATCH, count - start) }, (_, offset) => {
        const n = start + offset;
        const rep = reps[n % reps.length] as { id: string; external_id: string };
        const kind = n % 5; // 0, 1: won; 2, 3: open; 4: lost
        const month = String((n % 12) + 1).padStart(2, '0');
        const closeDate = `2026-${month}-${String((n % 28) + 1).padStart(2, '0')}`;
        return {
          id: newId('deal'),
          external_id: `seed-${n}`,
          amount_cents: 500_000 + ((n * 7919) % 4_000_000),
          stage: kind < 2 ? 'closed_won' : kind < 4 ? 'negotiation' : 'closed_lost',
          status: kind < 2 ? 'won' : kind < 4 ? 'open' : 'lost',
          close_date: closeDate,
          won_at: kind < 2 ? `${closeDate}T12:00:00.000Z` : null,
          owner_external_id: rep.external_id,
          user_id: rep.id,
          custom: { region: ['EMEA', 'NA', 'APAC'][n % 3], new_logo: n % 7 === 0 },
        };
      });
      await client.query(
        `INSERT INTO deals (id, org_id, external_id, amount_cents, stage, status, close_date, won_at, owner_external_id,
                            user_id, custom, version, created_at, updated_at)
         SELECT d.id, $1, d.external_id, d.amount_cents, d.stage, d.status, d.close_date, d.won_at, d.owner_external_id,
                d.user_id, d.custom, 1, now(), now()
         FROM jsonb_to_recordset($2::jsonb) AS d(id text, external_id text, amount_cents bigint, stage text, status text,
              close_date date, won_at timestamptz, owner_external_id text, user_id text, custom jsonb)`,
        [orgId, JSON.stringify(deals)],
      );
    }
    await client.query('ANALYZE deals');
  } finally {
    await client.end();
  }
}
