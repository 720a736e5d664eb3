import type { Command } from 'commander';
import { csvFile } from '../../domain/csvFile.ts';
import type { ScenarioRep } from '../../domain/earnings/scenario.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { ScenarioRecord } from '../../repositories/scenarios.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';
import { formatOf, readPlanText } from './plans.ts';

// `quotient plans simulate draft.yaml --from 2025-10 --to 2026-09` (docs/scenarios.md): a plan scenario run in this
// process over closed history, its progress on a terminal, then a table of reps, a CSV file or one JSON document.

interface SimulateOptions {
  org: string;
  from: string;
  to: string;
  name?: string;
  compare?: string;
  json?: boolean;
  csv?: boolean;
}

const POLL_MS = 200;

export function addSimulateCommand(plans: Command): void {
  plans
    .command('simulate')
    .description(
      'run a draft plan file over closed history (a plan scenario): per rep, what it would have paid beside what was ' +
        'actually paid, the difference and the chips that moved it. Nothing is written to earnings, periods, ' +
        'statements, webhooks or the ledger.',
    )
    .argument('<file>', 'the draft plan file (.yaml, .yml or .json; - reads stdin)')
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--from <period>', 'the first month or quarter of the span (2025-10)')
    .requiredOption('--to <period>', 'the last month or quarter of the span (2026-09); it must have ended')
    .option('--name <name>', "the scenario's name")
    .option('--compare <plan_key>', "the plan whose paid rows are actual (the draft's own key by default)")
    .option('--csv', 'print the reps as a CSV file')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (file: string, options: SimulateOptions) => {
      try {
        if (options.csv && options.json) throw new Refusal('invalid_body', 'give at most one of --csv and --json');
        const text = await readPlanText(file);
        const { scenario, reps } = await withAdminServices(async (services) => {
          const scenarios = services.scenarios;
          const started = await scenarios.start({
            orgId: options.org,
            text,
            format: formatOf(file),
            source: file,
            from: options.from,
            to: options.to,
            ...(options.name === undefined ? {} : { name: options.name }),
            ...(options.compare === undefined ? {} : { comparePlanKey: options.compare }),
            actor: { kind: 'cli' },
          });
          const line = process.stderr.isTTY && !options.json && !options.csv ? progressLine(process.stderr) : undefined;
          let ended = false;
          const settled = scenarios.settled(started.id).finally(() => {
            ended = true;
          });
          while (!ended) {
            await Promise.race([settled, new Promise((resolve) => setTimeout(resolve, POLL_MS))]);
            line?.(await scenarios.find(options.org, started.id));
          }
          await settled;
          if (line) process.stderr.write('\n');
          const finished = await scenarios.find(options.org, started.id);
          const page = await scenarios.reps(options.org, started.id, null, 1_000_000);
          return { scenario: finished, reps: page.reps };
        });
        if (scenario.status !== 'done') {
          throw new Error(`scenario ${scenario.id} ${scenario.status}: ${scenario.failure ?? 'no result'}`);
        }
        if (options.csv) {
          process.stdout.write(repsCsv(reps));
          return;
        }
        print(options, { scenario: wireOf(scenario), reps: reps.map(({ lines: _lines, ...rep }) => rep) }, () =>
          describe(scenario, reps),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
}

/** `quotient plans compare-scenarios scn_a scn_b --org …`: two finished scenarios per rep and period, B − A. */
export function addCompareScenariosCommand(plans: Command): void {
  plans
    .command('compare-scenarios')
    .description('two finished plan scenarios side by side: per rep (and period), what A pays beside B, and B − A')
    .argument('<a>', 'the first scenario (A)')
    .argument('<b>', 'the scenario compared with it (B)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--csv', 'print one row per rep and period as a CSV file')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (a: string, b: string, options: { org: string; csv?: boolean; json?: boolean }) => {
      try {
        if (options.csv && options.json) throw new Refusal('invalid_body', 'give at most one of --csv and --json');
        const compared = await withAdminServices((services) => services.scenarios.compare(options.org, a, b));
        if (options.csv) {
          process.stdout.write(
            csvFile(
              ['rep', 'period', 'a_cents', 'b_cents', 'difference_cents'],
              compared.reps.flatMap((rep) =>
                rep.periods.map((period) => [
                  rep.user_external_id,
                  period.period_id,
                  period.a_cents,
                  period.b_cents,
                  period.difference_cents,
                ]),
              ),
            ),
          );
          return;
        }
        const { a: first, b: second, ...comparison } = compared;
        print(options, { a: wireOf(first), b: wireOf(second), ...comparison }, () =>
          [
            `A: ${first.id} (${first.name ?? first.plan_key}); B: ${second.id} (${second.name ?? second.plan_key}).`,
            '',
            table(
              compared.reps.map((rep) => ({
                rep: rep.user_external_id,
                a: money(rep.a_cents),
                b: money(rep.b_cents),
                difference: money(rep.difference_cents),
              })),
              ['rep', 'a', 'b', 'difference'],
            ),
            '',
            `Total: A ${money(compared.a_cents)}, B ${money(compared.b_cents)}, difference ${money(compared.difference_cents)}.`,
          ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
}

function progressLine(stream: NodeJS.WriteStream) {
  return (scenario: ScenarioRecord) => {
    const total = scenario.reps_total;
    const ratio = total === 0 ? 0 : scenario.reps_done / total;
    const filled = Math.round(ratio * 30);
    stream.write(
      `\r[${'#'.repeat(filled)}${'.'.repeat(30 - filled)}] ${String(Math.floor(ratio * 100)).padStart(3)}%  ` +
        `${scenario.reps_done}/${total} reps  ${scenario.status}`,
    );
  };
}

function wireOf(scenario: ScenarioRecord) {
  const { plan_file: _file, org_id: _org, ...rest } = scenario;
  return rest;
}

function money(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const whole = Math.abs(cents);
  return `${sign}${Math.floor(whole / 100).toLocaleString('en-US')}.${String(whole % 100).padStart(2, '0')}`;
}

function percent(bps: number | null): string {
  return bps === null ? '-' : `${(bps / 100).toFixed(2)}%`;
}

function describe(scenario: ScenarioRecord, reps: readonly ScenarioRep[]): string {
  const summary = scenario.summary;
  const rows = reps.map((rep) => ({
    rep: rep.user_external_id,
    actual: money(rep.actual_cents),
    scenario: money(rep.scenario_cents),
    difference: money(rep.difference_cents),
    attainment: percent(rep.attainment_bps),
    moved_by: rep.chips.map((chip) => `${chip.chip_key} ${money(chip.difference_cents)}`).join('; ') || '-',
  }));
  const head = `Scenario ${scenario.id}: ${scenario.plan_key} over ${scenario.from_period} to ${scenario.to_period}, against ${scenario.compare_plan_key}.`;
  if (!summary) return head;
  const totals =
    `Total: actual ${money(summary.actual_cents)}, scenario ${money(summary.scenario_cents)}, ` +
    `difference ${money(summary.difference_cents)}; cost of sales ${percent(summary.actual_cost_of_sales_bps)} → ` +
    `${percent(summary.scenario_cost_of_sales_bps)}; ${summary.distribution.better_off} better off, ` +
    `${summary.distribution.worse_off} worse off, ${summary.distribution.unchanged} unchanged.`;
  return [
    head,
    '',
    table(rows, ['rep', 'actual', 'scenario', 'difference', 'attainment', 'moved_by']),
    '',
    totals,
  ].join('\n');
}

/** One row per rep and period, amounts in minor units. */
export function repsCsv(reps: readonly ScenarioRep[]): string {
  return csvFile(
    ['rep', 'period', 'actual_cents', 'scenario_cents', 'difference_cents', 'booked_cents', 'attainment_bps'],
    reps.flatMap((rep) =>
      rep.periods.map((period) => [
        rep.user_external_id,
        period.period_id,
        period.actual_cents,
        period.scenario_cents,
        period.difference_cents,
        period.booked_cents,
        period.attainment_bps,
      ]),
    ),
  );
}
