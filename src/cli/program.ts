import { Command, type CommanderError } from 'commander';
import { acceptancesCommand } from './commands/acceptances.ts';
import { accountingCommand } from './commands/accounting.ts';
import { adjustmentsCommand } from './commands/adjustments.ts';
import { adminsCommand } from './commands/admins.ts';
import { approvalsCommand } from './commands/approvals.ts';
import { auditCommand } from './commands/audit.ts';
import { connectorsCommand } from './commands/connectors.ts';
import { dbCommand } from './commands/db.ts';
import { demoCommand } from './commands/demo.ts';
import { fxCommand } from './commands/fx.ts';
import { importCommand } from './commands/import.ts';
import { inquiriesCommand } from './commands/inquiries.ts';
import { keysCommand } from './commands/keys.ts';
import { migrateCommand } from './commands/migrate.ts';
import { orgsCommand } from './commands/orgs.ts';
import { periodsCommand } from './commands/periods.ts';
import { plansCommand } from './commands/plans.ts';
import { quotasCommand } from './commands/quotas.ts';
import { recomputeCommand } from './commands/recompute.ts';
import { repsCommand } from './commands/reps.ts';
import { serveCommand } from './commands/serve.ts';
import { ssoCommand } from './commands/sso.ts';
import { usersCommand } from './commands/users.ts';
import { webhooksCommand } from './commands/webhooks.ts';
import { workerCommand } from './commands/worker.ts';

// `quotient`: the server and the admin commands. Every command takes --json and then prints exactly one
// JSON document on stdout; logs go to stderr. Every refusal exits 2, usage errors included.

export function buildProgram(argv: readonly string[] = process.argv): Command {
  const program = new Command('quotient').description(
    'Quotient: sales-compensation backend. Serve the API and administer orgs, keys and the audit log.',
  );
  for (const command of [
    serveCommand(),
    migrateCommand(),
    dbCommand(),
    orgsCommand(),
    keysCommand(),
    adminsCommand(),
    plansCommand(),
    usersCommand(),
    quotasCommand(),
    repsCommand(),
    ssoCommand(),
    periodsCommand(),
    adjustmentsCommand(),
    approvalsCommand(),
    inquiriesCommand(),
    acceptancesCommand(),
    accountingCommand(),
    recomputeCommand(),
    importCommand(),
    connectorsCommand(),
    fxCommand(),
    webhooksCommand(),
    workerCommand(),
    auditCommand(),
    demoCommand(),
  ]) {
    program.addCommand(command);
  }
  handleUsageErrors(program, argv.includes('--json'));
  return program;
}

/** Every command of the tree, the program first (addCommand does not pass settings down, so we walk it). */
export function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

/**
 * Commander's usage errors (missing required option or argument, unknown option or command, excess argument)
 * exit 2 like every other refusal; with --json they print one `{"error": "usage_error", "reason"}` document on
 * stdout instead of commander's text. Help and --version still exit 0.
 */
function handleUsageErrors(program: Command, json: boolean): void {
  for (const command of allCommands(program)) {
    command.showHelpAfterError(!json);
    command.configureOutput({
      // With --json the reason goes into the document below, not to stderr.
      outputError: (text, write) => {
        if (!json) write(text);
      },
    });
    command.exitOverride((error: CommanderError) => {
      if (error.exitCode === 0) process.exit(0);
      if (json) {
        process.stdout.write(`${JSON.stringify({ error: 'usage_error', reason: usageReason(error, command) })}\n`);
      }
      process.exit(2);
    });
  }
}

function usageReason(error: CommanderError, command: Command): string {
  const message = error.message.replace(/^error:\s*/, '');
  const path = commandPath(command);
  return `${message} (see: quotient ${path ? `${path} ` : ''}--help)`;
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}
