import { Command } from 'commander';
import { stringify } from 'yaml';
import { addMonths } from '../../domain/accounting/months.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { MonthRange } from '../../services/accounting.ts';
import {
  journalCsv,
  rollForwardCsv,
  toWireAccountingPolicyVersion,
  toWireJournal,
  toWireRollForward,
  toWireSchedules,
  toWireWaterfall,
  waterfallCsv,
} from '../../wire/accounting.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure } from '../output.ts';
import { formatOf, readPlanText } from './plans.ts';

// `quotient accounting`: commission expense accounting (docs/accounting.md). The reports print the admin API's
// documents: CSV by default, JSON with --format json (or --json).

interface ReportOptions {
  org: string;
  month?: string;
  from?: string;
  to?: string;
  format: string;
  json?: boolean;
}

export function accountingCommand(): Command {
  const accounting = new Command('accounting').description(
    'commission expense accounting (ASC 340-40 / IFRS 15): the policy file, roll-forward, waterfall, journal entries and closed months',
  );
  const policy = new Command('policy').description('the accounting policy file (policy as code)');
  policy
    .command('apply')
    .description(
      'apply an accounting policy file (YAML or JSON, see schemas/accounting-policy.schema.json): a new version ' +
        'when the content changed, nothing when it did not. A bad file is refused with every problem listed.',
    )
    .argument('<file>', 'the policy file (.yaml, .yml or .json; - reads YAML or JSON from stdin)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (file: string, options: { org: string; json?: boolean }) => {
      try {
        const text = await readPlanText(file);
        const { version, changed } = await withAdminServices((services) =>
          services.accounting.applyPolicy({ orgId: options.org, text, format: formatOf(file), source: file }),
        );
        print(options, { ...toWireAccountingPolicyVersion(version), changed }, () =>
          changed
            ? `Applied ${file}: accounting policy version ${version.number} (${version.id}).`
            : `${file} matches accounting policy version ${version.number}; nothing changed.`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  policy
    .command('show')
    .description('print the accounting policy in force, normalised (defaults filled in)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; json?: boolean }) => {
      try {
        const version = await withAdminServices((services) => services.accounting.currentPolicy(options.org));
        print(options, toWireAccountingPolicyVersion(version), () =>
          `# version ${version.number} (${version.id}), applied ${version.created_at}\n${stringify(version.policy)}`.trimEnd(),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  accounting.addCommand(policy);

  reportCommand(
    accounting,
    'rollforward',
    'the deferred commission asset month by month (opening, additions, amortisation, impairments, closing)',
  ).action(async (options: ReportOptions) => {
    await report(options, async (range) => {
      const document = toWireRollForward(
        await withAdminServices((services) => services.accounting.rollForward(options.org, range)),
      );
      return { document, csv: rollForwardCsv(document) };
    });
  });
  reportCommand(
    accounting,
    'waterfall',
    'the expense each deal or rep recognises per month (--month alone: twelve months from it)',
  )
    .option('--by <rows>', 'rows per deal or per rep', 'deal')
    .action(async (options: ReportOptions & { by: string }) => {
      await report(
        options,
        async (range) => {
          if (options.by !== 'deal' && options.by !== 'rep') {
            throw new Refusal('invalid_body', `--by must be deal or rep, not ${JSON.stringify(options.by)}`);
          }
          const by = options.by;
          const document = toWireWaterfall(
            await withAdminServices((services) => services.accounting.waterfall(options.org, by, range)),
          );
          return { document, csv: waterfallCsv(document) };
        },
        12,
      );
    });
  reportCommand(
    accounting,
    'journal',
    'the journal entries of each month, one per kind, each balanced, per GL account',
  ).action(async (options: ReportOptions) => {
    await report(options, async (range) => {
      const document = toWireJournal(
        await withAdminServices((services) => services.accounting.journal(options.org, range)),
      );
      return { document, csv: journalCsv(document) };
    });
  });
  accounting
    .command('schedule')
    .description(
      "print each capitalised line's schedule of a deal or a rep, month by month, with the trace of every figure",
    )
    .requiredOption('--org <org_id>', 'the org')
    .option('--deal <external_id>', "the deal's external id")
    .option('--rep <external_id>', "the rep's external id (with --deal: the rep's lines on the deal)")
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; deal?: string; rep?: string; json?: boolean }) => {
      try {
        const of = {
          ...(options.deal === undefined ? {} : { deal: options.deal }),
          ...(options.rep === undefined ? {} : { rep: options.rep }),
        };
        const document = toWireSchedules(
          await withAdminServices((services) => services.accounting.schedules(options.org, of)),
        );
        print(options, document, () =>
          document.schedules.length === 0
            ? `No capitalisable commission${options.deal === undefined ? '' : ` on deal ${options.deal}`}${options.rep === undefined ? '' : ` of rep ${options.rep}`}.`
            : document.schedules
                .map((schedule) =>
                  [
                    `${schedule.plan_key}/${schedule.chip_key} for ${schedule.user_external_id} (line ${schedule.line_key}): ${schedule.treatment}, ${schedule.capitalised_cents} ${document.currency} minor units`,
                    ...schedule.months.map(
                      (month) =>
                        `  ${month.month}  opening ${month.opening_cents}  additions ${month.additions_cents}  amortisation ${month.amortisation_cents}  impairment ${month.impairment_cents}  expensed ${month.expensed_cents}  closing ${month.closing_cents}\n${month.trace.map((line) => `      ${line}`).join('\n')}`,
                    ),
                  ].join('\n'),
                )
                .join('\n\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  accounting
    .command('close')
    .description(
      'close an accounting month (and the open months before it) once it has ended: its figures never change again; later changes land in the next open month',
    )
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--month <month>', 'the month, YYYY-MM')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; month: string; json?: boolean }) => {
      try {
        const closed = await withAdminServices((services) => services.accounting.close(options.org, options.month));
        print(options, closed, () => `Closed ${closed.months.join(', ')} at ${closed.closed_at}.`);
      } catch (error) {
        printFailure(options, error);
      }
    });
  return accounting;
}

function reportCommand(parent: Command, name: string, description: string): Command {
  return parent
    .command(name)
    .description(description)
    .requiredOption('--org <org_id>', 'the org')
    .option('--month <month>', 'one month, YYYY-MM (the same as --from and --to)')
    .option('--from <month>', 'the first month, YYYY-MM')
    .option('--to <month>', 'the last month, YYYY-MM (default: --from)')
    .option('--format <format>', 'csv (with a header) or json', 'csv')
    .option('--json', 'print exactly one JSON document on stdout (the same as --format json)');
}

/** Reads the months and the format, runs the report and prints it as CSV or JSON. */
async function report(
  options: ReportOptions,
  run: (range: MonthRange) => Promise<{ document: unknown; csv: string }>,
  monthsFromOne = 1,
): Promise<void> {
  const json = options.json === true || options.format === 'json';
  try {
    if (options.format !== 'csv' && options.format !== 'json') {
      throw new Refusal('invalid_body', `--format must be csv or json, not ${JSON.stringify(options.format)}`);
    }
    const from = options.from ?? options.month;
    if (from === undefined) throw new Refusal('invalid_body', 'give --month, or --from (and --to)');
    const to = options.to ?? (options.from === undefined ? addMonths(from, monthsFromOne - 1) : from);
    const { document, csv } = await run({ from, to });
    print({ json }, document, () => csv);
  } catch (error) {
    printFailure({ json }, error);
  }
}
