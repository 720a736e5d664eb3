import { useState } from 'preact/hooks';
import { formatMinorUnits, parseMajorUnits } from '../../../src/domain/currencies.ts';
import { shortDateTime } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import { Badge, Notice, type Outcome, OutcomeNotice, PageHeader, Show, useLoad } from '../components.tsx';
import { Link } from '../router.tsx';
import { type Inquiry, type LinkKind, StateBadge, subjectOf, TYPE_LABEL } from './inquiryLabels.tsx';

// One inquiry with its thread and the admins' actions. The server decides what may happen in which state (a closed
// inquiry refuses everything); the page only offers the actions of the inquiry's state and shows the server's answer.

interface LinkDraft {
  kind: LinkKind;
  id: string;
}

export function InquiryPage(props: { id: string; canChange: boolean }) {
  const path = { params: { path: { id: props.id } } };
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/inquiries/{id}', path), [props.id]);
  const [admins] = useLoad(() => api.GET('/admin/v1/admins'), []);
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [comment, setComment] = useState('');
  const [internal, setInternal] = useState(false);
  const [note, setNote] = useState('');
  const [amount, setAmount] = useState('');
  const [currency, setCurrency] = useState('USD');
  const [amountProblem, setAmountProblem] = useState<string | undefined>();
  const [links, setLinks] = useState<LinkDraft[]>([{ kind: 'adjustment', id: '' }]);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  // The assignee the admin just chose: the select shows it through the assignment and the reload after it, instead of
  // jumping back to the assignee read before (each render while busy would set the select to the loaded value).
  const [assigning, setAssigning] = useState<string | undefined>();

  const act = async (
    call: () => Promise<{ data?: Inquiry; error?: Schemas['Error'] }>,
    done: string,
    reset?: () => void,
  ) => {
    setBusy(true);
    const { data, error } = await call();
    setBusy(false);
    if (!data) {
      setOutcome({ kind: 'error', text: describeError(error) });
      return;
    }
    setOutcome({ kind: 'success', text: done });
    reset?.();
    await reload();
  };

  return (
    <Show loaded={loaded} retry={reload}>
      {(inquiry) => {
        const closed = !['open', 'in_review'].includes(inquiry.state);
        const activeAdmins =
          admins.state === 'ready' ? admins.data.admins.filter((a) => a.role === 'admin' && a.status === 'active') : [];
        return (
          <>
            <PageHeader
              title={`${TYPE_LABEL[inquiry.type]}: ${inquiry.user_external_id}`}
              description={subjectOf(inquiry)}
              actions={<Link href="/inquiries">Back to the queue</Link>}
            />
            <OutcomeNotice outcome={outcome} />
            <section class="card" aria-label="Inquiry">
              <dl class="details">
                <dt>State</dt>
                <dd data-field="state">
                  <StateBadge state={inquiry.state} />
                </dd>
                <dt>Expected</dt>
                <dd>
                  {inquiry.expected_amount
                    ? formatMinorUnits(inquiry.expected_amount.amount_cents, inquiry.expected_amount.currency, 'symbol')
                    : '—'}
                </dd>
                <dt>Opened</dt>
                <dd>
                  {shortDateTime(inquiry.created_at)} by {inquiry.opened_by.label}
                </dd>
                <dt>Assignee</dt>
                <dd data-field="assignee">{inquiry.assignee?.email ?? 'Nobody'}</dd>
                <dt>First response</dt>
                <dd data-field="first-response">{shortDateTime(inquiry.first_response_at)}</dd>
                <dt>Closed</dt>
                <dd>{shortDateTime(inquiry.closed_at)}</dd>
              </dl>
              <p class="wrap">{inquiry.message}</p>
              {inquiry.resolution ? (
                <div data-field="resolution">
                  <h2>Resolution</h2>
                  <p class="wrap">{inquiry.resolution.note}</p>
                  <p>
                    Amount changed:{' '}
                    {inquiry.resolution.amount_changed
                      ? formatMinorUnits(
                          inquiry.resolution.amount_changed.amount_cents,
                          inquiry.resolution.amount_changed.currency,
                          'symbol',
                        )
                      : '—'}
                  </p>
                  <ul>
                    {inquiry.resolution.links.map((link) => (
                      <li key={`${link.kind}-${link.id}`}>
                        {link.kind.replace('_', ' ')} {link.id ? <code>{link.id}</code> : null}
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null}
              {inquiry.rejection_reason ? (
                <p data-field="rejection">
                  <span class="strong">Rejected:</span> {inquiry.rejection_reason}
                </p>
              ) : null}
            </section>

            <section class="card" aria-labelledby="thread-title">
              <h2 id="thread-title">Thread</h2>
              {(inquiry.comments ?? []).length === 0 ? (
                <p class="muted">No comments yet.</p>
              ) : (
                <ol class="thread">
                  {(inquiry.comments ?? []).map((entry) => (
                    <li key={entry.id} data-comment-id={entry.id}>
                      <div class="small muted">
                        {entry.author.label} · {shortDateTime(entry.created_at)}{' '}
                        {entry.internal ? <Badge tone="grey">Internal note</Badge> : null}
                      </div>
                      <p class="wrap">{entry.body}</p>
                    </li>
                  ))}
                </ol>
              )}
              {props.canChange && !closed ? (
                <form
                  onSubmit={(event) => {
                    event.preventDefault();
                    void act(
                      () =>
                        api.POST('/admin/v1/inquiries/{id}/comments', { ...path, body: { body: comment, internal } }),
                      internal ? 'Note added.' : 'Comment sent.',
                      () => setComment(''),
                    );
                  }}
                >
                  <div class="field">
                    <label for="comment-body">Comment</label>
                    <textarea
                      id="comment-body"
                      rows={3}
                      required
                      maxLength={4000}
                      value={comment}
                      onInput={(e) => setComment(e.currentTarget.value)}
                    />
                  </div>
                  <label class="checkbox">
                    <input type="checkbox" checked={internal} onChange={(e) => setInternal(e.currentTarget.checked)} />{' '}
                    Internal note (admins only)
                  </label>
                  <button type="submit" class="button" disabled={busy}>
                    {internal ? 'Add note' : 'Send comment'}
                  </button>
                </form>
              ) : null}
            </section>

            {props.canChange && !closed ? (
              <section class="card" aria-labelledby="actions-title">
                <h2 id="actions-title">Actions</h2>
                <div class="inline-form">
                  <div class="field">
                    <label for="assignee">Assign to</label>
                    <select
                      id="assignee"
                      value={assigning ?? inquiry.assignee?.id ?? ''}
                      disabled={busy}
                      onChange={(e) => {
                        const value = e.currentTarget.value;
                        setAssigning(value);
                        void act(
                          () =>
                            api.POST('/admin/v1/inquiries/{id}/assign', {
                              ...path,
                              body: { assignee_id: value === '' ? null : value },
                            }),
                          value === '' ? 'Unassigned.' : 'Assigned.',
                        ).finally(() => setAssigning(undefined));
                      }}
                    >
                      <option value="">Nobody</option>
                      {activeAdmins.map((admin) => (
                        <option key={admin.id} value={admin.id}>
                          {admin.email}
                        </option>
                      ))}
                    </select>
                  </div>
                  {inquiry.state === 'open' ? (
                    <button
                      type="button"
                      class="button"
                      disabled={busy}
                      onClick={() =>
                        act(() => api.POST('/admin/v1/inquiries/{id}/start-review', path), 'Review started.')
                      }
                    >
                      Start review
                    </button>
                  ) : null}
                </div>

                <form
                  aria-labelledby="resolve-title"
                  onSubmit={(event) => {
                    event.preventDefault();
                    const parsed = amount.trim() === '' ? null : parseMajorUnits(amount, currency);
                    if (parsed && 'problem' in parsed) {
                      setAmountProblem(`Amount changed: ${parsed.problem}.`);
                      return;
                    }
                    setAmountProblem(undefined);
                    const changed = parsed ? { amount_cents: parsed.minor, currency } : null;
                    void act(
                      () =>
                        api.POST('/admin/v1/inquiries/{id}/resolve', {
                          ...path,
                          body: {
                            note,
                            amount_changed: changed,
                            links: links.map((link) => ({
                              kind: link.kind,
                              id: link.kind === 'recompute' ? null : link.id.trim(),
                            })),
                          },
                        }),
                      'Resolved.',
                    );
                  }}
                >
                  <h3 id="resolve-title">Resolve</h3>
                  <div class="field">
                    <label for="resolve-note">Note to the rep</label>
                    <textarea
                      id="resolve-note"
                      rows={2}
                      required
                      maxLength={4000}
                      value={note}
                      onInput={(e) => setNote(e.currentTarget.value)}
                    />
                  </div>
                  {links.map((link, index) => (
                    <div class="inline-form" key={index} data-link-row={index}>
                      <div class="field">
                        <label for={`link-kind-${index}`}>Settled by</label>
                        <select
                          id={`link-kind-${index}`}
                          value={link.kind}
                          onChange={(e) =>
                            setLinks(
                              links.map((l, i) =>
                                i === index ? { ...l, kind: e.currentTarget.value as LinkKind } : l,
                              ),
                            )
                          }
                        >
                          <option value="adjustment">Adjustment</option>
                          <option value="source_event">Corrected deal event</option>
                          <option value="recompute">Recompute</option>
                        </select>
                      </div>
                      {link.kind === 'recompute' ? null : (
                        <div class="field">
                          <label for={`link-id-${index}`}>
                            {link.kind === 'adjustment' ? 'Adjustment id' : 'Source event id'}
                          </label>
                          <input
                            id={`link-id-${index}`}
                            required
                            placeholder={link.kind === 'adjustment' ? 'adj_…' : 'se_…'}
                            value={link.id}
                            onInput={(e) =>
                              setLinks(links.map((l, i) => (i === index ? { ...l, id: e.currentTarget.value } : l)))
                            }
                          />
                        </div>
                      )}
                      {links.length > 1 ? (
                        <button
                          type="button"
                          class="button button-quiet"
                          onClick={() => setLinks(links.filter((_, i) => i !== index))}
                        >
                          Remove
                        </button>
                      ) : null}
                    </div>
                  ))}
                  <button
                    type="button"
                    class="button button-quiet"
                    onClick={() => setLinks([...links, { kind: 'recompute', id: '' }])}
                  >
                    Add another
                  </button>
                  <div class="inline-form">
                    <div class="field">
                      <label for="resolve-amount">Amount changed (signed, in the currency)</label>
                      <input
                        id="resolve-amount"
                        inputMode="decimal"
                        placeholder="e.g. 150.00; empty when nothing changed"
                        aria-invalid={amountProblem ? 'true' : undefined}
                        value={amount}
                        onInput={(e) => setAmount(e.currentTarget.value)}
                      />
                    </div>
                    <div class="field">
                      <label for="resolve-currency">Currency</label>
                      <input
                        id="resolve-currency"
                        pattern="[A-Z]{3}"
                        maxLength={3}
                        value={currency}
                        onInput={(e) => setCurrency(e.currentTarget.value.toUpperCase())}
                      />
                    </div>
                  </div>
                  {amountProblem ? <Notice kind="error">{amountProblem}</Notice> : null}
                  <button type="submit" class="button button-primary" disabled={busy}>
                    Resolve
                  </button>
                </form>

                <form
                  aria-labelledby="reject-title"
                  onSubmit={(event) => {
                    event.preventDefault();
                    void act(
                      () => api.POST('/admin/v1/inquiries/{id}/reject', { ...path, body: { reason } }),
                      'Rejected.',
                    );
                  }}
                >
                  <h3 id="reject-title">Reject</h3>
                  <div class="field">
                    <label for="reject-reason">Reason the rep sees</label>
                    <textarea
                      id="reject-reason"
                      rows={2}
                      required
                      maxLength={4000}
                      value={reason}
                      onInput={(e) => setReason(e.currentTarget.value)}
                    />
                  </div>
                  <button type="submit" class="button button-danger" disabled={busy}>
                    Reject
                  </button>
                </form>
              </section>
            ) : null}
          </>
        );
      }}
    </Show>
  );
}
