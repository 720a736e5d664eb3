import { Command } from 'commander';
import { formatMinorUnits } from '../../domain/currencies.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { PeriodRecord } from '../../repositories/periods.ts';
import type { PeriodAdmin, PeriodChangeResult } from '../../services/periods.ts';
import { payoutsCsv } from '../../wire/payouts.ts';
import { toWirePeriodWithTimes } from '../../wire/periods.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

export function periodsCommand(): Command {
  const periods = new Command('periods').description(
    'list compensation periods, lock them, reopen them and mark them paid',
  );
  periods
    .command('list')
    .description('list the periods of an org, oldest first')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; json?: boolean }) => {
      try {
        const list = await withAdminServices((services) => services.periods.list(options.org));
        const rows = list.map(toWirePeriodWithTimes);
        print(options, { periods: rows }, () =>
          table(rows, ['id', 'kind', 'starts_on', 'ends_on', 'status', 'locked_at', 'paid_at']),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  periods
    .command('board')
    .description("a period's sign-off board: every paying statement, its approval step and whom it waits on")
    .argument('<period_id>', 'the period, e.g. 2026-04 or 2026-Q2')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (periodId: string, options: { org: string; json?: boolean }) => {
      try {
        const board = await withAdminServices((services) => services.signOff.board(options.org, periodId));
        print(options, board, () => {
          const statements = board.statements.map((statement) => ({
            rep: statement.display_name ?? statement.user_external_id,
            external_id: statement.user_external_id,
            state: statement.approval.state,
            waiting_on: statement.waiting_on.map((person) => person.display_name ?? person.external_id).join(', '),
            waiting_since: statement.waiting_since ?? '',
            payable: statement.currencies
              .map((money) => formatMinorUnits(money.payable_cents, money.currency))
              .join(', '),
          }));
          const totals = board.totals.map((total) => ({
            currency: total.currency,
            earnings: formatMinorUnits(total.earnings_cents, total.currency),
            adjustments: formatMinorUnits(total.adjustments_cents, total.currency),
            payable: formatMinorUnits(total.payable_cents, total.currency),
          }));
          const request = board.payment_request
            ? `Payment requested by ${board.payment_request.requested_by} at ${board.payment_request.requested_at}`
            : 'No payment request pending';
          return [
            `Period ${board.period_id} (${board.status}), approvals: ${board.policy}`,
            table(statements, ['rep', 'external_id', 'state', 'waiting_on', 'waiting_since', 'payable']),
            table(totals, ['currency', 'earnings', 'adjustments', 'payable']),
            request,
          ].join('\n\n');
        });
      } catch (error) {
        printFailure(options, error);
      }
    });
  periods.addCommand(
    transitionCommand({
      name: 'lock',
      description: 'lock a period (open → locked): pending earnings become approved and their amounts are frozen',
      move: (admin, orgId, periodId, options) =>
        admin.lock(
          orgId,
          periodId,
          undefined,
          options.overrideReason === undefined ? {} : { overrideReason: options.overrideReason },
        ),
      options: [
        [
          '--override-reason <text>',
          'lock although statements wait for approval or the period has not ended, and why (audited)',
        ],
      ],
      done: (period) => `Locked period ${period.id} (${period.starts_on} to ${period.ends_on})`,
      unchanged: (period) =>
        `Period ${period.id} was already locked (at ${period.locked_at?.toISOString()}); nothing changed`,
    }),
  );
  periods.addCommand(
    transitionCommand({
      name: 'reopen',
      description:
        'reopen a locked, unpaid period (locked → open) with a reason: approved earnings become pending, approvals reset',
      move: (admin, orgId, periodId, options) => admin.reopen(orgId, periodId, options.reason ?? ''),
      requiredOptions: [['--reason <text>', 'why the period is reopened (audited and sent with period.reopened)']],
      done: (period) => `Reopened period ${period.id} (${period.starts_on} to ${period.ends_on})`,
      unchanged: (period) => `Period ${period.id} is open; nothing changed`,
    }),
  );
  periods.addCommand(
    transitionCommand({
      name: 'mark-paid',
      description: 'mark a locked period paid (locked → paid): its approved earnings become paid',
      move: (admin, orgId, periodId) => admin.markPaid(orgId, periodId),
      done: (period) => `Marked period ${period.id} paid`,
      unchanged: (period) =>
        `Period ${period.id} was already paid (at ${period.paid_at?.toISOString()}); nothing changed`,
    }),
  );
  periods
    .command('export')
    .description(
      "print every rep's payout of a locked period for payroll (approved and paid totals net of clawbacks, in cents), as GET /v1/payouts does",
    )
    .argument('<period>', 'the period: YYYY-MM (a month) or YYYY-Qn (a quarter)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--format <format>', 'csv (one row per rep and currency, with a header) or json', 'csv')
    .option('--json', 'print exactly one JSON document on stdout (the same as --format json)')
    .action(async (periodId: string, options: { org: string; format: string; json?: boolean }) => {
      const json = options.json === true || options.format === 'json';
      try {
        if (options.format !== 'csv' && options.format !== 'json') {
          throw new Refusal('invalid_body', `--format must be csv or json, not ${JSON.stringify(options.format)}`);
        }
        const exported = await withAdminServices((services) => services.periods.payouts(options.org, periodId));
        print({ json }, { period: exported.period, payouts: exported.payouts }, () => payoutsCsv(exported.payouts));
      } catch (error) {
        printFailure({ json }, error);
      }
    });
  return periods;
}

/** `periods lock` and `periods mark-paid`: one status move of one period, reported the same way. */
function transitionCommand(spec: {
  name: string;
  description: string;
  move: (
    admin: PeriodAdmin,
    orgId: string,
    periodId: string,
    options: { overrideReason?: string; reason?: string },
  ) => Promise<PeriodChangeResult>;
  options?: Array<[string, string]>;
  requiredOptions?: Array<[string, string]>;
  done: (period: PeriodRecord) => string;
  unchanged: (period: PeriodRecord) => string;
}): Command {
  const command = new Command(spec.name)
    .description(spec.description)
    .argument('<period>', 'the period: YYYY-MM (a month) or YYYY-Qn (a quarter)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout');
  for (const [flags, description] of spec.options ?? []) command.option(flags, description);
  for (const [flags, description] of spec.requiredOptions ?? []) command.requiredOption(flags, description);
  return command.action(
    async (periodId: string, options: { org: string; json?: boolean; overrideReason?: string; reason?: string }) => {
      try {
        const { period, changed, rows_moved, payment_request, reopen_request } = await withAdminServices((services) =>
          spec.move(services.periods, options.org, periodId, options),
        );
        const request = payment_request
          ? { requested_by: payment_request.requested_by, requested_at: payment_request.requested_at.toISOString() }
          : null;
        const reopening = reopen_request
          ? {
              reason: reopen_request.reason,
              requested_by: reopen_request.requested_by,
              requested_at: reopen_request.requested_at.toISOString(),
            }
          : null;
        print(
          options,
          {
            ...toWirePeriodWithTimes(period),
            changed,
            rows_moved,
            ...(request ? { payment_request: request } : {}),
            ...(reopening ? { reopen_request: reopening } : {}),
          },
          () =>
            request
              ? `Payment of ${period.id} requested by ${request.requested_by}: four-eyes payment needs a second admin to confirm it`
              : reopening
                ? `Reopening of ${period.id} requested by ${reopening.requested_by}: four-eyes needs a second admin to confirm it`
                : changed
                  ? `${spec.done(period)} (${rows_moved} earnings rows moved)`
                  : spec.unchanged(period),
        );
      } catch (error) {
        printFailure(options, error);
      }
    },
  );
}
