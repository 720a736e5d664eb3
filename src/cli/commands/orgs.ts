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
  orgs
    .command('rep-access')
    .description(
      "show or set how the org's rep tokens may be used: the browser origins allowed to call /v1 with them (CORS) " +
        "and each rep's rate limit (docs/rep-tokens.md)",
    )
    .requiredOption('--org <org_id>', 'the org')
    .option('--cors-origins <origins>', 'comma-separated origins (https://host[:port]); "" allows none')
    .option('--rep-rate-limit <n>', 'requests per minute per rep, 1 to 100000')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; corsOrigins?: string; repRateLimit?: string; json?: boolean }) => {
      try {
        const limit = options.repRateLimit === undefined ? undefined : Number(options.repRateLimit);
        const origins =
          options.corsOrigins === undefined
            ? undefined
            : options.corsOrigins
                .split(',')
                .map((origin) => origin.trim())
                .filter(Boolean);
        const settings = await withAdminServices((services) =>
          origins === undefined && limit === undefined
            ? services.repAccess.get(options.org)
            : services.repAccess.set(options.org, {
                ...(origins === undefined ? {} : { corsAllowedOrigins: origins }),
                ...(limit === undefined ? {} : { repRateLimitPerMinute: limit }),
              }),
        );
        print(
          options,
          { org_id: options.org, ...settings },
          () =>
            `Org ${options.org}: rep tokens usable from ${
              settings.cors_allowed_origins.length === 0
                ? 'no browser origin'
                : settings.cors_allowed_origins.join(', ')
            }; ${settings.rep_rate_limit_per_minute} requests per minute per rep`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  return orgs;
}
