import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { Command } from 'commander';
import { parse } from 'yaml';
import { CsvSyntaxError, csvRecords } from '../../domain/imports/csv.ts';
import {
  BUILT_IN_MAPPINGS,
  InvalidMapping,
  type Mapping,
  parseMapping,
  RefusedRow,
  RowMapper,
} from '../../domain/imports/mapping.ts';
import { loadContract } from '../../http/contract.ts';
import { DealEventCheck } from '../../http/dealEventCheck.ts';
import { ApiError } from '../../http/errors.ts';
import { AdminError } from '../../services/adminError.ts';
import type { ImportRow, ImportSummary } from '../../services/dealImport.ts';
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

async function importDeals(file: string, options: ImportOptions): Promise<ImportSummary> {
  const size = (await stat(file).catch(() => null))?.size;
  if (size === undefined) throw new AdminError('invalid_argument', `cannot read ${file}`);
  const chosen = options.mapping === undefined ? undefined : await loadMapping(options.mapping);
  let bytesRead = 0;
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  async function* counted(): AsyncGenerator<string> {
    for await (const chunk of stream as AsyncIterable<string>) {
      bytesRead += Buffer.byteLength(chunk);
      yield chunk;
    }
  }
  const records = csvRecords(counted());
  const header = await records.next();
  if (header.done) throw new AdminError('invalid_argument', `${file} is empty: it needs a header row`);
  const mapping = chosen ?? recognise(header.value.fields);
  const mapper = (() => {
    try {
      return new RowMapper(mapping, header.value.fields);
    } catch (error) {
      if (error instanceof InvalidMapping) throw new AdminError('invalid_argument', error.message);
      throw error;
    }
  })();
  const check = new DealEventCheck(loadContract());
  const width = header.value.fields.length;
  async function* rows(): AsyncGenerator<ImportRow> {
    try {
      for await (const { line, fields } of records) {
        if (fields.length !== width) {
          yield { line, refusal: `has ${fields.length} fields where the header has ${width}` };
          continue;
        }
        try {
          const body = mapper.eventOf(fields);
          yield { line, event: check.check(body), body };
        } catch (error) {
          if (error instanceof RefusedRow) yield { line, refusal: error.message };
          else if (error instanceof ApiError) yield { line, refusal: error.reason ?? error.code };
          else throw error;
        }
      }
    } catch (error) {
      if (error instanceof CsvSyntaxError) throw new AdminError('invalid_argument', `${file}: ${error.message}`);
      throw error;
    }
  }
  const bar = process.stderr.isTTY ? importProgressBar(process.stderr, size) : undefined;
  try {
    return await withAdminServices((services) =>
      services.dealImport.run({
        orgId: options.org,
        rows: rows(),
        dryRun: options.dryRun === true,
        onProgress: (done) => bar?.update(done, bytesRead),
      }),
    );
  } finally {
    bar?.done();
    stream.destroy();
  }
}

async function loadMapping(name: string): Promise<Mapping> {
  const builtIn = BUILT_IN_MAPPINGS[name];
  if (builtIn) return builtIn;
  const text = await readFile(name, 'utf8').catch(() => {
    throw new AdminError(
      'invalid_argument',
      `--mapping ${name}: neither a mapping file nor a built-in mapping (${Object.keys(BUILT_IN_MAPPINGS).join(', ')})`,
    );
  });
  try {
    return parseMapping(parse(text), name);
  } catch (error) {
    if (error instanceof InvalidMapping) throw new AdminError('invalid_argument', `${name}: ${error.message}`);
    throw new AdminError('invalid_argument', `${name}: not YAML (${(error as Error).message})`);
  }
}

/** The built-in mapping whose id and stage columns the header has. */
function recognise(header: readonly string[]): Mapping {
  const columns = new Set(header.map((name) => name.trim()));
  const found = Object.values(BUILT_IN_MAPPINGS).find(
    (mapping) => columns.has(mapping.id) && columns.has(mapping.stage),
  );
  if (!found) {
    throw new AdminError(
      'invalid_argument',
      'the header is not that of a HubSpot deal export or a Salesforce opportunity report: give --mapping FILE.yaml',
    );
  }
  return found;
}

export function describeImport(summary: ImportSummary): string {
  const verb = summary.dry_run ? 'Would import' : 'Imported';
  const lines = [
    `${verb} ${summary.rows} rows in ${summary.seconds} s: ${summary.new_deals} new deals, ${summary.updates} updates, ` +
      `${summary.unchanged} unchanged (imported before), ${summary.refused} refused` +
      (summary.dry_run ? ' (dry run: nothing applied)' : ''),
    ...summary.refusals.map((refusal) => `  line ${refusal.line}: ${refusal.reason}`),
  ];
  if (summary.refused > summary.refusals.length) {
    lines.push(
      `  … and ${summary.refused - summary.refusals.length} more refused rows (--json lists the first ones too)`,
    );
  }
  return lines.join('\n');
}
