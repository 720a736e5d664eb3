import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { ADJUSTMENT_CATEGORIES, type AdjustmentCategory, isAdjustmentCategory } from '../../domain/adjustments.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { AdjustmentInput } from '../../services/adjustmentSteps.ts';
import { toWireAdminAdjustment } from '../../wire/adjustments.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

// `quotient adjustments`: manual adjustments (one-off bonuses, corrections, guarantees, deductions) added to reps'
// open periods, through the same service as the console (docs/pay-workflow.md). Audited as `cli`.

interface AddOptions {
  org: string;
  rep: string;
  period: string;
  amountCents: string;
  currency?: string;
  category: string;
  reason: string;
  deal?: string;
  idempotencyKey?: string;
  countsTowardAttainment?: boolean;
  json?: boolean;
}

export function adjustmentsCommand(): Command {
  const command = new Command('adjustments').description(
    "manual adjustments to reps' periods: one-off bonuses, corrections, guarantees, deductions",
  );
  command
    .command('add')
    .description("add a signed amount to a rep's open period (paid with the period; a locked period is refused)")
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--rep <external_id>', "the rep's id in your system (the deals' owner_external_id)")
    .requiredOption('--period <period>', 'the open period: YYYY-MM or YYYY-Qn')
    .requiredOption('--amount-cents <cents>', 'signed amount in minor units, e.g. 50000 or -12000')
    .requiredOption('--category <category>', ADJUSTMENT_CATEGORIES.join(' | '))
    .requiredOption('--reason <text>', 'why (kept in the adjustment and the audit log)')
    .option('--currency <code>', "ISO 4217; default: the org's default currency")
    .option('--deal <external_id>', 'the deal it concerns')
    .option('--idempotency-key <key>', 'the same key again adds nothing')
    .option(
      '--counts-toward-attainment',
      "count the amount toward the rep's attainment in the period too (tiers, attainment bonuses); recomputes the rep",
    )
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: AddOptions) => {
      try {
        const input = addInput(options);
        const written = await withAdminServices((services) => services.adjustments.create(options.org, input));
        const wire = toWireAdminAdjustment(written.adjustment);
        print(options, { adjustment: wire, created: written.created }, () =>
          written.created
            ? `Added ${wire.id}: ${wire.amount_cents} ${wire.currency} (${wire.category}) to ${wire.user_external_id} in ${wire.period_id}${wire.counts_toward_attainment ? ', counting toward attainment' : ''}`
            : `Idempotency key ${options.idempotencyKey} already added ${wire.id}; nothing changed`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  command
    .command('list')
    .description('list adjustments, oldest first')
    .requiredOption('--org <org_id>', 'the org')
    .option('--period <period>', 'only this period')
    .option('--category <category>', 'only this category')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; period?: string; category?: string; json?: boolean }) => {
      try {
        if (options.category !== undefined && !isAdjustmentCategory(options.category)) {
          throw new Refusal('invalid_body', `--category must be one of ${ADJUSTMENT_CATEGORIES.join(', ')}`);
        }
        const filters = {
          ...(options.period === undefined ? {} : { periodId: options.period }),
          ...(options.category === undefined ? {} : { category: options.category as AdjustmentCategory }),
        };
        const all = await withAdminServices(async (services) => {
          const found = [];
          let cursor: string | undefined;
          do {
            const page = await services.adjustments.listPage(options.org, {
              filters,
              limit: 200,
              ...(cursor === undefined ? {} : { cursor }),
            });
            found.push(...page.adjustments);
            cursor = page.nextCursor ?? undefined;
          } while (cursor !== undefined);
          return found;
        });
        const rows = all.map(toWireAdminAdjustment);
        print(options, { adjustments: rows }, () =>
          table(
            rows.map((row) => ({ ...row, created_by: row.created_by.name, voids: row.voids_id ?? '' })),
            [
              'id',
              'user_external_id',
              'period_id',
              'amount_cents',
              'currency',
              'category',
              'status',
              'voids',
              'created_by',
              'reason',
            ],
          ),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  command
    .command('void')
    .description('void an adjustment with a counter-adjustment of the opposite amount (nothing is deleted)')
    .argument('<id>', 'the adjustment (adj_…)')
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--reason <text>', 'why')
    .option('--period <period>', "the open period of the counter-adjustment; default: the voided one's")
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (id: string, options: { org: string; reason: string; period?: string; json?: boolean }) => {
      try {
        const written = await withAdminServices((services) =>
          services.adjustments.void(options.org, id, {
            reason: options.reason,
            ...(options.period === undefined ? {} : { period_id: options.period }),
          }),
        );
        const wire = toWireAdminAdjustment(written.adjustment);
        print(
          options,
          { adjustment: wire, created: true },
          () => `Voided ${id} with ${wire.id} (${wire.amount_cents})`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  command
    .command('import')
    .description(
      'add the adjustments of a CSV file, all or nothing: every row carries its own idempotency key (a re-import ' +
        'changes nothing); a refused row is reported with its line and nothing of the file is applied',
    )
    .argument('<file>', 'the CSV file (docs/pay-workflow.md): header first')
    .requiredOption('--org <org_id>', 'the org')
    .option('--dry-run', 'check every row; apply nothing')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (file: string, options: { org: string; dryRun?: boolean; json?: boolean }) => {
      try {
        const text = await readFile(file, 'utf8').catch(() => {
          throw new Refusal('invalid_body', `cannot read ${file}`);
        });
        const summary = await withAdminServices((services) =>
          services.adjustments.importFile(options.org, text, { dryRun: options.dryRun === true, source: file }),
        );
        print(options, summary, () =>
          [
            summary.applied
              ? `Imported ${file}: ${summary.created} added, ${summary.unchanged} unchanged (of ${summary.rows} rows)`
              : summary.dry_run && summary.refusals.length === 0
                ? `Dry run of ${file}: ${summary.created} would be added, ${summary.unchanged} unchanged (of ${summary.rows} rows)`
                : `Nothing of ${file} was applied: ${summary.refusals.length} row(s) refused`,
            ...summary.refusals.map((refusal) => `  line ${refusal.line}: ${refusal.reason}`),
          ].join('\n'),
        );
        if (summary.refusals.length > 0) process.exitCode = 2;
      } catch (error) {
        printFailure(options, error);
      }
    });
  return command;
}

function addInput(options: AddOptions): AdjustmentInput {
  if (!/^[+-]?\d{1,15}$/.test(options.amountCents)) {
    throw new Refusal(
      'invalid_body',
      `--amount-cents: ${JSON.stringify(options.amountCents)} is not a whole number of cents`,
    );
  }
  if (!isAdjustmentCategory(options.category)) {
    throw new Refusal('invalid_body', `--category must be one of ${ADJUSTMENT_CATEGORIES.join(', ')}`);
  }
  return {
    user_external_id: options.rep,
    period_id: options.period,
    amount_cents: Number(options.amountCents),
    category: options.category,
    reason: options.reason,
    ...(options.currency === undefined ? {} : { currency: options.currency }),
    ...(options.deal === undefined ? {} : { deal_external_id: options.deal }),
    ...(options.idempotencyKey === undefined ? {} : { idempotency_key: options.idempotencyKey }),
    ...(options.countsTowardAttainment ? { counts_toward_attainment: true } : {}),
  };
}
