import { Command } from 'commander';
import { OrgRepository } from '../../repositories/orgs.ts';
import { AdminError } from '../../services/adminError.ts';
import { withDatabase } from '../context.ts';
import { print, printFailure, table } from '../output.ts';

export function orgsCommand(): Command {
  const orgs = new Command('orgs').description('create and list organisations');
  orgs
    .command('create')
    .description('create an organisation')
    .requiredOption('--name <name>', 'display name of the organisation')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { name: string; json?: boolean }) => {
      try {
        const name = options.name.trim();
        if (!name) throw new AdminError('invalid_argument', 'the org needs a non-empty --name');
        const org = await withDatabase((database) => new OrgRepository(database.db).create(name));
        print(
          options,
          { id: org.id, name: org.name, created_at: org.created_at },
          () => `Created org ${org.id} (${org.name})`,
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
        const list = await withDatabase((database) => new OrgRepository(database.db).list());
        print(options, { orgs: list }, () => table(list, ['id', 'name', 'created_at']));
      } catch (error) {
        printFailure(options, error);
      }
    });
  return orgs;
}
