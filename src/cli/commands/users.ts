import { Command } from 'commander';
import type { ManagerEntry, SetManagerResult } from '../../services/repHierarchy.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';
import { describeRecompute } from './recompute.ts';

export function usersCommand(): Command {
  const users = new Command('users').description(
    "the rep hierarchy that manager overrides read (a rep's manager from a day on), and leavers and returners",
  );
  users
    .command('set-manager')
    .description(
      "from a day on (--from, default today UTC), the rep's manager is <manager>, or nobody with --none. Earlier days " +
        "keep the manager they had; setting the same rep and day again replaces that day's entry. Reps are created on " +
        'first sight. Then the override earnings the change moves are recomputed; in a locked period the difference is ' +
        'booked in the next open one. A change that would make anyone their own manager is refused.',
    )
    .argument('<rep>', "the rep's external id (owner_external_id)")
    .argument('[manager]', "the manager's external id; leave out with --none")
    .requiredOption('--org <org_id>', 'the org')
    .option('--from <date>', 'the first day (YYYY-MM-DD) the manager applies')
    .option('--none', 'the rep has no manager from that day on')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async function (
      this: Command,
      rep: string,
      manager: string | undefined,
      options: { org: string; from?: string; none?: boolean; json?: boolean },
    ) {
      if ((manager === undefined) === (options.none !== true)) {
        this.error('error: give either <manager> or --none');
      }
      try {
        const result = await withAdminServices((services) =>
          services.repHierarchy.setManager({
            orgId: options.org,
            repExternalId: rep,
            managerExternalId: manager ?? null,
            ...(options.from === undefined ? {} : { from: options.from }),
          }),
        );
        print(options, result, () => describeSetManager(result));
      } catch (error) {
        printFailure(options, error);
      }
    });
  users
    .command('managers')
    .description("list the rep hierarchy: each rep's manager entries, by rep and day")
    .requiredOption('--org <org_id>', 'the org')
    .option('--rep <rep>', "only this rep's entries (external id)")
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; rep?: string; json?: boolean }) => {
      try {
        const entries = await withAdminServices((services) => services.repHierarchy.list(options.org, options.rep));
        print(options, { managers: entries }, () => describeEntries(entries));
      } catch (error) {
        printFailure(options, error);
      }
    });
  users
    .command('deactivate')
    .description(
      'a rep leaves: their last day is --leaving-date; at once their portal sessions end, their rep tokens are ' +
        'revoked and sign-in is refused; their history stays (docs/reps-and-payroll.md, "Leavers and returners")',
    )
    .argument('<rep>', "the rep's external id, or their user id (user_…)")
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--leaving-date <date>', "the rep's last day (YYYY-MM-DD)")
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (rep: string, options: { org: string; leavingDate: string; json?: boolean }) => {
      try {
        const result = await withAdminServices(async (services) => {
          const found = await services.reps.findByIdOrExternalId(options.org, rep);
          return services.repDepartures.deactivate(options.org, found.id, options.leavingDate);
        });
        print(options, result, () =>
          result.changed
            ? `${result.rep_external_id} is deactivated, leaving on ${result.leaving_date}: ${result.sessions_ended} portal session(s) ended, ${result.tokens_revoked} rep token(s) revoked`
            : `${result.rep_external_id} was already deactivated, leaving on ${result.leaving_date}; nothing changed`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  users
    .command('reactivate')
    .description('a rep returns: they can sign in again, with their history')
    .argument('<rep>', "the rep's external id, or their user id (user_…)")
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (rep: string, options: { org: string; json?: boolean }) => {
      try {
        const result = await withAdminServices(async (services) => {
          const found = await services.reps.findByIdOrExternalId(options.org, rep);
          return services.repDepartures.reactivate(options.org, found.id);
        });
        print(options, result, () =>
          result.changed
            ? `${result.rep_external_id} is active again`
            : `${result.rep_external_id} is active; nothing changed`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  return users;
}

function describeEntries(entries: readonly ManagerEntry[]): string {
  return table(
    entries.map((entry) => ({ ...entry, manager_external_id: entry.manager_external_id ?? '(none)' })),
    ['rep_external_id', 'manager_external_id', 'from', 'updated_at'],
  );
}

function describeSetManager(result: SetManagerResult): string {
  const who = result.manager_external_id === null ? 'no manager' : `manager ${result.manager_external_id}`;
  if (!result.changed) return `${result.rep_external_id} already has ${who} from ${result.from}; nothing changed`;
  return [
    `${result.rep_external_id} has ${who} from ${result.from}.`,
    '',
    describeEntries(result.entries),
    ...(result.recompute ? ['', describeRecompute(result.recompute)] : []),
  ].join('\n');
}
