import { useState } from 'preact/hooks';
import { plural } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import { Field, Notice, PageHeader } from '../components.tsx';

type Summary = Schemas['DealImportSummary'];
type MappingChoice = NonNullable<Schemas['DealImportRequest']['mapping']>;

/**
 * Upload a CRM export (HubSpot deals, Salesforce opportunities): check it first (a dry run, which applies
 * nothing), then import it. The server does the mapping and every check, as `quotient import deals` does.
 */
export function ImportsPage(props: { canChange: boolean }) {
  const [text, setText] = useState('');
  const [fileName, setFileName] = useState<string | undefined>();
  const [mapping, setMapping] = useState<MappingChoice>('auto');
  const [busy, setBusy] = useState<'dry-run' | 'import' | undefined>();
  const [summary, setSummary] = useState<Summary | undefined>();
  const [error, setError] = useState<string | undefined>();

  const send = async (dryRun: boolean) => {
    setBusy(dryRun ? 'dry-run' : 'import');
    setSummary(undefined);
    setError(undefined);
    const { data, error: failure } = await api.POST('/admin/v1/deal-imports', {
      body: { text, mapping, dry_run: dryRun, ...(fileName ? { file_name: fileName } : {}) },
    });
    setBusy(undefined);
    if (data) setSummary(data);
    else setError(describeError(failure));
  };

  return (
    <>
      <PageHeader
        title="Import deals"
        description="Upload a CSV export of your CRM's deals (HubSpot) or opportunities (Salesforce). Check it first: nothing is applied until you import. Importing the same file again changes nothing. Files over 1 MiB: use quotient import deals."
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
            Choose CSV file…
          </label>
          <input
            id="import-file"
            class="visually-hidden"
            type="file"
            accept=".csv,text/csv"
            disabled={!props.canChange}
            onChange={async (event) => {
              const file = event.currentTarget.files?.[0];
              if (!file) return;
              setFileName(file.name);
              setSummary(undefined);
              setText(await file.text());
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
        {error ? <Notice kind="error">{error}</Notice> : null}
        {summary ? <ImportSummary summary={summary} /> : null}
        <div class="form-actions">
          <button type="submit" class="button" disabled={!props.canChange || busy !== undefined || text === ''}>
            {busy === 'dry-run' ? 'Checking…' : 'Check (dry run)'}
          </button>
          <button
            type="button"
            class="button button-primary"
            disabled={!props.canChange || busy !== undefined || text === '' || !summary?.dry_run}
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
