import { useState } from 'preact/hooks';
import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { plural, shortDateTime } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import {
  Badge,
  ConfirmDialog,
  Empty,
  Field,
  Notice,
  type Outcome,
  OutcomeNotice,
  PageHeader,
  ShowList,
  useLoad,
} from '../components.tsx';

type Adjustment = Schemas['AdminAdjustment'];
type Category = Schemas['AdjustmentCategory'];
type ImportSummary = Schemas['AdjustmentImportSummary'];

const CATEGORIES: Array<{ value: Category; label: string }> = [
  { value: 'one_off_bonus', label: 'One-off bonus' },
  { value: 'correction', label: 'Correction' },
  { value: 'guarantee', label: 'Guarantee' },
  { value: 'deduction', label: 'Deduction' },
];

const PERIOD_PATTERN = '\\d{4}-(0[1-9]|1[0-2]|Q[1-4])';

/**
 * Manual adjustments: the one-off payments and corrections no plan rule covers, added to a rep's open period, voided
 * by a counter-adjustment, or uploaded as a CSV file (checked first; all or nothing). The server enforces every rule.
 */
export function AdjustmentsPage(props: { canChange: boolean }) {
  const [period, setPeriod] = useState('');
  const [loaded, reload] = useLoad(
    () =>
      api.GET('/admin/v1/adjustments', {
        params: { query: period ? { period_id: period, limit: 200 } : { limit: 200 } },
      }),
    [period],
  );
  const [voiding, setVoiding] = useState<Adjustment | undefined>();
  const [voidReason, setVoidReason] = useState('');
  const [message, setMessage] = useState<Outcome | undefined>();

  const voidOne = async (adjustment: Adjustment) => {
    const { data, error } = await api.POST('/admin/v1/adjustments/{id}/void', {
      params: { path: { id: adjustment.id } },
      body: { reason: voidReason.trim() },
    });
    setVoidReason('');
    setMessage(
      data
        ? { kind: 'success', text: `Voided ${adjustment.id} with ${data.adjustment.id}.` }
        : { kind: 'error', text: describeError(error) },
    );
    void reload();
  };

  return (
    <>
      <PageHeader
        title="Adjustments"
        description="One-off bonuses, corrections, guarantees and deductions added to a rep's open period. They are paid with the period and appear on statements, payouts and the payroll export. Nothing is deleted: a void adds the opposite amount."
      />
      <OutcomeNotice outcome={message} />
      {props.canChange ? (
        <AddForm
          onAdded={(text) => {
            setMessage({ kind: 'success', text });
            void reload();
          }}
          onError={(text) => setMessage({ kind: 'error', text })}
        />
      ) : (
        <Notice kind="info">Viewers can read adjustments but not add or void them.</Notice>
      )}
      {props.canChange ? <UploadForm onApplied={() => void reload()} /> : null}
      <div class="card inline-form">
        <div class="field">
          <label for="adjustments-period">Period</label>
          <input
            id="adjustments-period"
            placeholder="All periods"
            pattern={PERIOD_PATTERN}
            value={period}
            onChange={(event) => setPeriod(event.currentTarget.value.trim())}
          />
        </div>
      </div>
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.adjustments}
        empty={<Empty title="No adjustments">Adjustments you add appear here.</Empty>}
      >
        {(adjustments) => (
          <div class="card table-wrap">
            <table>
              <caption class="visually-hidden">Manual adjustments</caption>
              <thead>
                <tr>
                  <th scope="col">Rep</th>
                  <th scope="col">Period</th>
                  <th scope="col">Category</th>
                  <th scope="col" class="numeric">
                    Amount
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Added by (UTC)</th>
                  {props.canChange ? (
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  ) : null}
                </tr>
              </thead>
              <tbody>
                {adjustments.map((adjustment) => (
                  <tr key={adjustment.id} data-adjustment-id={adjustment.id}>
                    <th scope="row">{adjustment.user_external_id}</th>
                    <td>{adjustment.period_id}</td>
                    <td>{CATEGORIES.find((each) => each.value === adjustment.category)?.label}</td>
                    <td class="numeric">{formatMinorUnits(adjustment.amount_cents, adjustment.currency, 'symbol')}</td>
                    <td>
                      {adjustment.voids_id ? (
                        <Badge tone="grey">Void</Badge>
                      ) : adjustment.voided_by_id ? (
                        <Badge tone="red">Voided</Badge>
                      ) : (
                        <Badge tone={adjustment.status === 'pending' ? 'blue' : 'green'}>{adjustment.status}</Badge>
                      )}
                    </td>
                    <td>
                      {adjustment.reason}
                      {adjustment.counts_toward_attainment ? (
                        <div class="muted small">Counts toward attainment</div>
                      ) : null}
                    </td>
                    <td class="nowrap">
                      <div>{adjustment.created_by.name}</div>
                      <div class="muted small">{shortDateTime(adjustment.created_at)}</div>
                    </td>
                    {props.canChange ? (
                      <td class="actions">
                        {adjustment.voids_id === null && adjustment.voided_by_id === null ? (
                          <button
                            type="button"
                            class="button"
                            aria-label={`Void ${adjustment.id}`}
                            onClick={() => setVoiding(adjustment)}
                          >
                            Void
                          </button>
                        ) : null}
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ShowList>
      <ConfirmDialog
        subject={voiding}
        title={(chosen) => `Void ${chosen.id}?`}
        action={() => 'Void'}
        tone="danger"
        disabled={() => !voidReason.trim()}
        onClose={() => setVoiding(undefined)}
        onConfirm={voidOne}
      >
        {(chosen) => (
          <>
            <p>
              Adds {formatMinorUnits(-chosen.amount_cents, chosen.currency, 'symbol')} to {chosen.user_external_id} in{' '}
              {chosen.period_id}, which must still be open. The adjustment stays, marked voided.
            </p>
            <Field label="Why void it (kept with the void and in the audit log)" id="void-reason">
              <input
                id="void-reason"
                required
                maxLength={1000}
                value={voidReason}
                onInput={(event) => setVoidReason(event.currentTarget.value)}
              />
            </Field>
          </>
        )}
      </ConfirmDialog>
    </>
  );
}

function AddForm(props: { onAdded: (text: string) => void; onError: (text: string) => void }) {
  const [rep, setRep] = useState('');
  const [period, setPeriod] = useState('');
  const [amount, setAmount] = useState('');
  const [category, setCategory] = useState<Category>('one_off_bonus');
  const [reason, setReason] = useState('');
  const [counts, setCounts] = useState(false);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="card apply"
      aria-labelledby="add-adjustment-title"
      onSubmit={async (event) => {
        event.preventDefault();
        const cents = Math.round(Number(amount) * 100);
        setBusy(true);
        const { data, error } = await api.POST('/admin/v1/adjustments', {
          body: {
            user_external_id: rep.trim(),
            period_id: period.trim(),
            amount_cents: cents,
            category,
            reason,
            counts_toward_attainment: counts,
          },
        });
        setBusy(false);
        if (data) {
          props.onAdded(
            `Added ${formatMinorUnits(data.adjustment.amount_cents, data.adjustment.currency, 'symbol')} to ${data.adjustment.user_external_id} in ${data.adjustment.period_id}${data.adjustment.counts_toward_attainment ? ', counting toward attainment' : ''}. Its id, to name it in an inquiry's resolution: ${data.adjustment.id}`,
          );
          setAmount('');
          setReason('');
          setCounts(false);
        } else props.onError(describeError(error));
      }}
    >
      <h2 id="add-adjustment-title">Add an adjustment</h2>
      <Field label="Rep (external id)" id="adjustment-rep">
        <input id="adjustment-rep" required value={rep} onInput={(event) => setRep(event.currentTarget.value)} />
      </Field>
      <Field label="Period" id="adjustment-period" hint="An open period, e.g. 2026-04.">
        <input
          id="adjustment-period"
          required
          pattern={PERIOD_PATTERN}
          value={period}
          onInput={(event) => setPeriod(event.currentTarget.value)}
        />
      </Field>
      <Field label="Category" id="adjustment-category">
        <select
          id="adjustment-category"
          value={category}
          onChange={(event) => setCategory(event.currentTarget.value as Category)}
        >
          {CATEGORIES.map((each) => (
            <option key={each.value} value={each.value}>
              {each.label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Amount" id="adjustment-amount" hint="In the currency's major units; negative takes away.">
        <input
          id="adjustment-amount"
          required
          inputMode="decimal"
          pattern="-?\d+(\.\d{1,2})?"
          title="A number with at most 2 decimals, such as 1200.00 or -50"
          value={amount}
          onInput={(event) => setAmount(event.currentTarget.value)}
        />
      </Field>
      <Field label="Reason" id="adjustment-reason">
        <input
          id="adjustment-reason"
          required
          maxLength={1000}
          value={reason}
          onInput={(event) => setReason(event.currentTarget.value)}
        />
      </Field>
      <label class="check">
        <input
          id="adjustment-counts"
          type="checkbox"
          checked={counts}
          onChange={(event) => setCounts(event.currentTarget.checked)}
        />
        Counts toward attainment (moves tiers and attainment bonuses of the period)
      </label>
      <div class="form-actions">
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add adjustment'}
        </button>
      </div>
    </form>
  );
}

function UploadForm(props: { onApplied: () => void }) {
  const [text, setText] = useState('');
  const [fileName, setFileName] = useState<string | undefined>();
  const [summary, setSummary] = useState<ImportSummary | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const send = async (dryRun: boolean) => {
    setBusy(true);
    setError(undefined);
    const { data, error: failure } = await api.POST('/admin/v1/adjustment-imports', {
      body: { text, dry_run: dryRun },
    });
    setBusy(false);
    setSummary(data);
    if (!data) setError(describeError(failure));
    else if (data.applied) props.onApplied();
  };
  return (
    <form
      class="card apply"
      aria-labelledby="upload-adjustments-title"
      onSubmit={(event) => {
        event.preventDefault();
        void send(true);
      }}
    >
      <h2 id="upload-adjustments-title">Upload a CSV file</h2>
      <p class="muted small">
        Header: idempotency_key, user_external_id, period_id, amount_cents, currency, category, reason,
        deal_external_id, counts_toward_attainment (true or false; optional). Each row's key makes a re-upload change
        nothing; one bad row and nothing of the file is applied.
      </p>
      <div class="apply-source">
        <label class="button" for="adjustments-file">
          Choose CSV file…
        </label>
        <input
          id="adjustments-file"
          class="visually-hidden"
          type="file"
          accept=".csv,text/csv"
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
      {error ? <Notice kind="error">{error}</Notice> : null}
      {summary ? (
        <div role="status">
          <Notice kind={summary.refusals.length > 0 ? 'error' : summary.applied ? 'success' : 'info'}>
            {summary.refusals.length > 0
              ? `${plural(summary.refusals.length, 'row')} refused: nothing of the file was applied.`
              : summary.applied
                ? `Applied: ${plural(summary.created, 'adjustment')} added, ${summary.unchanged} unchanged.`
                : `Checked ${plural(summary.rows, 'row')}: ${plural(summary.created, 'adjustment')} would be added, ${summary.unchanged} unchanged. Nothing was applied.`}
          </Notice>
          {summary.refusals.length > 0 ? (
            <ul>
              {summary.refusals.map((refusal) => (
                <li key={refusal.line}>
                  Line {refusal.line}: {refusal.reason}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <div class="form-actions">
        <button type="submit" class="button" disabled={busy || text === ''}>
          Check (dry run)
        </button>
        <button
          type="button"
          class="button button-primary"
          disabled={busy || text === '' || !summary?.dry_run || summary.refusals.length > 0}
          onClick={() => void send(false)}
        >
          Apply file
        </button>
      </div>
    </form>
  );
}
