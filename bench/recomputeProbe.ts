import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openEmbeddedDatabase } from '../src/db/embedded.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { runProgram } from '../test/helpers/cli.ts';
import { childrenCpuSeconds, clusterCpuSeconds } from './cpu.ts';
import { orgWithExamplePlan } from './quotientProcess.ts';
import { seedDeals } from './recompute.ts';
import { printTopStatements } from './statements.ts';

// Where a recompute's time goes (`node bench/recomputeProbe.ts`): bench/recompute.ts's org of PROBE_DEALS (100,000)
// deals, 200 per rep, with the four-chip plan, on a throwaway embedded PostgreSQL with pg_stat_statements; then the
// first `quotient recompute` and a plan change (10% → 12%), each with its wall time, the CPU of the command and of
// the cluster (every PostgreSQL process: backends, checkpointer, WAL writer), and the statements by total time.
// PROBE_AGAINST=<checkout> runs that checkout's command too, on an org of its own, alternating for PROBE_ROUNDS (2)
// rounds, the order flipped every round, so that CPU per deal can be compared on a busy machine.
// PROBE_CPU_PROF=DIR writes the commands' CPU profiles there.
// PROBE_PG_SETTINGS="name=value …" starts the cluster with more settings (auto_explain, say), and PROBE_KEEP=1 keeps
// its directory (and its postgres.log) instead of removing it.

const deals = Number(process.env.PROBE_DEALS ?? 100_000);
const against = process.env.PROBE_AGAINST;
const rounds = against ? Number(process.env.PROBE_ROUNDS ?? 2) : 1;
const dataDir = await mkdtemp(join(tmpdir(), 'quotient-recompute-probe-'));
await chmod(dataDir, 0o755);
const database = await openEmbeddedDatabase(dataDir, {
  extraFlags: [
    '-c',
    'shared_preload_libraries=pg_stat_statements',
    '-c',
    'pg_stat_statements.track=all',
    ...(process.env.PROBE_PG_SETTINGS ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .flatMap((s) => ['-c', s]),
  ],
});
const admin = new pg.Pool({ connectionString: database.url, max: 1 });
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
try {
  await applyMigrations(database.url);
  await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const plan = await readFile(new URL('../examples/plans/core-ae.yaml', import.meta.url), 'utf8');
  const changed = join(dataDir, 'changed.yaml');
  await writeFile(changed, plan.replace('rate_bps: 1000', 'rate_bps: 1200'));
  const totals = new Map<string, { wall: number; command: number; cluster: number }>();
  for (let round = 0; round < rounds; round++) {
    const checkouts = against ? [process.cwd(), against] : [process.cwd()];
    for (const checkout of round % 2 === 0 ? checkouts : checkouts.reverse()) {
      const version = checkout === process.cwd() ? 'this' : 'against';
      const { orgId } = await orgWithExamplePlan(database.url, `Probe recompute ${round} ${version}`);
      await seedDeals(database.url, orgId, deals);
      for (const [name, args] of [
        ['first', ['recompute', '--org', orgId, '--json']],
        ['plan change', ['plans', 'apply', changed, '--org', orgId, '--json']],
      ] as const) {
        await admin.query('CHECKPOINT');
        await admin.query('SELECT pg_stat_statements_reset()');
        const [cli, cluster] = [childrenCpuSeconds() ?? 0, clusterCpuSeconds(postmaster) ?? 0];
        const load = loadavg();
        const start = performance.now();
        const profile = process.env.PROBE_CPU_PROF;
        const run = await runProgram(join(checkout, 'bin/quotient.js'), [...args], {
          ...process.env,
          DATABASE_URL: database.url,
          LOG_LEVEL: 'warn',
          ...(profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profile}` } : {}),
        });
        const wall = (performance.now() - start) / 1000;
        if (run.code !== 0) throw new Error(`${name} failed: ${run.stdout}${run.stderr}`);
        const command = (childrenCpuSeconds() ?? 0) - cli;
        const clusterCpu = (clusterCpuSeconds(postmaster) ?? 0) - cluster;
        const key = `${version} ${name}`;
        const total = totals.get(key) ?? { wall: 0, command: 0, cluster: 0 };
        totals.set(key, {
          wall: total.wall + wall,
          command: total.command + command,
          cluster: total.cluster + clusterCpu,
        });
        const summary = JSON.parse(run.stdout) as Record<string, unknown> & { recompute?: Record<string, unknown> };
        const counts = summary.recompute ?? summary;
        process.stdout.write(
          `${version} ${name}, ${deals} deals: ${wall.toFixed(1)} s; CPU s: command ${command.toFixed(1)}, ` +
            `PostgreSQL ${clusterCpu.toFixed(1)}; load ${load} → ${loadavg()}; ${counts.rows_written} written, ` +
            `${counts.rows_superseded} superseded\n`,
        );
        await printTopStatements(admin, 8, 110);
      }
    }
  }
  if (against) {
    for (const name of ['first', 'plan change']) {
      const mine = totals.get(`this ${name}`);
      const theirs = totals.get(`against ${name}`);
      if (!mine || !theirs) continue;
      process.stdout.write(
        `${name}: this / against: wall ${(mine.wall / theirs.wall).toFixed(2)}x, command CPU ${(mine.command / theirs.command).toFixed(2)}x, PostgreSQL CPU ${(mine.cluster / theirs.cluster).toFixed(2)}x\n`,
      );
    }
  }
} finally {
  await admin.end();
  await database.stop();
  if (!process.env.PROBE_KEEP) await rm(dataDir, { recursive: true, force: true });
}
