import { useState } from 'preact/hooks';
import { formatMoney } from '../../../src/domain/earnings/money.ts';
import { dateTime, plural, shortDateTime } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import { ApplyFileForm } from '../applyFile.tsx';
import {
  Badge,
  ConfirmDialog,
  Empty,
  Field,
  type Outcome,
  OutcomeNotice,
  PageHeader,
  Show,
  ShowList,
  useLoad,
} from '../components.tsx';
import { lineDiff } from '../lineDiff.ts';
import { Link, navigate } from '../router.tsx';

export function PlansPage(props: { canChange: boolean }) {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/plans'), []);
  return (
    <>
      <PageHeader
        title="Plans"
        description="Compensation plans are written as files (YAML or JSON) and applied here or with quotient plans apply. Each change is a new version; earnings in open periods are recomputed."
      />
      {props.canChange ? <ApplyPlanFile onApplied={() => void reload()} /> : null}
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.plans}
        empty={<Empty title="No plans yet">Apply a plan file to create the first plan.</Empty>}
      >
        {(plans) => (
          <div class="card table-wrap">
            <table>
              <caption class="visually-hidden">Plans</caption>
              <thead>
                <tr>
                  <th scope="col">Plan</th>
                  <th scope="col">Key</th>
                  <th scope="col">Period</th>
                  <th scope="col">Quota</th>
                  <th scope="col">Version</th>
                  <th scope="col">Status</th>
                  <th scope="col">Updated (UTC)</th>
                </tr>
              </thead>
              <tbody>
                {plans.map((plan) => (
                  <tr key={plan.id}>
                    <td class="strong">
                      <Link href={`/plans/${plan.id}`}>{plan.name}</Link>
                    </td>
                    <td>
                      <code>{plan.key}</code>
                    </td>
                    <td>{plan.period}</td>
                    <td class="numeric">{plan.quota_cents === null ? '—' : formatMoney(BigInt(plan.quota_cents))}</td>
                    <td class="numeric">v{plan.current_version}</td>
                    <td>
                      {plan.status === 'active' ? (
                        <Badge tone="green">Active</Badge>
                      ) : (
                        <Badge tone="grey">Archived</Badge>
                      )}
                    </td>
                    <td class="nowrap">{shortDateTime(plan.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ShowList>
      <PlanDocumentTermsCard canChange={props.canChange} />
    </>
  );
}

type Terms = Schemas['PlanDocumentTerms'];

const TERM_FIELDS: Array<{ key: keyof Terms; label: string; hint: string }> = [
  { key: 'clawback', label: 'Clawback', hint: 'When paid commission is taken back, e.g. a deal the customer cancels.' },
  { key: 'leaver', label: 'If you leave', hint: 'What happens to pay after a rep’s leaving date.' },
  { key: 'governing', label: 'Governing terms', hint: 'The terms and law the plan is governed by.' },
];

/**
 * The org's own terms printed at the end of every plan document (docs/plan-documents.md, "Your company's terms"): part
 * of what a rep accepts from the next version on.
 */
function PlanDocumentTermsCard(props: { canChange: boolean }) {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/plan-document-terms'), []);
  const [edited, setEdited] = useState<Partial<Terms>>({});
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [saving, setSaving] = useState(false);
  return (
    <section class="card stack" aria-labelledby="plan-terms-title">
      <h2 id="plan-terms-title">Your company's terms in plan documents</h2>
      <p class="muted">
        Printed as the last section of every plan document, in this order. They become part of the document a rep
        accepts for versions applied from now on; documents already accepted keep the terms they had. A blank line
        starts a new paragraph; leave a term empty to leave it out.
      </p>
      <Show loaded={loaded} retry={reload}>
        {(terms) => (
          <form
            class="stack"
            onSubmit={(event) => {
              event.preventDefault();
              void (async () => {
                setSaving(true);
                setOutcome(undefined);
                try {
                  const { data, error } = await api.PUT('/admin/v1/plan-document-terms', { body: edited });
                  if (data) {
                    setEdited({});
                    setOutcome({ kind: 'success', text: 'Terms saved.' });
                    void reload();
                  } else {
                    setOutcome({ kind: 'error', text: describeError(error) });
                  }
                } catch {
                  setOutcome({
                    kind: 'error',
                    text: 'The server could not be reached. Check your connection and retry.',
                  });
                } finally {
                  setSaving(false);
                }
              })();
            }}
          >
            {TERM_FIELDS.map((field) => (
              <Field key={field.key} label={field.label} id={`plan-terms-${field.key}`} hint={field.hint}>
                <textarea
                  id={`plan-terms-${field.key}`}
                  rows={4}
                  maxLength={20000}
                  readOnly={!props.canChange}
                  aria-describedby={`plan-terms-${field.key}-hint`}
                  value={edited[field.key] ?? terms[field.key]}
                  onInput={(event) => {
                    const value = event.currentTarget.value;
                    setEdited((before) => ({ ...before, [field.key]: value }));
                  }}
                />
              </Field>
            ))}
            <div aria-live="polite">
              <OutcomeNotice outcome={outcome} />
            </div>
            {props.canChange ? (
              <div>
                <button
                  type="submit"
                  class="button button-primary"
                  disabled={saving || Object.keys(edited).length === 0}
                >
                  {saving ? 'Saving…' : 'Save terms'}
                </button>
              </div>
            ) : null}
          </form>
        )}
      </Show>
    </section>
  );
}

function ApplyPlanFile(props: { onApplied: () => void }) {
  return (
    <ApplyFileForm
      id="plan"
      title="Apply a plan file"
      label="Plan file"
      placeholder={
        'key: core-ae\nname: Core AE plan\nperiod: monthly\nassignees: all\nchips:\n  - key: base\n    name: Base commission\n    kind: commission\n    rate_bps: 1000'
      }
      apply={async (body) => {
        const { data, error } = await api.POST('/admin/v1/plan-files', { body });
        if (!data) return { error };
        props.onApplied();
        return {
          applied: (
            <>
              {data.changed
                ? `Applied: plan version ${data.version}${data.reactivated ? ', re-activated' : ''}. ${plural(data.rows_recomputed, 'earnings row')} recomputed.`
                : `The file matches version ${data.version}; nothing changed.`}{' '}
              <Link href={`/plans/${data.plan_id}`}>Open the plan</Link>
            </>
          ),
        };
      }}
    />
  );
}

export function PlanPage(props: { id: string; canChange: boolean }) {
  const [loaded, reload] = useLoad(
    () => api.GET('/admin/v1/plans/{id}', { params: { path: { id: props.id } } }),
    [props.id],
  );
  const [selected, setSelected] = useState<number | undefined>();
  const [archiving, setArchiving] = useState(false);
  const [message, setMessage] = useState<Outcome | undefined>();

  return (
    <Show loaded={loaded} retry={reload}>
      {({ plan, versions }) => {
        const index = Math.max(
          0,
          versions.findIndex((version) => version.number === (selected ?? plan.current_version)),
        );
        const version = versions[index];
        const previous = versions[index + 1];
        return (
          <>
            <nav class="breadcrumb" aria-label="Breadcrumb">
              <Link href="/plans">Plans</Link> <span aria-hidden="true">/</span> <span>{plan.name}</span>
            </nav>
            <PageHeader
              title={plan.name}
              description={`Key ${plan.key} · ${plan.period} · quota ${plan.quota_cents === null ? 'none' : formatMoney(BigInt(plan.quota_cents))} · ${plural(versions.length, 'version')}`}
              actions={
                props.canChange && plan.status === 'active' ? (
                  <button type="button" class="button button-danger-quiet" onClick={() => setArchiving(true)}>
                    Archive plan
                  </button>
                ) : plan.status === 'archived' ? (
                  <Badge tone="grey">Archived</Badge>
                ) : null
              }
            />
            <OutcomeNotice outcome={message} />
            <div class="field inline-field">
              <label for="version">Version</label>
              <select
                id="version"
                value={version?.number}
                onChange={(event) => setSelected(Number(event.currentTarget.value))}
              >
                {versions.map((entry) => (
                  <option key={entry.id} value={entry.number}>
                    v{entry.number} — {dateTime(entry.created_at)}
                    {entry.id === plan.current_version_id ? ' (current)' : ''}
                  </option>
                ))}
              </select>
              {version ? (
                <Link href={`/plans/${plan.id}/versions/${version.id}/document`}>
                  Plan document of v{version.number}
                </Link>
              ) : null}
              {version ? (
                <Link href={`/plans/${plan.id}/versions/${version.id}/acceptances`}>
                  Who accepted v{version.number}
                </Link>
              ) : null}
            </div>
            {version ? (
              <div class="grid-2">
                <section class="card" aria-labelledby="chips-title">
                  <h2 id="chips-title">Rule chips of v{version.number}</h2>
                  <p class="muted">Evaluated in this order for every deal of the plan's reps.</p>
                  <ol class="chip-list">
                    {version.chips.map((chip) => (
                      <li key={chip.id}>
                        <div class="chip-head">
                          <span class="strong">{chip.name}</span>
                          <code class="small">{chip.key}</code>
                          <span class="muted small">rule v{chip.version}</span>
                          {version.changes.added.includes(chip.key) && previous ? (
                            <Badge tone="green">Added</Badge>
                          ) : null}
                          {version.changes.changed.includes(chip.key) ? <Badge tone="amber">Changed</Badge> : null}
                        </div>
                        <p>{chip.summary}</p>
                        <p class="muted small">{chip.when ? `When ${chip.when}` : 'Applies to every deal'}</p>
                      </li>
                    ))}
                  </ol>
                  {version.changes.removed.length > 0 ? (
                    <p class="muted">
                      Removed in this version:{' '}
                      {version.changes.removed.map((key) => (
                        <code key={key}>{key} </code>
                      ))}
                    </p>
                  ) : null}
                </section>
                <section class="card" aria-labelledby="diff-title">
                  <h2 id="diff-title">
                    {previous ? `Changes from v${previous.number} to v${version.number}` : 'Plan file of v1'}
                  </h2>
                  <pre class="diff">
                    {(previous
                      ? lineDiff(previous.file, version.file)
                      : lineDiff('', version.file).map((line) => ({ ...line, kind: 'same' as const }))
                    ).map((line, lineIndex) => (
                      <span key={lineIndex} class={`diff-${line.kind}`}>
                        {line.kind === 'added' ? '+ ' : line.kind === 'removed' ? '- ' : '  '}
                        {line.text}
                        {'\n'}
                      </span>
                    ))}
                  </pre>
                </section>
              </div>
            ) : null}
            <ConfirmDialog
              subject={archiving ? plan : undefined}
              title={(archived) => `Archive ${archived.name}?`}
              action={() => 'Archive'}
              tone="danger"
              onClose={() => setArchiving(false)}
              onConfirm={async (archived) => {
                const { error } = await api.POST('/admin/v1/plans/{id}/archive', {
                  params: { path: { id: archived.id } },
                });
                setMessage(
                  error
                    ? { kind: 'error', text: describeError(error) }
                    : { kind: 'success', text: 'The plan is archived.' },
                );
                void reload();
                if (!error) navigate(`/plans/${archived.id}`, { replace: true });
              }}
            >
              {() => (
                <p>
                  The plan stops being evaluated and its projected earnings are reversed. Applying its file again
                  re-activates it.
                </p>
              )}
            </ConfirmDialog>
          </>
        );
      }}
    </Show>
  );
}
