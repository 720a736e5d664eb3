import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { portOf } from '../../config.ts';
import { Refusal } from '../../domain/refusal.ts';
import { DEMO_ORG_NAME, type DemoResult } from '../../services/demo.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure } from '../output.ts';
import { openExport } from './import.ts';

/** The sample exports shipped in examples/imports, by the CRM they come from. */
export const SAMPLE_EXPORTS: Readonly<Record<string, string>> = {
  hubspot: fileURLToPath(new URL('../../../examples/imports/hubspot-deals.csv', import.meta.url)),
  salesforce: fileURLToPath(new URL('../../../examples/imports/salesforce-opportunities.csv', import.meta.url)),
};

export function demoCommand(): Command {
  return new Command('demo')
    .description(
      'an org to try Quotient with: a key (printed once), the example plan, two months of deals for three ' +
        'reps sent through the ingestion path, the first month locked and paid. Run again, it reuses the org (and makes a new key).',
    )
    .option('--org-name <name>', `the org's name (an org of that name is reused)`, DEMO_ORG_NAME)
    .option(
      '--from-export <hubspot|salesforce|file.csv>',
      'the deals of a CRM export instead of the scripted two months: a sample of examples/imports (hubspot, salesforce) or a CSV file, imported as quotient import deals does (its mapping recognised from the header); no period is locked',
    )
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { orgName: string; fromExport?: string; json?: boolean }) => {
      try {
        const name = options.orgName.trim();
        if (!name) throw new Refusal('invalid_body', 'the demo org needs a non-empty --org-name');
        const file =
          options.fromExport === undefined ? undefined : (SAMPLE_EXPORTS[options.fromExport] ?? options.fromExport);
        const opened = file === undefined ? undefined : await openExport(file);
        const result = await withAdminServices((services) =>
          services.demo.run(
            name,
            new Date(),
            opened && file !== undefined ? { source: file, rows: opened.rows } : undefined,
          ),
        ).finally(() => opened?.close());
        const next = tryNext(result);
        print(options, { ...result, next }, () => describe(result, next));
      } catch (error) {
        printFailure(options, error);
      }
    });
}

function tryNext(result: DemoResult) {
  const base = `http://127.0.0.1:${portOf()}`;
  const auth = `-H "Authorization: Bearer ${result.key.key}"`;
  return {
    serve: 'npm start   (or: npx quotient serve), with the same QUOTIENT_DATA_DIR',
    curl: [
      `curl -s ${base}/v1/ ${auth}`,
      ...(result.periods
        ? [
            `curl -s "${base}/v1/earnings?period_id=${result.periods.open}" ${auth}`,
            `curl -s "${base}/v1/earnings?status=paid" ${auth}`,
          ]
        : [`curl -s "${base}/v1/earnings?status=pending" ${auth}`]),
      `curl -s "${base}/v1/deals?status=open" ${auth}`,
    ],
    sdk: [
      "import { createClient } from '@quotient/sdk';",
      `const quotient = createClient({ baseUrl: '${base}', apiKey: '${result.key.key}' });`,
      `for await (const earning of quotient.earnings.list(${result.periods ? `{ period_id: '${result.periods.paid}' }` : ''})) console.log(earning.status, earning.amount_cents, earning.explanation);`,
    ],
    cli: [`npx quotient periods list --org ${result.org.id}`, `npx quotient audit --org ${result.org.id}`],
  };
}

function describe(result: DemoResult, next: ReturnType<typeof tryNext>): string {
  const earnings = Object.entries(result.earnings)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  return [
    `${result.org.reused ? 'Reused' : 'Created'} the org ${result.org.id} (${result.org.name}).`,
    `Key ${result.key.id}, shown only this once:`,
    '',
    `  ${result.key.key}`,
    '',
    `Plan ${result.plan.key} (${result.plan.id}, version ${result.plan.version}), the example plan.`,
    result.import
      ? `Imported ${result.import.source} (${result.import.rows} rows): ${result.import.new_deals} new deals, ${result.import.updates} updates, ${result.import.unchanged} unchanged (imported before), ${result.import.refused} refused.`
      : `Deal events: ${result.deal_events.sent} sent through the ingestion path, ${result.deal_events.replayed} replayed (already there).`,
    result.periods
      ? `Period ${result.periods.paid} locked and paid; ${result.periods.open} open.`
      : 'No period is locked: every period is open.',
    `Earnings: ${earnings}.`,
    '',
    `Try next (serve first: ${next.serve}):`,
    ...next.curl.map((line) => `  ${line}`),
    '',
    'With the SDK (@quotient/sdk):',
    ...next.sdk.map((line) => `  ${line}`),
    '',
    ...next.cli.map((line) => `  ${line}`),
  ].join('\n');
}
