import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { secretFromEnvironment } from '../../config.ts';
import { Refusal } from '../../domain/refusal.ts';
import type { ConnectionRecord } from '../../repositories/connections.ts';
import { toWireConnection, toWireConnectionPreview } from '../../wire/connections.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

interface OrgOptions {
  org: string;
  json?: boolean;
}

interface AddOptions extends OrgOptions {
  /** One of the option's choices: commander refuses any other value. */
  kind: 'hubspot' | 'salesforce';
  clientId: string;
  clientSecret?: string;
  clientSecretEnv?: string;
  redirectUri?: string;
  loginUrl?: string;
  jwtUsername?: string;
  jwtKeyFile?: string;
}

const COLUMNS = ['id', 'kind', 'status', 'behind_by', 'account_id', 'last_change_at', 'last_sync_at', 'error'];

function dateOf(value: string): Date {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new InvalidArgumentError('a date or an ISO 8601 time');
  return at;
}

function clientSecretOf(options: Pick<AddOptions, 'clientSecret' | 'clientSecretEnv'>): string | undefined {
  if (options.clientSecretEnv !== undefined) {
    const value = secretFromEnvironment(options.clientSecretEnv);
    if (!value) throw new Refusal('invalid_body', `the environment variable ${options.clientSecretEnv} is not set`);
    return value;
  }
  return options.clientSecret;
}

/** Salesforce's JWT bearer flow: the user and the private key's PEM file, both or neither. */
function jwtOf(options: AddOptions): { username: string; privateKey: string } | undefined {
  if (options.jwtUsername === undefined && options.jwtKeyFile === undefined) return undefined;
  if (options.jwtUsername === undefined || options.jwtKeyFile === undefined) {
    throw new Refusal('invalid_body', 'give both --jwt-username and --jwt-key-file (the JWT bearer flow)');
  }
  try {
    return { username: options.jwtUsername, privateKey: readFileSync(options.jwtKeyFile, 'utf8') };
  } catch {
    throw new Refusal('invalid_body', `--jwt-key-file: cannot read ${options.jwtKeyFile}`);
  }
}

function describe(connection: ConnectionRecord): string {
  const wire = toWireConnection(connection);
  return [
    `${wire.id} (${wire.kind}) ${wire.status}${wire.behind_by > 0 ? `, behind by ${wire.behind_by}` : ''}`,
    `  account:        ${wire.account_id ?? '(not authorized yet)'}`,
    `  last change:    ${wire.last_change_at ?? '-'}`,
    `  last sync:      ${wire.last_sync_at ?? '-'}`,
    `  error:          ${wire.error ?? '-'}`,
    ...(wire.webhook_path === null ? [] : [`  webhook target: https://<your Quotient host>${wire.webhook_path}`]),
    ...(wire.instance_url === null ? [] : [`  instance:       ${wire.instance_url}`]),
    `  authorization:  ${wire.auth_flow}`,
    ...(wire.redirect_uri === null ? [] : [`  redirect URL:   ${wire.redirect_uri}`]),
  ].join('\n');
}

/** A command on one connection that prints it as it is afterwards. */
function onConnection(
  parent: Command,
  name: string,
  description: string,
  run: (
    services: Parameters<Parameters<typeof withAdminServices>[0]>[0],
    orgId: string,
    id: string,
  ) => Promise<ConnectionRecord>,
): Command {
  return parent
    .command(name)
    .description(description)
    .argument('<connection>', 'the connection id (con_…)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (id: string, options: OrgOptions) => {
      try {
        const connection = await withAdminServices((services) => run(services, options.org, id));
        print(options, toWireConnection(connection), () => describe(connection));
      } catch (error) {
        printFailure(options, error);
      }
    });
}

export function connectorsCommand(): Command {
  const connectors = new Command('connectors').description(
    'live connections to CRM accounts that bring deals in by themselves (docs/connectors.md)',
  );
  connectors
    .command('list')
    .description("list an org's CRM connections and their state")
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: OrgOptions) => {
      try {
        const rows = (await withAdminServices((services) => services.connections.list(options.org))).map(
          toWireConnection,
        );
        print(options, { connections: rows }, () => table(rows, COLUMNS));
      } catch (error) {
        printFailure(options, error);
      }
    });
  connectors
    .command('add')
    .description("connect a CRM app; prints the URL where the CRM account's admin grants access")
    .requiredOption('--org <org_id>', 'the org')
    .addOption(new Option('--kind <kind>', 'the CRM').choices(['hubspot', 'salesforce']).makeOptionMandatory())
    .requiredOption('--client-id <id>', "the CRM app's client id")
    .option('--client-secret-env <variable>', 'read the client secret from this environment variable')
    .option('--client-secret <secret>', 'the client secret (prefer --client-secret-env)')
    .option('--redirect-uri <url>', "the redirect URL registered with the app (the console's callback)")
    .option('--login-url <url>', 'Salesforce: the login URL (a sandbox, a My Domain); login.salesforce.com otherwise')
    .option('--jwt-username <user>', 'Salesforce JWT bearer flow: the user the connection acts as')
    .option('--jwt-key-file <pem>', "Salesforce JWT bearer flow: the connected app certificate's private key")
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: AddOptions) => {
      try {
        const jwt = jwtOf(options);
        const { connection, authorizeUrl } = await withAdminServices(async (services) => {
          const created = await services.connections.create(options.org, {
            kind: options.kind,
            clientId: options.clientId,
            clientSecret: clientSecretOf(options),
            redirectUri: options.redirectUri,
            loginUrl: options.loginUrl,
            jwt,
          });
          if (jwt !== undefined) {
            // The JWT bearer flow is authorized already: its first sync runs to its end.
            await services.connections.settled();
            return { connection: await services.connections.get(options.org, created.id), authorizeUrl: null };
          }
          const started = await services.connections.authorize(options.org, created.id);
          return { connection: created, authorizeUrl: started.authorizeUrl };
        });
        if (authorizeUrl === null) {
          print(options, toWireConnection(connection), () => describe(connection));
          return;
        }
        print(options, { ...toWireConnection(connection), authorize_url: authorizeUrl }, () =>
          [
            `Added ${connection.id}. Open this URL as an admin of the CRM account and grant access:`,
            `  ${authorizeUrl}`,
            `The CRM sends you back to ${connection.redirect_uri}, where the console completes the connection`,
            `(or: quotient connectors complete --org ${connection.org_id} --code CODE --state STATE).`,
          ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  connectors
    .command('complete')
    .description('exchange the code the CRM handed the redirect URL, then run the first sync to its end')
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--code <code>', 'the code of the redirect')
    .requiredOption('--state <state>', 'the state of the redirect')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: OrgOptions & { code: string; state: string }) => {
      try {
        const connection = await withAdminServices(async (services) => {
          const authorized = await services.connections.completeAuthorization(options.org, options);
          await services.connections.settled();
          return services.connections.get(options.org, authorized.id);
        });
        print(options, toWireConnection(connection), () => describe(connection));
      } catch (error) {
        printFailure(options, error);
      }
    });
  onConnection(connectors, 'show', "a connection's state", (services, org, id) => services.connections.get(org, id));
  onConnection(
    connectors,
    'authorize',
    'print a fresh authorization URL (another account, or a revoked grant)',
    async (services, org, id) => {
      const started = await services.connections.authorize(org, id);
      process.stderr.write(`Open this URL and grant access:\n  ${started.authorizeUrl}\n`);
      return services.connections.get(org, id);
    },
  );
  onConnection(connectors, 'pause', 'note the changes the CRM announces without applying them', (services, org, id) =>
    services.connections.pause(org, id),
  );
  onConnection(connectors, 'resume', 'apply what was noted while paused and go live again', (services, org, id) =>
    services.connections.resume(org, id),
  );
  connectors
    .command('resync')
    .description('read again the records the CRM changed since a time (all without --from), to the end')
    .argument('<connection>', 'the connection id (con_…)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--from <time>', 'records modified at or after this date or time', dateOf)
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (id: string, options: OrgOptions & { from?: Date }) => {
      try {
        const connection = await withAdminServices(async (services) => {
          await services.connections.resync(options.org, id, options.from);
          await services.connections.settled();
          return services.connections.get(options.org, id);
        });
        print(options, toWireConnection(connection), () => describe(connection));
      } catch (error) {
        printFailure(options, error);
      }
    });
  connectors
    .command('remove')
    .description('forget a connection and its tokens; the deals it brought in stay')
    .argument('<connection>', 'the connection id (con_…)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (id: string, options: OrgOptions) => {
      try {
        await withAdminServices((services) => services.connections.remove(options.org, id));
        print(options, { removed: id }, () => `Removed ${id}; its deals stay.`);
      } catch (error) {
        printFailure(options, error);
      }
    });
  connectors
    .command('preview')
    .description("the mapping as it applies to the CRM's first records (nothing is written)")
    .argument('<connection>', 'the connection id (con_…)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--limit <n>', 'records to show (1-100)', (value) => Number(value), 10)
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (id: string, options: OrgOptions & { limit: number }) => {
      try {
        const preview = toWireConnectionPreview(
          await withAdminServices((services) => services.connections.preview(options.org, id, options.limit)),
        );
        const stage = (found: { pipeline: string; label: string; stage_id: string }) =>
          `${found.pipeline} / ${found.label} (${found.stage_id})`;
        print(options, preview, () =>
          [
            `Mapping ${preview.mapping.name}`,
            `  won:  ${preview.mapping.won_stages.map(stage).join(', ') || '(none)'}`,
            `  lost: ${preview.mapping.lost_stages.map(stage).join(', ') || '(none)'}`,
            '  owners:',
            table(preview.mapping.owners, ['owner_id', 'email', 'rep_external_id', 'matched_by']),
            'First records:',
            ...preview.records.map(
              (record) =>
                `  ${record.external_id}: ${
                  record.refusal
                    ? `refused: ${record.refusal}`
                    : record.deleted
                      ? 'deleted'
                      : JSON.stringify(record.event)
                }`,
            ),
          ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  return connectors;
}
