import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createPrismaClient } from '../src/db/prisma.ts';
import * as orgs from '../src/repositories/orgs.ts';
import { createSqlPool, databaseStatements } from '../src/repositories/transaction.ts';
import { noPlanChanges } from './listeners.ts';
import { seedDeals } from './recompute.ts';
import { benchServices } from './services.ts';

// A plan scenario against a recompute of the same deals (docs/scenarios.md; issue 41's goal: ≤ 1.2× the recompute's
// time). Per size and round, a new org with product.md's four-chip plan and that many deals (bench/recompute.ts
// seedDeals: 200 per rep over the 12 months of 2026), then, in the same run and alternating which goes first, the
// first `quotient recompute` of the org and `quotient plans simulate` of the plan with a 12% base over 2026-01 to
// 2026-11, each run as a user runs it. Prints each time and the scenario's over the recompute's, summed over rounds.

const EXAMPLE_PLAN = new URL('../examples/plans/core-ae.yaml', import.meta.url);

export async function benchScenario(
  databaseUrl: string,
  sizes: readonly number[],
  rounds = Number(process.env.BENCH_SCENARIO_ROUNDS ?? 2),
): Promise<void> {
  const plan = await readFile(EXAMPLE_PLAN, 'utf8');
  const draft = plan.replace('rate_bps: 1000', 'rate_bps: 1200');
  process.stdout.write(`plan scenario vs recompute of the same deals, ${rounds} rounds alternating\n`);
  for (const size of sizes) {
    const totals = { recompute: 0, scenario: 0 };
    for (let round = 0; round < rounds; round++) {
      const db = createPrismaClient(databaseUrl, 2);
      const setupPool = createSqlPool(databaseUrl, 1, () => {});
      const org = await orgs.create(databaseStatements(db), `Bench scenario ${size} ${round}`);
      await benchServices(db, setupPool).admin.planAdmin.apply({ orgId: org.id, text: plan }, noPlanChanges);
      await setupPool.end();
      await db.$disconnect();
      await seedDeals(databaseUrl, org.id, size);
      const runs = {
        recompute: () => timed(databaseUrl, ['recompute', '--org', org.id, '--json']),
        scenario: () =>
          timed(
            databaseUrl,
            ['plans', 'simulate', '-', '--org', org.id, '--from', '2026-01', '--to', '2026-11', '--json'],
            draft,
          ),
      };
      const order = round % 2 === 0 ? (['recompute', 'scenario'] as const) : (['scenario', 'recompute'] as const);
      for (const name of order) {
        const seconds = await runs[name]();
        totals[name] += seconds;
        process.stdout.write(
          `${String(size).padStart(8)}  round ${round}  ${name.padEnd(9)}  ${seconds.toFixed(2)} s\n`,
        );
      }
    }
    process.stdout.write(
      `${String(size).padStart(8)}  the scenario took ${(totals.scenario / totals.recompute).toFixed(2)}x the time of the recompute\n`,
    );
  }
}

/** Wall seconds of `quotient …args` in a process of its own; its stdout must be one JSON document. */
function timed(databaseUrl: string, args: string[], stdin?: string): Promise<number> {
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(process.cwd(), 'src/cli/main.ts'), ...args], {
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
        fail(new Error(`quotient ${args.join(' ')} exited with ${code}: ${stdout.slice(0, 500)}`));
        return;
      }
      JSON.parse(stdout);
      done((performance.now() - started) / 1000);
    });
  });
}
