import { Command } from 'commander';
import { adminsCommand } from './commands/admins.ts';
import { auditCommand } from './commands/audit.ts';
import { keysCommand } from './commands/keys.ts';
import { migrateCommand } from './commands/migrate.ts';
import { orgsCommand } from './commands/orgs.ts';
import { periodsCommand } from './commands/periods.ts';
import { plansCommand } from './commands/plans.ts';
import { recomputeCommand } from './commands/recompute.ts';
import { serveCommand } from './commands/serve.ts';
import { webhooksCommand } from './commands/webhooks.ts';
import { workerCommand } from './commands/worker.ts';

// `quotient`: the server and the admin commands. Every command takes --json and then prints exactly one
// JSON document on stdout; logs go to stderr.

const program = new Command('quotient')
  .description('Quotient: sales-compensation backend. Serve the API and administer orgs, keys and the audit log.')
  .showHelpAfterError()
  .exitOverride((error) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  });

for (const command of [
  serveCommand(),
  migrateCommand(),
  orgsCommand(),
  keysCommand(),
  adminsCommand(),
  plansCommand(),
  periodsCommand(),
  recomputeCommand(),
  webhooksCommand(),
  workerCommand(),
  auditCommand(),
]) {
  program.addCommand(command);
}

await program.parseAsync(process.argv);
