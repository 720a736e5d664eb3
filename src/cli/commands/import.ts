import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { Command } from 'commander';
import { parse } from 'yaml';
import { BUILT_IN_MAPPINGS, type Mapping, parseMapping } from '../../domain/imports/mapping.ts';
import { Refusal } from '../../domain/refusal.ts';
import { loadContract } from '../../http/contract.ts';
import { DealEventCheck } from '../../http/dealEventCheck.ts';
import type { ImportSummary, Listed } from '../../services/dealImport.ts';
import {
  type ExportBytes,
  type ExportRead,
  type FileDescription,
  type ReadOptions,
  readExportBytes,
} from '../../services/exportFile.ts';
import { withAdminServices } from '../context.ts';
import { print, printFailure } from '../output.ts';
import { importProgressBar } from '../progress.ts';

interface ImportOptions {
  org: string;
  mapping?: string;
  dryRun?: boolean;
  json?: boolean;
  locale?: string;
  currency?: string;
  encoding?: string;
  missing?: string;
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
    .argument('<file>', 'the CSV file (UTF-8, UTF-16 with BOM, or --encoding) or XLSX workbook')
    .requiredOption('--org <org_id>', 'the org')
    .option(
      '--locale <locale>',
      'how the file writes numbers and dates (en-US, en-GB, de-DE, fr-FR, ...); default: what the file decides, refused when it does not',
    )
    .option(
      '--currency <code>',
      "the currency of rows that state none (default: the org's default, stated in the report)",
    )
    .option('--encoding <encoding>', 'the encoding of a CSV without a byte order mark: utf-8 (default) or windows-1252')
    .option(
      '--missing <report|delete>',
      "the org's deals this file does not have: report lists them (default), delete sends each a delete event",
    )
    .option(
      '--mapping <file|hubspot|salesforce|salesforce-api>',
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

type ImportReport = ImportSummary & { mapping: string; file: FileDescription };

/** An export being read: its mapping, its rows as they come, the bytes read so far and its size. */
export interface OpenExport extends ExportRead {
  bytesRead: () => number;
  size: number;
  close: () => void;
  /** The deal-event check the rows were checked with (for the deletions of --missing delete). */
  check: DealEventCheck;
}

/**
 * Opens an export (CSV or XLSX) and reads it as the upload does (src/services/exportFile.ts), streaming the file
 * from disk; its rows are checked as the API checks a deal event, as they are read. A file that cannot be read or
 * mapped is refused with its name.
 */
export async function openExport(file: string, chosen?: Mapping, options: ReadOptions = {}): Promise<OpenExport> {
  const size = (await stat(file).catch(() => null))?.size;
  if (size === undefined) throw new Refusal('invalid_body', `cannot read ${file}`);
  const check = new DealEventCheck(loadContract());
  const streams: Array<ReturnType<typeof createReadStream>> = [];
  let bytesRead = 0;
  try {
    const bytes: ExportBytes = {
      start: await firstBytes(file, 4),
      whole: async () => {
        const whole = await readFile(file);
        bytesRead = size;
        return whole;
      },
      chunks: async function* () {
        const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
        streams.push(stream);
        bytesRead = 0;
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          bytesRead += chunk.length;
          yield chunk;
        }
      },
    };
    const read = await readExportBytes(bytes, (body) => check.outcome(body), chosen, options);
    return {
      ...read,
      bytesRead: () => bytesRead,
      size,
      close: () => {
        for (const stream of streams) stream.destroy();
      },
      check,
    };
  } catch (error) {
    for (const stream of streams) stream.destroy();
    if (error instanceof Refusal && error.code === 'invalid_body') {
      throw new Refusal('invalid_body', `${file}: ${error.reason}`);
    }
    throw error;
  }
}

async function firstBytes(file: string, count: number): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(count);
    const { bytesRead } = await handle.read(buffer, 0, count, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

async function importDeals(file: string, options: ImportOptions): Promise<ImportReport> {
  const missing = options.missing ?? 'report';
  if (missing !== 'report' && missing !== 'delete') {
    throw new Refusal('invalid_body', `--missing ${missing}: report or delete`);
  }
  const chosen = options.mapping === undefined ? undefined : await loadMapping(options.mapping);
  let bar: ReturnType<typeof importProgressBar> | undefined;
  let opened: OpenExport | undefined;
  try {
    return await withAdminServices(async (services) => {
      const fallbackCurrency = await services.dealImport.defaultCurrencyOf(options.org);
      opened = await openExport(file, chosen, { ...options, fallbackCurrency });
      const current = opened;
      bar = process.stderr.isTTY ? importProgressBar(process.stderr, current.size) : undefined;
      const check = current.check;
      const summary = await services.dealImport.run({
        orgId: options.org,
        rows: current.rows,
        dryRun: options.dryRun === true,
        source: file,
        missing: missing === 'delete' ? { mode: 'delete', check: (body) => check.outcome(body) } : { mode: 'report' },
        onProgress: (progress) =>
          progress.phase === 'rows'
            ? bar?.update(progress.rowsDone, current.bytesRead())
            : bar?.evaluating(progress.dealsDone, progress.dealsPending),
      });
      return { ...summary, mapping: current.mapping.name, file: current.file };
    });
  } catch (error) {
    if (error instanceof Refusal && error.code === 'invalid_body' && !error.reason.startsWith(file)) {
      throw new Refusal('invalid_body', `${file}: ${error.reason}`);
    }
    throw error;
  } finally {
    bar?.done();
    opened?.close();
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
  const { report, file } = summary;
  const lines = [
    `${verb} ${summary.rows} rows (${summary.mapping} mapping) in ${summary.seconds} s: ${summary.new_deals} new deals, ${summary.updates} updates, ` +
      `${summary.unchanged} unchanged (imported before, or repeated in the file), ${summary.refused} refused` +
      (summary.dry_run ? ' (dry run: nothing applied)' : `; earnings evaluated for ${summary.evaluated} deals`),
    `  file: ${file.format}, ${file.encoding}; ${file.numbers_and_dates}`,
  ];
  if (file.heading_lines.length > 0) lines.push(`  report heading lines (not rows): ${file.heading_lines.join(', ')}`);
  if (file.footer_lines.length > 0) lines.push(`  report footer lines (not rows): ${file.footer_lines.join(', ')}`);
  const listed = <T>(title: string, list: Listed<T>, show: (item: T) => string) => {
    if (list.count === 0) return;
    const more = list.count > list.items.length ? ` … and ${list.count - list.items.length} more` : '';
    lines.push(`  ${title} (${list.count}): ${list.items.map(show).join(', ')}${more}`);
  };
  lines.push(
    `  currencies: ${report.currencies.map((c) => `${c.currency} ${c.rows} rows (${c.stated_by.join(', ')})`).join('; ') || 'none'}`,
  );
  listed(
    summary.dry_run ? 'new reps to be created' : 'new reps created',
    report.new_reps,
    (rep) => `${rep.external_id} (line ${rep.line})`,
  );
  listed('rows without an owner', report.rows_without_owner, (line) => `line ${line}`);
  listed('rows without a close date', report.rows_without_close_date, (line) => `line ${line}`);
  if (report.open_stages.length > 0) {
    lines.push(
      `  stages read as open deals: ${report.open_stages
        .map((s) => `${s.pipeline ? `${s.pipeline} / ` : ''}${s.stage} (${s.rows} rows, first line ${s.line})`)
        .join('; ')}`,
    );
  }
  listed(
    'rows deleted or archived in the CRM (skipped)',
    report.deleted_rows,
    (row) => `${row.external_id} (line ${row.line})`,
  );
  listed('rows repeating an earlier row (counted unchanged)', report.repeated_rows, (line) => `line ${line}`);
  const missing = report.missing_deals;
  listed(
    missing.action === 'deleted'
      ? summary.dry_run
        ? 'deals not in this file, to be deleted (--missing delete)'
        : `deals not in this file, deleted (${missing.deleted})`
      : 'deals not in this file (kept; --missing delete would delete them)',
    missing,
    (deal) => deal.external_id,
  );
  lines.push(...summary.refusals.map((refusal) => `  line ${refusal.line}: ${refusal.reason}`));
  if (summary.refused > summary.refusals.length) {
    lines.push(
      `  … and ${summary.refused - summary.refusals.length} more refused rows (--json lists the first ones too)`,
    );
  }
  return lines.join('\n');
}
