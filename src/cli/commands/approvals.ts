import { Command } from 'commander';
import { APPROVAL_POLICIES } from '../../domain/approvals.ts';
import { Refusal } from '../../domain/refusal.ts';
import { toWireStatementApproval } from '../../wire/approvals.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

// `quotient approvals`: the org's approval policy and four-eyes payment, and where a period's statements stand
// (docs/pay-workflow.md). Approving is a rep's act (the portal, a rep token), never the CLI's.

export function approvalsCommand(): Command {
  const command = new Command('approvals').description(
    "statement approvals before pay: the org's policy, four-eyes payment, and the statements a lock waits for",
  );
  command
    .command('settings')
    .description('show or change the approval policy and four-eyes payment (audited)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--policy <policy>', APPROVAL_POLICIES.join(' | '))
    .option('--four-eyes <on|off>', 'marking a period paid takes a second, different admin')
    .option('--wait-for-acceptance <on|off>', 'pay waits for reps to accept their plans (docs/plan-acceptance.md)')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(
      async (options: {
        org: string;
        policy?: string;
        fourEyes?: string;
        waitForAcceptance?: string;
        json?: boolean;
      }) => {
        try {
          for (const [flag, value] of [
            ['--four-eyes', options.fourEyes],
            ['--wait-for-acceptance', options.waitForAcceptance],
          ] as const) {
            if (value !== undefined && value !== 'on' && value !== 'off') {
              throw new Refusal('invalid_body', `${flag} must be on or off, not ${JSON.stringify(value)}`);
            }
          }
          const change = {
            ...(options.policy === undefined ? {} : { statement_approval_policy: options.policy }),
            ...(options.fourEyes === undefined ? {} : { four_eyes_payment: options.fourEyes === 'on' }),
            ...(options.waitForAcceptance === undefined
              ? {}
              : { pay_waits_for_acceptance: options.waitForAcceptance === 'on' }),
          };
          const settings = await withAdminServices((services) =>
            Object.keys(change).length === 0
              ? services.approvals.settings(options.org)
              : services.approvals.updateSettings(options.org, change),
          );
          print(
            options,
            settings,
            () =>
              `Approval policy: ${settings.statement_approval_policy}; four-eyes payment: ${settings.four_eyes_payment ? 'on' : 'off'}; pay waits for acceptance: ${settings.pay_waits_for_acceptance ? 'on' : 'off'}`,
          );
        } catch (error) {
          printFailure(options, error);
        }
      },
    );
  command
    .command('list')
    .description('every statement of the period that pays something, and where its approval stands')
    .argument('<period>', 'the period: YYYY-MM or YYYY-Qn')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (periodId: string, options: { org: string; json?: boolean }) => {
      try {
        const views = await withAdminServices((services) => services.approvals.ofPeriod(options.org, periodId));
        const statements = views.map(toWireStatementApproval);
        print(options, { period_id: periodId, statements }, () =>
          table(
            statements.map((each) => ({
              ...each,
              reset: each.steps.some((step) => step.difference !== null) ? 'yes' : '',
            })),
            ['user_external_id', 'payable_cents', 'policy', 'state', 'reset'],
          ),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  return command;
}
