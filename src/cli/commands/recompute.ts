import { Command } from 'commander';
import type { OpenDatabase } from '../../db/database.ts';
import type { TraceReplacement } from '../../domain/earnings/types.ts';
import { OrgRepository } from '../../repositories/orgs.ts';
import { createSqlPool } from '../../repositories/transaction.ts';
import { AdminError } from '../../services/adminError.ts';
import { EarningsEngine } from '../../services/earnings/engine.ts';
import type { RecomputeProgress, RecomputeSummary } from '../../services/earnings/recompute.ts';
import { adminLogger, withDatabase } from '../context.ts';
import { print, printFailure } from '../output.ts';

// Reps recomputed at once, each in its own transaction on its own connection.
const CONCURRENCY = 4;

export function recomputeCommand(): Command {
  return new Command('recompute')
    .description(
      "recompute earnings in open periods with each plan's version in force (all plans of the org, or one); " +
        'archived plans have their projected rows reversed. Safe to repeat: lines already right are left alone.',
    )
    .requiredOption('--org <org_id>', 'the org')
    .option('--plan <plan_id>', 'only this plan')
    .option('--json', 'print exactly one JSON document on stdout (the progress bar still goes to a terminal stderr)')
    .action(async (options: { org: string; plan?: string; json?: boolean }) => {
      try {
        const summary = await withDatabase(async (database) => {
          if (!(await new OrgRepository(database.db).find(options.org))) {
            throw new AdminError('not_found', `no org ${options.org}`);
          }
          const planIds = options.plan === undefined ? undefined : [options.plan];
          return recomputeEarnings(database, new EarningsEngine(database.db), options.org, planIds);
        });
        print(options, summary, () => describeRecompute(summary));
      } catch (error) {
        printFailure(options, error);
      }
    });
}

/**
 * Runs the engine's recompute with a pool of its own and, on a terminal, a progress bar on stderr. A plan id
 * the org does not have is `not_found`.
 */
export async function recomputeEarnings(
  database: OpenDatabase,
  engine: EarningsEngine,
  orgId: string,
  planIds?: readonly string[],
  reason?: TraceReplacement,
): Promise<RecomputeSummary> {
  const logger = adminLogger();
  const pool = createSqlPool(database.url, CONCURRENCY + 1, (error) => {
    logger.warn({ err: error }, 'an idle database connection of the recompute pool failed');
  });
  const bar = process.stderr.isTTY ? progressBar(process.stderr) : undefined;
  try {
    const summary = await engine.recompute(pool, {
      orgId,
      ...(planIds === undefined ? {} : { planIds }),
      concurrency: CONCURRENCY,
      ...(reason ? { reason } : {}),
      ...(bar ? { onProgress: bar.update } : {}),
    });
    const missing = (planIds ?? []).filter((planId) => !summary.plan_ids.includes(planId));
    if (missing.length > 0) throw new AdminError('not_found', `org ${orgId} has no plan ${missing.join(', ')}`);
    return summary;
  } finally {
    bar?.done();
    await pool.end();
  }
}

export function describeRecompute(summary: RecomputeSummary): string {
  return (
    `Recomputed ${summary.lines_evaluated} lines of ${summary.reps} reps (${summary.deals} deals) in ` +
    `${summary.seconds} s: ${summary.rows_written} rows written, ${summary.rows_superseded} superseded, ` +
    `${summary.rows_reversed} reversed`
  );
}

/** `[#########...........]  45%  450/1000 reps  12,345 deals  3.2 s`, redrawn in place. */
function progressBar(stream: NodeJS.WriteStream) {
  const started = performance.now();
  const width = 30;
  let drawn = false;
  return {
    update: (progress: RecomputeProgress) => {
      const ratio = progress.reps_total === 0 ? 1 : progress.reps_done / progress.reps_total;
      const filled = Math.round(ratio * width);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      stream.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}%  ` +
          `${progress.reps_done}/${progress.reps_total} reps  ${progress.deals.toLocaleString('en-US')} deals  ${seconds} s`,
      );
      drawn = true;
    },
    done: () => {
      if (drawn) stream.write('\n');
    },
  };
}
