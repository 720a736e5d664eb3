import { Command } from 'commander';
import type { StoredExchangeRate } from '../../repositories/exchangeRates.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';
import { describeRecompute } from './recompute.ts';

// `quotient fx`: the org's dated exchange rates (docs/currencies.md).

function wireRate(rate: StoredExchangeRate) {
  return {
    from_currency: rate.from_currency,
    to_currency: rate.to_currency,
    effective_on: rate.effective_on,
    rate: rate.rate,
    updated_at: rate.updated_at,
  };
}

export function fxCommand(): Command {
  const fx = new Command('fx').description("the org's dated exchange rates, which convert deals to plans' currencies");
  fx.command('set')
    .description(
      'set the rate from FROM to TO in force from a day (until the pair has a later rate); the same pair and day ' +
        "again replaces it. Then recomputes the org's earnings: unpriced lines get priced, converted ones re-converted.",
    )
    .argument('<from>', 'ISO 4217 code of the currency converted from, e.g. EUR')
    .argument('<to>', 'ISO 4217 code of the currency converted to, e.g. USD')
    .argument('<rate>', 'units of TO per unit of FROM, an exact decimal such as 1.0845')
    .requiredOption('--from <date>', 'the first day the rate is in force, YYYY-MM-DD')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (from: string, to: string, rate: string, options: { from: string; org: string; json?: boolean }) => {
      try {
        const set = await withAdminServices((services) =>
          services.exchangeRateChange.set({ orgId: options.org, from, to, rate, effectiveOn: options.from }),
        );
        const summary = set.recompute;
        print(options, { rate: wireRate(set.rate), replaced_rate: set.replaced, recompute: summary }, () =>
          [
            `Set ${set.rate.from_currency}→${set.rate.to_currency} ${set.rate.rate} from ${set.rate.effective_on}` +
              (set.replaced === null ? '' : ` (was ${set.replaced})`),
            describeRecompute(summary),
          ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  fx.command('list')
    .description("list the org's exchange rates by pair and day")
    .requiredOption('--org <org_id>', 'the org')
    .option('--currency <code>', 'only rates from or to this currency')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; currency?: string; json?: boolean }) => {
      try {
        const rates = await withAdminServices((services) => services.exchangeRates.list(options.org, options.currency));
        const rows = rates.map(wireRate);
        print(options, { rates: rows }, () =>
          table(rows, ['from_currency', 'to_currency', 'effective_on', 'rate', 'updated_at']),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  return fx;
}
