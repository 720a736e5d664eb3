import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { Command } from 'commander';
import { parse } from 'yaml';
import { BUILT_IN_MAPPINGS, type Mapping, parseMapping } from '../../domain/imports/mapping.ts';
import { exportRows, type ImportRow } from '../../domain/imports/rows.ts';
import { Refusal } from '../../domain/refusal.ts';
import { loadContract } from '../../http/contract.ts';
import { DealEventCheck } from '../../http/dealEventCheck.ts';
import type { ImportSummary } from '../../services/dealImport.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure } from '../output.ts';
import { importProgressBar } from '../progress.ts';

interface ImportOptions {
  org: string;
  mapping?: string;
  dryRun?: boolean;
  json?: boolean;
}

// `quotient import deals FILE.csv`: an admin command like the others (the database directly, no server or API key
// needed), through the same pipeline as POST /v1/deals/events/batch.

export function importCommand(): Command {
  const command = new Command('import').description('import history from a CRM export');
  command
    .command('deals')
    .description(
      'import deals from a CSV export (HubSpot deals, Salesforce opportunities, or any CSV with --mapping FILE.yaml): ' +
        'one deal event per row, each with a dedup key derived from the row, so running the same import again ' +
        'changes nothing and a run cut short resumes where it stopped',
    )
    .argument('<file>', 'the CSV file (UTF-8, header row first)')
    .requiredOption('--org <org_id>', 'the org')
    .option(
      '--mapping <file|hubspot|salesforce>',
      'a mapping file (YAML; see docs/day-one.md) or a built-in mapping; default: recognised from the header',
    )
    .option('--dry-run', 'check every row and say what would happen; apply nothing')
    .option('--json', 'print exactly one JSON document on stdout (the progress bar still goes to a terminal stderr)')
    .action(async (file: string, options: ImportOptions) => {
      try {
        const summary = await importDeals(file, options);
        print(options, summary, () => describeImport(summary));
        if (summary.refused > 0) process.exitCode = 2;
      } catch (error) {
        printFailure(options, error);
      }
    });
  return command;
}

type ImportReport = ImportSummary & { mapping: string };

/** An export being read: its mapping, its rows as they come, the bytes read so far and its size. */
export interface OpenExport {
  mapping: Mapping;
  rows: AsyncIterable<ImportRow>;
  bytesRead: () => number;
  size: number;
  close: () => void;
}

/**
 * Opens a CSV export and reads its header (the mapping given, or the one recognised from it); its rows are checked
 * as the API checks a deal event, as they are read. A file that cannot be read or mapped is refused with its name.
 */
export async function openExport(file: string, chosen?: Mapping): Promise<OpenExport> {
  const size = (await stat(file).catch(() => null))?.size;
  if (size === undefined) throw new Refusal('invalid_body', `cannot read ${file}`);
  let bytesRead = 0;
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  async function* counted(): AsyncGenerator<string> {
    for await (const chunk of stream as AsyncIterable<string>) {
      bytesRead += Buffer.byteLength(chunk);
      yield chunk;
    }
  }
  const check = new DealEventCheck(loadContract());
  try {
    const { mapping, rows } = await exportRows(counted(), chosen, (body) => check.outcome(body));
    return { mapping, rows, bytesRead: () => bytesRead, size, close: () => stream.destroy() };
  } catch (error) {
    stream.destroy();
    if (error instanceof Refusal && error.code === 'invalid_body') {
      throw new Refusal('invalid_body', `${file}: ${error.reason}`);
    }
    throw error;
  }
}

async function importDeals(file: string, options: ImportOptions): Promise<ImportReport> {
  const chosen = options.mapping === undefined ? undefined : await loadMapping(options.mapping);
  const opened = await openExport(file, chosen);
  const { mapping, rows, size } = opened;
  const bytesRead = opened.bytesRead;
  const bar = process.stderr.isTTY ? importProgressBar(process.stderr, size) : undefined;
  try {
    const summary = await withAdminServices((services) =>
      services.dealImport.run({
        orgId: options.org,
        rows,
        dryRun: options.dryRun === true,
        source: file,
        onProgress: (progress) =>
          progress.phase === 'rows'
            ? bar?.update(progress.rowsDone, bytesRead())
            : bar?.evaluating(progress.dealsDone, progress.dealsPending),
      }),
    );
    return { ...summary, mapping: mapping.name };
  } catch (error) {
    if (error instanceof Refusal && error.code === 'invalid_body') {
      throw new Refusal('invalid_body', `${file}: ${error.reason}`);
    }
    throw error;
  } finally {
    bar?.done();
    opened.close();
  }
}

async function loadMapping(name: string): Promise<Mapping> {
  const builtIn = BUILT_IN_MAPPINGS[name];
  if (builtIn) return builtIn;
  const text = await readFile(name, 'utf8').catch(() => {
    throw new Refusal(
      'invalid_body',
      `--mapping ${name}: neither a mapping file nor a built-in mapping (${Object.keys(BUILT_IN_MAPPINGS).join(', ')})`,
    );
  });
  try {
    return parseMapping(parse(text), name);
  } catch (error) {
    if (error instanceof Refusal) throw new Refusal('invalid_body', `${name}: ${error.reason}`);
    throw new Refusal('invalid_body', `${name}: not YAML (${(error as Error).message})`);
  }
}

export function describeImport(summary: ImportReport): string {
  const verb = summary.dry_run ? 'Would import' : 'Imported';
  const lines = [
    `${verb} ${summary.rows} rows (${summary.mapping} mapping) in ${summary.seconds} s: ${summary.new_deals} new deals, ${summary.updates} updates, ` +
      `${summary.unchanged} unchanged (imported before), ${summary.refused} refused` +
      (summary.dry_run ? ' (dry run: nothing applied)' : `; earnings evaluated for ${summary.evaluated} deals`),
    ...summary.refusals.map((refusal) => `  line ${refusal.line}: ${refusal.reason}`),
  ];
  if (summary.refused > summary.refusals.length) {
    lines.push(
      `  … and ${summary.refused - summary.refusals.length} more refused rows (--json lists the first ones too)`,
    );
  }
  return lines.join('\n');
}
