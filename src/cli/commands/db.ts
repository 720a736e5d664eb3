import { Command } from 'commander';
import { loadConfig } from '../../config.ts';
import { distributeOnCitus } from '../../db/citus.ts';
import { describeUrl, probeDatabase } from '../../db/database.ts';
import { embeddedStatus } from '../../db/embedded.ts';
import { withDatabase } from '../context.ts';
import { print, printFailure } from '../output.ts';

/** What `quotient db status` reports: the database this configuration uses, without starting or creating it. */
type DatabaseStatus =
  | { database: 'url'; url: string; reachable: boolean; reason?: string }
  | {
      database: 'embedded';
      data_dir: string;
      initialised: boolean;
      running: boolean;
      port: number | null;
      /** PIDs of the Quotient processes holding the cluster up; the last one to stop stops it. */
      holders: number[];
    };

export function dbCommand(): Command {
  const db = new Command('db').description('the database Quotient uses');
  db.command('status')
    .description(
      'which database this configuration uses and its state (embedded: initialised, running, port, holders); starts nothing',
    )
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { json?: boolean }) => {
      try {
        const status = await databaseStatus();
        print(options, status, () => describe(status));
      } catch (error) {
        printFailure(options, error);
      }
    });
  db.command('distribute')
    .description(
      'on a Citus coordinator: distribute the migrated schema by org (orgs by id, every org-scoped table by org_id colocated with orgs, credential_orgs a reference table); idempotent, refused without the citus extension (docs/scaling.md)',
    )
    .option('--json', 'print exactly one JSON document on stdout')
    .action(async (options: { json?: boolean }) => {
      try {
        const result = await withDatabase((database) => distributeOnCitus(database.sessionUrl));
        print(options, result, () =>
          result.distributed.length === 0
            ? `Every table is distributed already (${result.already.length}).`
            : `Distributed ${result.distributed.length} table(s): ${result.distributed.join(', ')}` +
              (result.already.length > 0 ? `; ${result.already.length} were already.` : '.'),
        );
      } catch (error) {
        printFailure(options, error);
      }
    });
  return db;
}

async function databaseStatus(): Promise<DatabaseStatus> {
  const config = loadConfig();
  if (config.databaseUrl) {
    const url = describeUrl(config.databaseUrl);
    return { database: 'url', url, ...(await probeDatabase(config.databaseUrl)) };
  }
  const status = await embeddedStatus(config.dataDir);
  return {
    database: 'embedded',
    data_dir: status.dataDir,
    initialised: status.initialised,
    running: status.running,
    port: status.port,
    holders: status.leases,
  };
}

function describe(status: DatabaseStatus): string {
  if (status.database === 'url') {
    return status.reachable
      ? `DATABASE_URL (${status.url}): reachable.`
      : `DATABASE_URL (${status.url}): not reachable: ${status.reason}`;
  }
  if (!status.initialised) {
    return `Embedded PostgreSQL in ${status.data_dir}: none yet (the first command or \`npm start\` creates it).`;
  }
  if (!status.running) return `Embedded PostgreSQL in ${status.data_dir}: stopped.`;
  const holders = status.holders.length > 0 ? `held up by process(es) ${status.holders.join(', ')}` : 'no holders';
  return `Embedded PostgreSQL in ${status.data_dir}: running on port ${status.port}, ${holders}.`;
}
