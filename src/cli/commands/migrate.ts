import { Command } from 'commander';
import { withDatabase } from '../context.ts';
import { print, printFailure } from '../output.ts';

export function migrateCommand(): Command {
  return new Command('migrate')
    .description('apply pending database migrations (the server also applies them on start)')
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { json?: boolean }) => {
      try {
        const applied = await withDatabase(async (database) => database.appliedMigrations);
        print(options, { applied }, () =>
          applied.length === 0
            ? 'The database schema is up to date.'
            : `Applied ${applied.length} migration(s): ${applied.join(', ')}`,
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
}
