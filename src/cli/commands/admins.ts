import { Command } from 'commander';
import type { AdminRecord } from '../../repositories/admins.ts';
import { toAdmin } from '../../wire/admin.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

export function adminsCommand(): Command {
  const admins = new Command('admins').description('create, list and disable the admin console accounts of an org');
  admins
    .command('create')
    .description('create an admin account; its password is printed once and cannot be recovered')
    .requiredOption('--org <org_id>', 'the org the admin runs')
    .requiredOption('--email <email>', 'the email the admin signs in with (unique across orgs)')
    .option('--name <display_name>', 'the name shown in the console (default: the part of the email before @)')
    .option('--role <role>', 'admin (changes things) or viewer (reads everything, changes nothing)', 'admin')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; email: string; name?: string; role: string; json?: boolean }) => {
      try {
        const { created, url } = await withAdminServices(async (services, config) => ({
          created: await services.admins.create({
            orgId: options.org,
            email: options.email,
            role: options.role,
            ...(options.name === undefined ? {} : { displayName: options.name }),
          }),
          url: `http://localhost:${config.port}/admin/`,
        }));
        const { admin, password } = created;
        print(options, { ...describeAdmin(admin), password, sign_in_url: url }, () =>
          [
            `Created ${admin.role} ${admin.email} (${admin.id}) in org ${admin.org_id}.`,
            '',
            `  Sign in at ${url} with this password:`,
            '',
            `  ${password}`,
            '',
            'This is the only time the password is shown. Hand it over through a safe channel.',
          ].join('\n'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  admins
    .command('list')
    .description('list the admin accounts of an org (never their passwords)')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { org: string; json?: boolean }) => {
      try {
        const list = await withAdminServices((services) => services.admins.list(options.org));
        const rows = list.map(describeAdmin);
        print(options, { admins: rows }, () =>
          table(rows, ['id', 'email', 'display_name', 'role', 'status', 'created_at', 'disabled_at']),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  admins
    .command('disable')
    .description('disable an admin account: its sessions end at once and it can no longer sign in')
    .argument('<admin>', 'the admin id (adm_…) or email')
    .requiredOption('--org <org_id>', 'the org')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (idOrEmail: string, options: { org: string; json?: boolean }) => {
      try {
        const { admin, changed } = await withAdminServices((services) =>
          services.admins.disable(options.org, idOrEmail),
        );
        print(options, { ...describeAdmin(admin), changed }, () =>
          changed
            ? `Disabled ${admin.email} (${admin.id}); every session of the account has ended`
            : `${admin.email} (${admin.id}) was already disabled; nothing changed`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  return admins;
}

/** The admin as the admin API shows it, and the org it belongs to. */
function describeAdmin(admin: AdminRecord) {
  return { ...toAdmin(admin), org_id: admin.org_id };
}
