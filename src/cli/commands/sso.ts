import { Command, InvalidArgumentError } from 'commander';
import { secretFromEnvironment } from '../../config.ts';
import { Refusal } from '../../domain/refusal.ts';
import { toWireIdentityProvider } from '../../wire/identityProviders.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

interface AddOptions {
  org: string;
  name: string;
  issuer: string;
  clientId: string;
  clientSecret?: string;
  clientSecretEnv?: string;
  emailDomain: string[];
  emailClaim?: string;
  ownerIdClaim?: string;
  allowAdmins?: boolean;
  json?: boolean;
}

/** A repeated option's values; with no default, so leaving a required one out is a usage error. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `yes` or `no`, for a flag that can turn a setting off as well as on. */
function yesNo(value: string): boolean {
  if (value === 'yes') return true;
  if (value === 'no') return false;
  throw new InvalidArgumentError('yes or no');
}

/** The secret from --client-secret-env (kept out of shell history and process lists) or --client-secret. */
function clientSecretOf(options: Pick<AddOptions, 'clientSecret' | 'clientSecretEnv'>): string {
  if (options.clientSecretEnv !== undefined) {
    const value = secretFromEnvironment(options.clientSecretEnv);
    if (!value) throw new Refusal('invalid_body', `the environment variable ${options.clientSecretEnv} is not set`);
    return value;
  }
  if (options.clientSecret === undefined)
    throw new Refusal('invalid_body', 'give --client-secret-env NAME or --client-secret SECRET');
  return options.clientSecret;
}

interface UpdateOptions {
  org: string;
  clientId?: string;
  clientSecret?: string;
  clientSecretEnv?: string;
  emailDomain?: string[];
  emailClaim?: string;
  ownerIdClaim?: string;
  invitationsOnly?: boolean;
  allowAdmins?: boolean;
  json?: boolean;
}

export function ssoCommand(): Command {
  const sso = new Command('sso').description(
    'single sign-on to the rep portal (and the console) through OpenID Connect',
  );
  const providers = new Command('providers').description("an org's OpenID Connect identity providers (docs/sso.md)");
  providers
    .command('add')
    .description('connect an identity provider; its client secret is stored and never shown again')
    .requiredOption('--org <org_id>', 'the org')
    .requiredOption('--name <name>', 'the name in sign-in URLs (lower-case letters, digits, dashes)')
    .requiredOption('--issuer <url>', "the provider's issuer URL (https)")
    .requiredOption('--client-id <id>', 'the client id Quotient was registered with')
    .option('--client-secret-env <variable>', 'read the client secret from this environment variable')
    .option('--client-secret <secret>', 'the client secret (prefer --client-secret-env)')
    .requiredOption('--email-domain <domain>', 'an email domain that may sign in (repeat for more)', collect)
    .option('--email-claim <claim>', 'the ID token claim with the email', 'email')
    .option('--owner-id-claim <claim>', "the ID token claim with the rep's CRM owner id (their external id)")
    .option('--allow-admins', 'admins of the org may sign in to the console through this provider')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: AddOptions) => {
      try {
        const created = await withAdminServices((services) =>
          services.portalAccess.addProvider({
            orgId: options.org,
            name: options.name,
            issuer: options.issuer,
            clientId: options.clientId,
            clientSecret: clientSecretOf(options),
            emailDomains: options.emailDomain,
            ...(options.emailClaim === undefined ? {} : { emailClaim: options.emailClaim }),
            ...(options.ownerIdClaim === undefined ? {} : { ownerIdClaim: options.ownerIdClaim }),
            adminsAllowed: options.allowAdmins === true,
          }),
        );
        const wire = toWireIdentityProvider(created);
        print(options, wire, () =>
          [
            `Added identity provider ${wire.name} (${wire.id}) to org ${created.org_id}.`,
            `  Register this redirect URI at the provider: https://<your Quotient host>/portal/callback`,
            `  Reps sign in at: https://<your Quotient host>/portal/?org=${created.org_id}&provider=${wire.name}`,
          ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  providers
    .command('list')
    .description("list an org's identity providers (never their secrets)")
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; json?: boolean }) => {
      try {
        const list = await withAdminServices((services) => services.portalAccess.listProviders(options.org));
        const rows = list.map(toWireIdentityProvider);
        print(options, { identity_providers: rows }, () =>
          table(
            rows.map((row) => ({ ...row, email_domains: row.email_domains.join(',') })),
            ['id', 'name', 'issuer', 'client_id', 'email_domains', 'owner_id_claim', 'admins_allowed'],
          ),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  providers
    .command('update')
    .description('change a provider in place: rotate its client secret, or its client id, domains, claims, admins')
    .argument('<provider>', 'the provider id (idp_…) or name')
    .requiredOption('--org <org_id>', 'the org')
    .option('--client-id <id>', 'a new client id')
    .option('--client-secret-env <variable>', 'read a new client secret from this environment variable')
    .option('--client-secret <secret>', 'a new client secret (prefer --client-secret-env)')
    .option('--email-domain <domain>', 'the email domains that may sign in, replacing the old (repeat)', collect)
    .option('--email-claim <claim>', 'the ID token claim with the email')
    .option('--owner-id-claim <claim>', "the ID token claim with the rep's CRM owner id")
    .option('--invitations-only', 'stop linking people to reps by a claim: only invited emails')
    .option('--allow-admins <yes|no>', 'whether admins may sign in to the console through it', yesNo)
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (provider: string, options: UpdateOptions) => {
      try {
        if (options.invitationsOnly && options.ownerIdClaim !== undefined) {
          throw new Refusal('invalid_body', 'give --owner-id-claim or --invitations-only, not both');
        }
        const rotates = options.clientSecret !== undefined || options.clientSecretEnv !== undefined;
        const updated = await withAdminServices((services) =>
          services.portalAccess.updateProvider(options.org, provider, {
            ...(options.clientId === undefined ? {} : { clientId: options.clientId }),
            ...(rotates ? { clientSecret: clientSecretOf(options) } : {}),
            ...(options.emailDomain === undefined ? {} : { emailDomains: options.emailDomain }),
            ...(options.emailClaim === undefined ? {} : { emailClaim: options.emailClaim }),
            ...(options.invitationsOnly ? { ownerIdClaim: null } : {}),
            ...(options.ownerIdClaim === undefined ? {} : { ownerIdClaim: options.ownerIdClaim }),
            ...(options.allowAdmins === undefined ? {} : { adminsAllowed: options.allowAdmins }),
          }),
        );
        const wire = toWireIdentityProvider(updated);
        print(options, wire, () => `Updated identity provider ${wire.name} (${wire.id})`);
      } catch (error) {
        printFailure(options, error);
      }
    });
  providers
    .command('remove')
    .description('remove an identity provider: nobody can sign in through it any more')
    .argument('<provider>', 'the provider id (idp_…) or name')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (provider: string, options: { org: string; json?: boolean }) => {
      try {
        const removed = await withAdminServices((services) =>
          services.portalAccess.removeProvider(options.org, provider),
        );
        print(
          options,
          toWireIdentityProvider(removed),
          () => `Removed identity provider ${removed.name} (${removed.id})`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  sso.addCommand(providers);
  return sso;
}
