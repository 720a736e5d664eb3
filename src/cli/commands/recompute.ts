import { Command } from 'commander';
import type { RecomputeSummary } from '../../services/earnings/planRecompute.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure } from '../output.ts';

export function recomputeCommand(): Command {
  return new Command('recompute')
    .description(
      "recompute earnings in open periods, and the forecasts of open deals in every period, with each plan's " +
        'version in force (all plans of the org, or one); ' +
        'archived plans have their projected rows reversed. Safe to repeat: lines already right are left alone.',
    )
    .requiredOption('--org <org_id>', 'the org')
    .option('--plan <plan_id>', 'only this plan')
    .option('--json', 'print exactly one JSON document on stdout (the progress bar still goes to a terminal stderr)')
    .action(async (options: { org: string; plan?: string; json?: boolean }) => {
      try {
        const summary = await withAdminServices((services) =>
          services.recompute.run({
            orgId: options.org,
            ...(options.plan === undefined ? {} : { planIds: [options.plan] }),
          }),
        );
        print(options, summary, () => describeRecompute(summary));
      } catch (error) {
        printFailure(options, error);
      }
    });
}

export function describeRecompute(summary: RecomputeSummary): string {
  return (
    `Recomputed ${summary.lines_evaluated} lines of ${summary.reps} reps (${summary.deals} deals) in ` +
    `${summary.seconds} s: ${summary.rows_written} rows written, ${summary.rows_superseded} superseded, ` +
    `${summary.rows_reversed} reversed`
  );
}
