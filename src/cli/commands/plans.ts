import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { Command } from 'commander';
import type { PlanFileFormat } from '../../domain/plans/planFile.ts';
import { Refusal } from '../../domain/refusal.ts';
import { orgViewer } from '../../domain/viewer.ts';
import type { ApplyPlanResult } from '../../services/plans.ts';
import { toWirePlanSummary } from '../../wire/plans.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';
import { describeRecompute } from './recompute.ts';
import { addCompareScenariosCommand, addSimulateCommand } from './simulate.ts';

export function plansCommand(): Command {
  const plans = new Command('plans').description(
    'apply plan files (plans as code), list and archive plans, write their documents',
  );
  plans
    .command('apply')
    .description(
      'apply a plan file (YAML or JSON, see schemas/plan-file.schema.json): a new plan, a new version when the ' +
        'content changed, nothing when it did not. A bad file is refused with every problem listed; nothing is applied. ' +
        "A change then recomputes the plan's earnings in open periods and its open deals' forecasts in every period " +
        '(see quotient recompute).',
    )
    .argument('<file>', 'the plan file (.yaml, .yml or .json; - reads YAML or JSON from stdin)')
    .requiredOption('--org <org_id>', 'the org the plan belongs to')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (file: string, options: { org: string; json?: boolean }) => {
      try {
        const text = await readPlanText(file);
        const result = await withAdminServices((services) =>
          services.plans.apply({ orgId: options.org, text, format: formatOf(file), source: file }),
        );
        print(options, result, () =>
          [describeApply(file, result), ...(result.recompute ? [describeRecompute(result.recompute)] : [])].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  plans
    .command('list')
    .description('list the plans of an org, active and archived')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; json?: boolean }) => {
      try {
        const list = await withAdminServices((services) => services.plans.list(options.org));
        const rows = list.map((plan) => toWirePlanSummary(plan, plan.current_version_number, plan.current_limits));
        print(options, { plans: rows }, () =>
          table(rows, ['id', 'key', 'name', 'status', 'period', 'quota_cents', 'current_version', 'updated_at']),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  plans
    .command('archive')
    .description(
      'archive a plan: it is no longer evaluated, its projected earnings are reversed and it leaves the API plan list; ' +
        'applying its file again re-activates it',
    )
    .argument('<plan_id>', 'the plan to archive')
    .requiredOption('--org <org_id>', 'the org the plan belongs to')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (planId: string, options: { org: string; json?: boolean }) => {
      try {
        const { plan, current_version, current_limits, changed, recompute } = await withAdminServices((services) =>
          services.plans.archive(options.org, planId),
        );
        print(options, { ...toWirePlanSummary(plan, current_version, current_limits), changed, recompute }, () =>
          changed
            ? `Archived plan ${plan.id} (${plan.key}) at ${plan.archived_at?.toISOString()}\n${recompute ? describeRecompute(recompute) : ''}`.trimEnd()
            : `Plan ${plan.id} (${plan.key}) was already archived (at ${plan.archived_at?.toISOString()}); nothing changed`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  plans
    .command('document')
    .description(
      "write a plan version's document (docs/plan-documents.md): what the plan pays in plain language, each chip with " +
        'its conditions and tier table, caps, draw, splits, overrides, and worked examples the engine computes',
    )
    .argument('<plan_id>', 'the plan')
    .requiredOption('--org <org_id>', 'the org the plan belongs to')
    .option('--version <version_id>', "a version of the plan (default: the plan's current version)")
    .option('--user <rep>', 'the document of this rep, with their own quota and ramp: their external id or id (user_…)')
    .option('--format <format>', 'pdf, html or json', 'pdf')
    .option('--out <file>', 'write the document to this file instead of stdout')
    .action(
      async (
        planId: string,
        options: { org: string; version?: string; user?: string; format: string; out?: string },
      ) => {
        try {
          if (!DOCUMENT_FORMATS.includes(options.format)) {
            throw new Refusal('invalid_body', `--format: pdf, html or json, not ${options.format}`);
          }
          const bytes = await withAdminServices(async (services) => {
            const rep =
              options.user === undefined
                ? undefined
                : await services.reps.findByIdOrExternalId(options.org, options.user);
            const document = await services.planDocuments.model({
              viewer: orgViewer(options.org),
              planId,
              ...(options.version === undefined ? {} : { versionId: options.version }),
              ...(rep === undefined ? {} : { userId: rep.id }),
            });
            if (!document) {
              throw new Refusal(
                'not_found',
                options.version === undefined
                  ? `org ${options.org} has no plan ${planId}`
                  : `plan ${planId} of org ${options.org} has no version ${options.version}`,
              );
            }
            if (options.format === 'pdf') return services.planDocuments.pdf(document);
            const text =
              options.format === 'html'
                ? services.planDocuments.html(document)
                : `${JSON.stringify(document, null, 2)}\n`;
            return new TextEncoder().encode(text);
          });
          if (options.out === undefined) process.stdout.write(bytes);
          else await writeFile(options.out, bytes);
        } catch (error) {
          printFailure({}, error);
        }
      },
    );
  addSimulateCommand(plans);
  addCompareScenariosCommand(plans);
  return plans;
}

const DOCUMENT_FORMATS = ['pdf', 'html', 'json'];

export async function readPlanText(file: string): Promise<string> {
  try {
    return file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new Refusal('invalid_body', `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `.json` files are read as strict JSON; anything else as YAML, which reads JSON too. */
export function formatOf(file: string): PlanFileFormat {
  return extname(file).toLowerCase() === '.json' ? 'json' : 'yaml';
}

function describeApply(file: string, result: ApplyPlanResult): string {
  const head = !result.changed
    ? `${file} matches version ${result.version} of plan ${result.plan_id}; nothing changed.`
    : result.reactivated && result.chips.every((chip) => chip.change === 'unchanged')
      ? `Re-activated plan ${result.plan_id} on its version ${result.version} (${result.version_id}).`
      : `Applied ${file}: plan ${result.plan_id} version ${result.version} (${result.version_id})` +
        `${result.reactivated ? ', re-activated' : ''}.`;
  if (!result.changed) return head;
  const rows = [
    ...result.chips,
    ...result.removed_chips.map((key) => ({ id: null, key, version: null, change: 'removed' })),
  ];
  return `${head}\n\n${table(rows, ['key', 'id', 'version', 'change'])}`;
}
