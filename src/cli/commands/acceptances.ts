import { Command } from 'commander';
import { Refusal } from '../../domain/refusal.ts';
import { toWirePlanAcceptance, toWirePlanVersionAcceptances } from '../../wire/planAcceptances.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

// `quotient acceptances`: who has and has not accepted a plan version, and reminding a rep, as the console's
// acceptance page does (docs/plan-acceptance.md). The actor is `cli`, audited like every admin command.

interface OrgOptions {
  org: string;
  json?: boolean;
}

export function acceptancesCommand(): Command {
  const acceptances = new Command('acceptances').description(
    "reps' acceptance of their plans: who has and has not accepted a version, reminders",
  );
  acceptances
    .command('list')
    .description("list a plan version's acceptances (the plan's current version unless --version), waiting first")
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--plan <plan_id>', 'the plan')
    .option('--version <version_id>', 'a version of the plan (pv_...)')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: OrgOptions & { plan: string; version?: string }) => {
      try {
        const view = await withAdminServices((services) =>
          services.planAcceptances.ofVersion(options.org, options.plan, options.version),
        );
        if (!view) {
          throw new Refusal(
            'not_found',
            options.version === undefined
              ? `no plan ${options.plan}`
              : `no version ${options.version} of plan ${options.plan}`,
          );
        }
        const wire = toWirePlanVersionAcceptances(view);
        print(options, wire, () =>
          [
            `${wire.plan_name} (${wire.plan_id}) version ${wire.plan_version}: ${wire.accepted_count} accepted, ${wire.waiting_count} waiting`,
            table(
              wire.acceptances.map((entry) => ({
                id: entry.plan_acceptance.id,
                rep: entry.user_name,
                state: entry.plan_acceptance.state,
                requested_at: entry.plan_acceptance.requested_at,
                reminded_at: entry.plan_acceptance.reminded_at,
                accepted_at: entry.plan_acceptance.accepted_at,
              })),
              ['id', 'rep', 'state', 'requested_at', 'reminded_at', 'accepted_at'],
            ),
          ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  acceptances
    .command('remind')
    .description('remind the rep to accept (plan.acceptance_requested again); at most once an hour')
    .argument('<acceptance_id>', 'the acceptance (pac_...)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (id: string, options: OrgOptions) => {
      try {
        const reminded = await withAdminServices((services) => services.planAcceptances.remind(options.org, id));
        const wire = toWirePlanAcceptance(reminded);
        print(
          options,
          wire,
          () => `reminded ${wire.user_external_id} to accept ${wire.plan_name} version ${wire.plan_version}`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  acceptances
    .command('request')
    .description(
      "ask the reps of the plan's current version who were not asked yet (new reps are asked as they are created; " +
        'this catches one created during the apply, or after a version applied before that was so)',
    )
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--plan <plan_id>', 'the plan')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: OrgOptions & { plan: string }) => {
      try {
        const asked = await withAdminServices((services) =>
          services.planAcceptances.requestCurrent(options.org, options.plan),
        );
        if (asked === null) throw new Refusal('not_found', `no plan ${options.plan}`);
        print(options, { asked }, () => `asked ${asked} rep${asked === 1 ? '' : 's'} to accept`);
      } catch (error) {
        printFailure(options, error);
      }
    });
  return acceptances;
}
