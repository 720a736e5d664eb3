import { Command } from 'commander';
import { checkNewOrg } from '../../services/orgs.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

export function orgsCommand(): Command {
  const orgs = new Command('orgs').description('create and list organisations');
  orgs
    .command('create')
    .description('create an organisation')
    .requiredOption('--name <name>', 'display name of the organisation')
    .option('--currency <code>', 'default currency of deals and plans that name none (ISO 4217)', 'USD')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { name: string; currency: string; json?: boolean }) => {
      try {
        const input = checkNewOrg({ name: options.name, currency: options.currency });
        const org = await withAdminServices((services) => services.orgs.create(input));
        print(
          options,
          { id: org.id, name: org.name, default_currency: org.default_currency, created_at: org.created_at },
          () => `Created org ${org.id} (${org.name}), default currency ${org.default_currency}`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  orgs
    .command('list')
    .description('list organisations')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { json?: boolean }) => {
      try {
        const list = await withAdminServices((services) => services.orgs.list());
        print(options, { orgs: list }, () => table(list, ['id', 'name', 'default_currency', 'created_at']));
      } catch (error) {
        printFailure(options, error);
      }
    });
  orgs
    .command('set-currency')
    .description(
      "set the org's default currency (ISO 4217), the currency of deals and plans that name none; " +
        'only while the org has no deals and no plans',
    )
    .argument('<currency>', 'ISO 4217 code, e.g. EUR')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (currency: string, options: { org: string; json?: boolean }) => {
      try {
        const result = await withAdminServices((services) =>
          services.exchangeRates.setDefaultCurrency(options.org, currency),
        );
        print(options, { org_id: options.org, default_currency: result.currency, changed: result.changed }, () =>
          result.changed
            ? `Org ${options.org} now defaults to ${result.currency}`
            : `Org ${options.org} already defaults to ${result.currency}`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  return orgs;
}
