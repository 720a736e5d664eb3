import { useState } from 'preact/hooks';
import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { plural, repLabel, shortDateTime } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import { Empty, Field, Notice, type Outcome, OutcomeNotice, PageHeader, ShowList, useLoad } from '../components.tsx';

type Summary = Schemas['QuotaChangeSummary'];

/** "1 quota entry and 1 start date", with the display names when a file's display_name column changed any. */
function changes(summary: Summary): string {
  const parts = [
    plural(summary.quotas_changed, 'quota entry', 'quota entries'),
    plural(summary.start_dates_changed, 'start date'),
  ];
  if (summary.display_names_changed > 0) parts.push(plural(summary.display_names_changed, 'display name'));
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

function describeSummary(summary: Summary): Outcome {
  if (!summary.changed) {
    return {
      kind: 'success',
      text: `Nothing changed: every quota and start date was already so (${plural(summary.rows, 'row')}).`,
    };
  }
  return {
    kind: 'success',
    text: `${changes(summary)} changed; ${plural(summary.rows_recomputed, 'earnings row')} recomputed.`,
  };
}

/**
 * Reps' own quotas per plan from a period on, and their start dates that plan ramps count from (docs/quotas.md): a
 * quota file uploaded whole or not at all, one entry set, a start date set, and the table as it stands.
 */
export function QuotasPage(props: { canChange: boolean }) {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/quotas', {}), []);
  const [message, setMessage] = useState<Outcome | undefined>();
  const done = (data: Summary | undefined, error: Parameters<typeof describeError>[0]) => {
    if (data) {
      setMessage(describeSummary(data));
      reload();
    } else setMessage({ kind: 'error', text: describeError(error) });
  };

  return (
    <>
      <PageHeader
        title="Quotas"
        description="Each rep's own quota under a plan from a period on (else the plan's quota), and each rep's start date, which a plan's ramp counts months from. A change recomputes the earnings that read the quota; in a locked period the difference is booked in the next open one."
      />
      {props.canChange ? null : <Notice kind="info">Viewers can read the console but not change quotas.</Notice>}
      <OutcomeNotice outcome={message} />
      <div class="grid-2">
        <QuotaFileForm canChange={props.canChange} onDone={done} />
        <QuotaForm canChange={props.canChange} onDone={done} />
      </div>
      <StartDateForm canChange={props.canChange} onDone={done} />
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.quotas}
        empty={<Empty title="No quotas set">Every rep has the plan's quota. Upload a quota file or set one.</Empty>}
      >
        {(quotas) => (
          <div class="card table-wrap">
            <table>
              <caption>Quota entries</caption>
              <thead>
                <tr>
                  <th scope="col">Rep</th>
                  <th scope="col">Plan</th>
                  <th scope="col">From</th>
                  <th scope="col" class="numeric">
                    Quota
                  </th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {quotas.map((entry) => (
                  <tr key={`${entry.rep_id}/${entry.plan_id}/${entry.from}`}>
                    <th scope="row" class="strong nowrap">
                      {entry.rep_external_id}
                    </th>
                    <td>{entry.plan_key}</td>
                    <td class="nowrap">{entry.from}</td>
                    <td class="numeric">
                      {entry.quota_cents === null ? (
                        <span class="muted">plan quota</span>
                      ) : (
                        formatMinorUnits(entry.quota_cents, entry.currency, 'symbol')
                      )}
                    </td>
                    <td class="nowrap">{shortDateTime(entry.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ShowList>
    </>
  );
}

type Done = (data: Summary | undefined, error: Parameters<typeof describeError>[0]) => void;

function QuotaFileForm(props: { canChange: boolean; onDone: Done }) {
  const [text, setText] = useState('');
  const [fileName, setFileName] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="card apply"
      aria-labelledby="quota-file-title"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        const { data, error } = await api.POST('/admin/v1/quota-files', {
          body: { text, ...(fileName ? { file_name: fileName } : {}) },
        });
        setBusy(false);
        props.onDone(data, error);
      }}
    >
      <h2 id="quota-file-title">Quota file</h2>
      <p class="muted">
        CSV with the header rep_external_id,plan_key,from,quota,start_date. One bad row refuses the whole file, by line;
        the same file again changes nothing.
      </p>
      <div class="apply-source">
        <label class="button" for="quota-file">
          Choose CSV file…
        </label>
        <input
          id="quota-file"
          class="visually-hidden"
          type="file"
          accept=".csv,text/csv"
          disabled={!props.canChange}
          onChange={async (event) => {
            const file = event.currentTarget.files?.[0];
            if (!file) return;
            setFileName(file.name);
            setText(await file.text());
          }}
        />
        <span class="muted" aria-live="polite">
          {fileName ?? 'No file chosen'}
        </span>
      </div>
      <div class="form-actions">
        <button type="submit" class="button button-primary" disabled={!props.canChange || busy || text === ''}>
          {busy ? 'Uploading…' : 'Upload quotas'}
        </button>
      </div>
    </form>
  );
}

function QuotaForm(props: { canChange: boolean; onDone: Done }) {
  const [rep, setRep] = useState('');
  const [plan, setPlan] = useState('');
  const [from, setFrom] = useState('');
  const [quota, setQuota] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  return (
    <form
      class="card"
      aria-labelledby="quota-set-title"
      onSubmit={async (event) => {
        event.preventDefault();
        // Major units of the plan's currency, as typed (thousands separators dropped); the server knows the plan's
        // currency and refuses more decimals than it has, saying so.
        const amount = quota.trim().replaceAll(',', '');
        if (amount !== '' && !/^\d+(\.\d+)?$/.test(amount)) {
          setProblem(
            'The quota is an amount in the plan currency, such as 120000 or 120000.00; empty for the plan quota.',
          );
          return;
        }
        setProblem(undefined);
        setBusy(true);
        const target = { rep_external_id: rep.trim(), plan_key: plan.trim(), from };
        const { data, error } = await api.POST('/admin/v1/quotas', {
          body: amount === '' ? { ...target, quota_cents: null } : { ...target, quota: amount },
        });
        setBusy(false);
        props.onDone(data, error);
      }}
    >
      <h2 id="quota-set-title">Set a quota</h2>
      <Field label="Rep" id="quota-rep" hint="The rep's external id (the CRM's owner id).">
        <input id="quota-rep" value={rep} required onInput={(event) => setRep(event.currentTarget.value)} />
      </Field>
      <Field label="Plan key" id="quota-plan">
        <input id="quota-plan" value={plan} required onInput={(event) => setPlan(event.currentTarget.value)} />
      </Field>
      <Field label="From" id="quota-from" hint="The first day of one of the plan's periods.">
        <input
          id="quota-from"
          type="date"
          value={from}
          required
          onInput={(event) => setFrom(event.currentTarget.value)}
        />
      </Field>
      <Field
        label="Quota"
        id="quota-amount"
        hint="In the plan's currency, such as 120000.00. Empty: the plan's own quota again from that day."
      >
        <input
          id="quota-amount"
          inputMode="decimal"
          value={quota}
          onInput={(event) => setQuota(event.currentTarget.value)}
        />
      </Field>
      {problem ? <Notice kind="error">{problem}</Notice> : null}
      <div class="form-actions">
        <button type="submit" class="button button-primary" disabled={!props.canChange || busy}>
          {busy ? 'Setting…' : 'Set quota'}
        </button>
      </div>
    </form>
  );
}

function StartDateForm(props: { canChange: boolean; onDone: Done }) {
  const [reps] = useLoad(() => api.GET('/admin/v1/reps'), []);
  const [repId, setRepId] = useState('');
  const [date, setDate] = useState('');
  const [busy, setBusy] = useState(false);
  const options = reps.state === 'ready' ? reps.data.reps : [];
  return (
    <form
      class="card"
      aria-labelledby="start-date-title"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        const { data, error } = await api.POST('/admin/v1/reps/{id}/start-date', {
          params: { path: { id: repId } },
          body: { start_date: date === '' ? null : date },
        });
        setBusy(false);
        props.onDone(data, error);
      }}
    >
      <h2 id="start-date-title">Start date</h2>
      <Field label="Rep" id="start-rep">
        <select id="start-rep" value={repId} required onChange={(event) => setRepId(event.currentTarget.value)}>
          <option value="">Choose a rep…</option>
          {options.map((rep) => (
            <option key={rep.id} value={rep.id}>
              {repLabel(rep)}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Started on" id="start-date" hint="Empty: no start date (not ramped).">
        <input id="start-date" type="date" value={date} onInput={(event) => setDate(event.currentTarget.value)} />
      </Field>
      <div class="form-actions">
        <button type="submit" class="button button-primary" disabled={!props.canChange || busy || repId === ''}>
          {busy ? 'Setting…' : 'Set start date'}
        </button>
      </div>
    </form>
  );
}
