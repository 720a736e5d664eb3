import { useState } from 'preact/hooks';
import { plural } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import { Field, Notice, PageHeader } from '../components.tsx';

type Summary = Schemas['DealImportSummary'];
type MappingChoice = NonNullable<Schemas['DealImportRequest']['mapping']>;
type MissingChoice = NonNullable<Schemas['DealImportRequest']['missing']>;

/** The locales offered (the server reads these and more; `quotient import deals --locale` takes the same names). */
const LOCALES = [
  ['en-US', 'en-US: 3/14/2026, 12,500.00'],
  ['en-GB', 'en-GB: 14/03/2026, 12,500.00'],
  ['de-DE', 'de-DE: 14.03.2026, 12.500,00'],
  ['fr-FR', 'fr-FR: 14/03/2026, 12 500,00'],
  ['es-ES', 'es-ES: 14/03/2026, 12.500,00'],
  ['nl-NL', 'nl-NL: 14-03-2026, 12.500,00'],
  ['en-CA', 'en-CA: 2026-03-14, 12,500.00'],
] as const;

/**
 * The encodings the server reads a CSV in (src/domain/imports/text.ts, as `--encoding`); a byte order mark, or an
 * XLSX workbook, needs none.
 */
const ENCODINGS = [
  ['', 'UTF-8 (checked)'],
  ['windows-1252', 'Windows-1252 (older Excel)'],
  ['latin-1', 'Latin-1 (ISO 8859-1, read as Windows-1252)'],
  ['utf-16le', 'UTF-16 LE (without byte order mark)'],
  ['utf-16be', 'UTF-16 BE (without byte order mark)'],
] as const;

/** The largest file the upload takes: the operation's 8 MiB body holds about 6 MiB of file as base64. */
const MAX_FILE_BYTES = 6 * 1024 * 1024;

/** The file's bytes as base64, sent as they are: the server reads them as the CLI reads a file (CSV or XLSX). */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

/**
 * Upload a CRM export (HubSpot deals, Salesforce opportunities): check it first (a dry run, which applies
 * nothing), then import it. The server does the mapping and every check, as `quotient import deals` does.
 */
export function ImportsPage(props: { canChange: boolean }) {
  const [file, setFile] = useState('');
  const [fileName, setFileName] = useState<string | undefined>();
  const [mapping, setMapping] = useState<MappingChoice>('auto');
  const [locale, setLocale] = useState('');
  const [encoding, setEncoding] = useState('');
  const [currency, setCurrency] = useState('');
  const [missing, setMissing] = useState<MissingChoice>('report');
  const [busy, setBusy] = useState<'dry-run' | 'import' | undefined>();
  const [summary, setSummary] = useState<Summary | undefined>();
  const [error, setError] = useState<string | undefined>();

  const send = async (dryRun: boolean) => {
    setBusy(dryRun ? 'dry-run' : 'import');
    setSummary(undefined);
    setError(undefined);
    const { data, error: failure } = await api.POST('/admin/v1/deal-imports', {
      body: {
        file_base64: file,
        mapping,
        missing,
        dry_run: dryRun,
        ...(locale ? { locale } : {}),
        ...(encoding ? { encoding } : {}),
        ...(currency ? { currency } : {}),
        ...(fileName ? { file_name: fileName } : {}),
      },
    });
    setBusy(undefined);
    if (data) setSummary(data);
    else setError(describeError(failure));
  };

  return (
    <>
      <PageHeader
        title="Import deals"
        description="Upload a CSV or XLSX export of your CRM's deals (HubSpot) or opportunities (Salesforce). Check it first: nothing is applied until you import. Importing the same file again changes nothing. Files over 6 MiB: use quotient import deals."
      />
      {props.canChange ? null : <Notice kind="info">Viewers can read the console but not import deals.</Notice>}
      <form
        class="card apply"
        aria-labelledby="import-title"
        onSubmit={(event) => {
          event.preventDefault();
          void send(true);
        }}
      >
        <h2 id="import-title">CRM export</h2>
        <div class="apply-source">
          <label class="button" for="import-file">
            Choose CSV or XLSX file…
          </label>
          <input
            id="import-file"
            class="visually-hidden"
            type="file"
            accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
            disabled={!props.canChange}
            onChange={async (event) => {
              const chosen = event.currentTarget.files?.[0];
              if (!chosen) return;
              setFileName(chosen.name);
              setSummary(undefined);
              if (chosen.size > MAX_FILE_BYTES) {
                setFile('');
                setError(
                  `${chosen.name} is larger than 6 MiB: import it with quotient import deals, which streams it.`,
                );
                return;
              }
              setError(undefined);
              setFile(await base64Of(chosen));
            }}
          />
          <span class="muted" aria-live="polite">
            {fileName ?? 'No file chosen'}
          </span>
        </div>
        <Field label="Mapping" id="import-mapping" hint="Recognised from the header, or chosen here.">
          <select
            id="import-mapping"
            value={mapping}
            onChange={(event) => setMapping(event.currentTarget.value as MappingChoice)}
          >
            <option value="auto">Recognise from the header</option>
            <option value="hubspot">HubSpot deals export</option>
            <option value="salesforce">Salesforce opportunities report</option>
          </select>
        </Field>
        <Field
          label="Numbers and dates"
          id="import-locale"
          hint="The exporting user's locale. Left to the file, a file whose values do not settle it is refused, never guessed."
        >
          <select id="import-locale" value={locale} onChange={(event) => setLocale(event.currentTarget.value)}>
            <option value="">Decided by the file</option>
            {LOCALES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Encoding" id="import-encoding" hint="Of a CSV without a byte order mark; XLSX needs none.">
          <select id="import-encoding" value={encoding} onChange={(event) => setEncoding(event.currentTarget.value)}>
            {ENCODINGS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Currency"
          id="import-currency"
          hint="Of the rows that state none (a currency column of the export wins). Empty: the org's default currency."
        >
          <input
            id="import-currency"
            type="text"
            maxLength={3}
            pattern="[A-Za-z]{3}"
            placeholder="USD"
            autocomplete="off"
            value={currency}
            onInput={(event) => setCurrency(event.currentTarget.value.trim().toUpperCase())}
          />
        </Field>
        <Field
          label="Deals not in this file"
          id="import-missing"
          hint="The org's deals the export no longer has: listed, or deleted (their earnings reversed)."
        >
          <select
            id="import-missing"
            value={missing}
            onChange={(event) => setMissing(event.currentTarget.value as MissingChoice)}
          >
            <option value="report">List them, keep them</option>
            <option value="delete">Delete them</option>
          </select>
        </Field>
        {error ? <Notice kind="error">{error}</Notice> : null}
        {summary ? <ImportSummary summary={summary} /> : null}
        <div class="form-actions">
          <button type="submit" class="button" disabled={!props.canChange || busy !== undefined || file === ''}>
            {busy === 'dry-run' ? 'Checking…' : 'Check (dry run)'}
          </button>
          <button
            type="button"
            class="button button-primary"
            disabled={!props.canChange || busy !== undefined || file === '' || !summary?.dry_run}
            onClick={() => void send(false)}
          >
            {busy === 'import' ? 'Importing…' : 'Import'}
          </button>
        </div>
      </form>
    </>
  );
}

function ImportSummary(props: { summary: Summary }) {
  const { summary } = props;
  const counts = `${plural(summary.new_deals, 'new deal')}, ${plural(summary.updates, 'update')}, ${summary.unchanged} unchanged, ${summary.refused} refused`;
  return (
    <div role="status">
      <Notice kind={summary.refused > 0 ? 'error' : summary.dry_run ? 'info' : 'success'}>
        {summary.dry_run
          ? `Checked ${plural(summary.rows, 'row')} (${summary.mapping} mapping): would import ${counts}. Nothing was applied.`
          : `Imported ${plural(summary.rows, 'row')} (${summary.mapping} mapping): ${counts}.`}
      </Notice>
      <ImportReport summary={summary} />
      {summary.refusals.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption>Refused rows</caption>
            <thead>
              <tr>
                <th scope="col">Line</th>
                <th scope="col">Reason</th>
              </tr>
            </thead>
            <tbody>
              {summary.refusals.map((refusal) => (
                <tr key={refusal.line}>
                  <td>{refusal.line}</td>
                  <td>{refusal.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

/** What the import finds beyond the counts, as the CLI's report says it. */
function ImportReport(props: { summary: Summary }) {
  const { report, file, dry_run: dryRun } = props.summary;
  const listed = <T,>(list: { count: number; items: T[] }, show: (item: T) => string) =>
    `${list.items.map(show).join(', ')}${list.count > list.items.length ? ` … and ${list.count - list.items.length} more` : ''}`;
  const missing = report.missing_deals;
  const items: Array<[string, string]> = [
    ['File', `${file.format}, ${file.encoding}; ${file.numbers_and_dates}`],
    [
      'Currencies',
      report.currencies.map((c) => `${c.currency}: ${plural(c.rows, 'row')} (${c.stated_by.join(', ')})`).join('; ') ||
        'none',
    ],
  ];
  if (report.new_reps.count > 0) {
    items.push([
      dryRun ? 'New reps to be created' : 'New reps created',
      listed(report.new_reps, (rep) => `${rep.external_id} (line ${rep.line})`),
    ]);
  }
  if (report.rows_without_owner.count > 0) {
    items.push(['Rows without an owner', listed(report.rows_without_owner, (line) => `line ${line}`)]);
  }
  if (report.rows_without_close_date.count > 0) {
    items.push(['Rows without a close date', listed(report.rows_without_close_date, (line) => `line ${line}`)]);
  }
  if (report.open_stages.length > 0) {
    items.push([
      'Stages read as open',
      report.open_stages
        .map((s) => `${s.pipeline ? `${s.pipeline} / ` : ''}${s.stage} (${plural(s.rows, 'row')}, line ${s.line})`)
        .join('; '),
    ]);
  }
  if (report.deleted_rows.count > 0) {
    items.push([
      'Deleted in the CRM (skipped)',
      listed(report.deleted_rows, (row) => `${row.external_id} (line ${row.line})`),
    ]);
  }
  if (missing.count > 0) {
    items.push([
      missing.action === 'deleted'
        ? dryRun
          ? 'Deals not in this file, to be deleted'
          : `Deals not in this file, deleted (${missing.deleted})`
        : 'Deals not in this file (kept)',
      listed(missing, (deal) => deal.external_id),
    ]);
  }
  return (
    <dl class="import-report">
      {items.map(([term, detail]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{detail}</dd>
        </div>
      ))}
    </dl>
  );
}
