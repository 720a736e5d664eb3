import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { Refusal } from '../../domain/refusal.ts';
import type { QuotaChangeResult, QuotaEntryView } from '../../services/quotas.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';
import { describeRecompute } from './recompute.ts';

// `quotient quotas`: reps' quota tables and start dates (docs/quotas.md).

export function quotasCommand(): Command {
  const quotas = new Command('quotas').description(
    "reps' own quotas per plan from a period on, and their start dates that plan ramps count from (docs/quotas.md)",
  );
  quotas
    .command('set')
    .description(
      "from --from (the first day of one of the plan's periods) on, the rep's quota under the plan is <quota_cents> " +
        "(minor units of the plan's currency), or the plan's own quota again with --plan-quota. Earlier periods keep " +
        "theirs; setting the same rep, plan and day again replaces that day's entry. Reps are created on first sight. " +
        'Then the lines that read the quota are recomputed; in a locked period the difference is booked in the next ' +
        'open one.',
    )
    .argument('<rep>', "the rep's external id (owner_external_id)")
    .argument('<plan>', "the plan's key")
    .argument('[quota_cents]', "the quota in minor units of the plan's currency; leave out with --plan-quota")
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--from <date>', "the first day (YYYY-MM-DD) the quota applies: a period's first day")
    .option('--plan-quota', "the plan's own quota again from that day on")
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async function (
      this: Command,
      rep: string,
      plan: string,
      quota: string | undefined,
      options: { org: string; from: string; planQuota?: boolean; json?: boolean },
    ) {
      if ((quota === undefined) === (options.planQuota !== true)) {
        this.error('error: give either <quota_cents> or --plan-quota');
      }
      try {
        if (quota !== undefined && !/^\d{1,16}$/.test(quota)) {
          throw new Refusal('invalid_body', `quota_cents: "${quota}" is not a whole number of minor units`);
        }
        const result = await withAdminServices((services) =>
          services.quotas.set({
            orgId: options.org,
            repExternalId: rep,
            planKey: plan,
            from: options.from,
            quotaCents: quota === undefined ? null : Number(quota),
          }),
        );
        print(options, result, () => describeChange(result));
      } catch (error) {
        printFailure(options, error);
      }
    });
  quotas
    .command('list')
    .description("list the quota tables: each rep's entries under each plan, by rep, plan and day")
    .requiredOption('--org <org_id>', 'the org')
    .option('--rep <rep>', "only this rep's entries (external id)")
    .option('--plan <plan>', "only this plan's entries (key)")
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; rep?: string; plan?: string; json?: boolean }) => {
      try {
        const entries = await withAdminServices((services) =>
          services.quotas.list(options.org, {
            ...(options.rep === undefined ? {} : { repExternalId: options.rep }),
            ...(options.plan === undefined ? {} : { planKey: options.plan }),
          }),
        );
        print(options, { quotas: entries }, () => describeEntries(entries));
      } catch (error) {
        printFailure(options, error);
      }
    });
  quotas
    .command('import')
    .description(
      'apply a quota file (CSV: rep_external_id, plan_key, from, quota, start_date, display_name; see docs/quotas.md). Every row ' +
        'is checked first: one bad row refuses the whole file, naming each bad row by line, and nothing is applied. ' +
        'Rows already so change nothing, so the same file again is a no-op.',
    )
    .argument('<file>', 'the CSV file')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (file: string, options: { org: string; json?: boolean }) => {
      try {
        const text = await readFile(file, 'utf8').catch(() => {
          throw new Refusal('invalid_body', `cannot read ${file}`);
        });
        const result = await withAdminServices((services) => services.quotas.importFile({ orgId: options.org, text }));
        print(options, result, () => describeChange(result));
      } catch (error) {
        printFailure(options, error);
      }
    });
  quotas
    .command('start-date')
    .description(
      "the rep started on <date> (YYYY-MM-DD), or has no start date with --none: a plan's ramp counts the months " +
        'since it. Reps are created on first sight. Then the lines that read the quota are recomputed.',
    )
    .argument('<rep>', "the rep's external id (owner_external_id)")
    .argument('[date]', 'the start date (YYYY-MM-DD); leave out with --none')
    .requiredOption('--org <org_id>', 'the org')
    .option('--none', 'the rep has no start date (not ramped)')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async function (
      this: Command,
      rep: string,
      date: string | undefined,
      options: { org: string; none?: boolean; json?: boolean },
    ) {
      if ((date === undefined) === (options.none !== true)) this.error('error: give either <date> or --none');
      try {
        const result = await withAdminServices((services) =>
          services.quotas.setStartDate({ orgId: options.org, repExternalId: rep, startDate: date ?? null }),
        );
        print(options, result, () => describeChange(result));
      } catch (error) {
        printFailure(options, error);
      }
    });
  return quotas;
}

function describeEntries(entries: readonly QuotaEntryView[]): string {
  return table(
    entries.map((entry) => ({ ...entry, quota_cents: entry.quota_cents ?? '(plan quota)' })),
    ['rep_external_id', 'plan_key', 'from', 'quota_cents', 'updated_at'],
  );
}

function describeChange(result: QuotaChangeResult): string {
  if (!result.changed)
    return `nothing changed: every quota, start date and display name was already so (${result.rows} rows)`;
  return [
    `${result.quotas_changed} quota entries, ${result.start_dates_changed} start dates and ${result.display_names_changed} display names changed (${result.rows} rows).`,
    ...(result.recompute ? ['', describeRecompute(result.recompute)] : []),
  ].join('\n');
}
