import { Command } from 'commander';
import { RATE_LIMIT_DEFAULT, SCOPES } from '../../access/apiKeys.ts';
import { toApiKey } from '../../wire/admin.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

export function keysCommand(): Command {
  const keys = new Command('keys').description('create, list and revoke API keys of an org');
  keys
    .command('create')
    .description('create an API key; the raw key is printed once and cannot be recovered')
    .requiredOption('--org <org_id>', 'the org the key belongs to')
    .requiredOption('--name <name>', 'a label for people')
    .requiredOption('--scopes <scopes>', `comma-separated, the minimum needed: ${SCOPES.join(', ')}`)
    .option('--rate-limit <per_minute>', `requests per minute, 1 to 100000 (default ${RATE_LIMIT_DEFAULT})`)
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; name: string; scopes: string; rateLimit?: string; json?: boolean }) => {
      try {
        const created = await withAdminServices((services) =>
          services.keys.create({
            orgId: options.org,
            name: options.name,
            scopes: options.scopes,
            ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
          }),
        );
        const { record } = created;
        print(
          options,
          {
            id: record.id,
            key: created.rawKey,
            name: record.name,
            scopes: record.scopes,
            rate_limit_per_minute: record.rate_limit_per_minute,
            display_prefix: record.display_prefix,
            created_at: record.created_at,
          },
          () =>
            [
              `Created key ${record.id} (${record.name}) with scopes ${record.scopes.join(', ')}, ${record.rate_limit_per_minute} requests/minute.`,
              '',
              `  ${created.rawKey}`,
              '',
              'This is the only time the key is shown. Store it in your secret manager now.',
            ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  keys
    .command('list')
    .description('list the keys of an org (never the raw keys)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; json?: boolean }) => {
      try {
        const list = await withAdminServices((services) => services.keys.list(options.org));
        const rows = list.map(toApiKey);
        print(options, { keys: rows }, () =>
          table(rows, [
            'id',
            'name',
            'display_prefix',
            'scopes',
            'rate_limit_per_minute',
            'created_at',
            'last_used_at',
            'revoked_at',
          ]),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  keys
    .command('revoke')
    .description('revoke a key; it stops working on the very next request')
    .argument('<key_id>', 'the key to revoke')
    .requiredOption('--org <org_id>', 'the org the key belongs to')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (keyId: string, options: { org: string; json?: boolean }) => {
      try {
        const { record, changed } = await withAdminServices((services) => services.keys.revoke(options.org, keyId));
        print(options, { ...toApiKey(record), changed }, () =>
          changed
            ? `Revoked key ${record.id} (${record.name}) at ${record.revoked_at?.toISOString()}`
            : `Key ${record.id} (${record.name}) was already revoked (at ${record.revoked_at?.toISOString()}); nothing changed`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  return keys;
}
