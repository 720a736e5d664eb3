import { useState } from 'preact/hooks';
import { formatMinorUnits } from '../../../src/domain/currencies.ts';
import { relative, shortDateTime } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import { Badge, Empty, type Outcome, OutcomeNotice, PageHeader, Show, ShowList, useLoad } from '../components.tsx';
import { Link } from '../router.tsx';

// The inquiries queue (filters: state, assignee, age) and one inquiry with its thread and the admins' actions. The
// server decides what may happen in which state (a closed inquiry refuses everything); the page only offers the
// actions of the inquiry's state and shows the server's answer.

type Inquiry = Schemas['AdminInquiry'];
type State = Schemas['InquiryState'];
type LinkKind = Schemas['InquiryResolutionLink']['kind'];

const STATES: State[] = ['open', 'in_review', 'resolved', 'rejected', 'withdrawn'];
const STATE_LABEL: Record<State, string> = {
  open: 'Open',
  in_review: 'In review',
  resolved: 'Resolved',
  rejected: 'Rejected',
  withdrawn: 'Withdrawn',
};
const STATE_TONE = { open: 'blue', in_review: 'amber', resolved: 'green', rejected: 'red', withdrawn: 'grey' } as const;
const TYPE_LABEL: Record<Schemas['InquiryType'], string> = {
  missing_deal: 'Missing deal',
  wrong_amount: 'Wrong amount',
  wrong_credit: 'Wrong credit',
  wrong_plan: 'Wrong plan',
  other: 'Other',
};
const AGES = [
  { value: '', label: 'Any age' },
  { value: '1', label: 'Older than 1 day' },
  { value: '3', label: 'Older than 3 days' },
  { value: '7', label: 'Older than 7 days' },
  { value: '30', label: 'Older than 30 days' },
];
const DAY_MS = 86_400_000;

interface Filters {
  state: '' | 'active' | State;
  assignee: string;
  age: string;
}
const DEFAULT_FILTERS: Filters = { state: 'active', assignee: '', age: '' };

function query(filters: Filters, cursor?: string) {
  const states: State[] | undefined =
    filters.state === '' ? undefined : filters.state === 'active' ? ['open', 'in_review'] : [filters.state];
  return {
    ...(states ? { state: states } : {}),
    ...(filters.assignee ? { assignee: filters.assignee } : {}),
    ...(filters.age ? { opened_before: new Date(Date.now() - Number(filters.age) * DAY_MS).toISOString() } : {}),
    limit: 50,
    ...(cursor ? { cursor } : {}),
  };
}

function StateBadge(props: { state: State }) {
  return <Badge tone={STATE_TONE[props.state]}>{STATE_LABEL[props.state]}</Badge>;
}

function subjectOf(inquiry: Inquiry): string {
  const { subject } = inquiry;
  if (subject.kind === 'earning') return `Earning ${subject.earning_id} (${subject.period_id})`;
  if (subject.kind === 'deal') return `Deal ${subject.deal_id}`;
  return `Statement ${subject.period_id}`;
}

export function InquiriesPage() {
  const [draft, setDraft] = useState<Filters>(DEFAULT_FILTERS);
  const [filters, setFilters] = useState<Filters>(DEFAULT_FILTERS);
  const [admins] = useLoad(() => api.GET('/admin/v1/admins'), []);
  const page = (cursor?: string) => api.GET('/admin/v1/inquiries', { params: { query: query(filters, cursor) } });
  const [loaded, reload, loadMore] = useLoad(() => page(), [filters]);
  const [loadingMore, setLoadingMore] = useState(false);
  const adminList = admins.state === 'ready' ? admins.data.admins : [];

  return (
    <>
      <PageHeader
        title="Inquiries"
        description="Reps' questions about their pay, oldest first. Open one to answer, review, resolve with what settled it, or reject."
      />
      <form
        class="card filters"
        aria-label="Filter inquiries"
        onSubmit={(event) => {
          event.preventDefault();
          setFilters(draft);
        }}
      >
        <div class="field">
          <label for="filter-state">State</label>
          <select
            id="filter-state"
            value={draft.state}
            onChange={(e) => setDraft({ ...draft, state: e.currentTarget.value as Filters['state'] })}
          >
            <option value="active">Open or in review</option>
            <option value="">Any state</option>
            {STATES.map((state) => (
              <option key={state} value={state}>
                {STATE_LABEL[state]}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-assignee">Assignee</label>
          <select
            id="filter-assignee"
            value={draft.assignee}
            onChange={(e) => setDraft({ ...draft, assignee: e.currentTarget.value })}
          >
            <option value="">Anyone</option>
            <option value="none">Nobody (unassigned)</option>
            {adminList.map((admin) => (
              <option key={admin.id} value={admin.id}>
                {admin.email}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-age">Age</label>
          <select
            id="filter-age"
            value={draft.age}
            onChange={(e) => setDraft({ ...draft, age: e.currentTarget.value })}
          >
            {AGES.map((age) => (
              <option key={age.value} value={age.value}>
                {age.label}
              </option>
            ))}
          </select>
        </div>
        <div class="filter-actions">
          <button type="submit" class="button button-primary">
            Apply filters
          </button>
          <button
            type="button"
            class="button button-quiet"
            onClick={() => {
              setDraft(DEFAULT_FILTERS);
              setFilters(DEFAULT_FILTERS);
            }}
          >
            Reset
          </button>
        </div>
      </form>
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.inquiries}
        empty={<Empty title="No inquiries match">Nothing is waiting with these filters.</Empty>}
      >
        {(inquiries, { next_cursor }) => (
          <div class="card table-wrap">
            <table>
              <caption class="visually-hidden">Inquiries</caption>
              <thead>
                <tr>
                  <th scope="col">Inquiry</th>
                  <th scope="col">Rep</th>
                  <th scope="col">State</th>
                  <th scope="col">Assignee</th>
                  <th scope="col">Opened</th>
                  <th scope="col">First response</th>
                </tr>
              </thead>
              <tbody>
                {inquiries.map((inquiry) => (
                  <tr key={inquiry.id} data-inquiry-id={inquiry.id}>
                    <th scope="row">
                      <Link href={`/inquiries/${inquiry.id}`} class="strong">
                        {TYPE_LABEL[inquiry.type]}
                      </Link>
                      <div class="muted small">{subjectOf(inquiry)}</div>
                    </th>
                    <td>{inquiry.user_external_id}</td>
                    <td data-field="state">
                      <StateBadge state={inquiry.state} />
                    </td>
                    <td>{inquiry.assignee?.email ?? <span class="muted">Nobody</span>}</td>
                    <td class="nowrap" title={shortDateTime(inquiry.created_at)}>
                      {relative(inquiry.created_at)}
                    </td>
                    <td class="nowrap">{shortDateTime(inquiry.first_response_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {next_cursor ? (
              <div class="table-footer">
                <button
                  type="button"
                  class="button"
                  disabled={loadingMore}
                  onClick={async () => {
                    setLoadingMore(true);
                    await loadMore(
                      () => page(next_cursor),
                      (shown, more) => ({ ...more, inquiries: [...shown.inquiries, ...more.inquiries] }),
                    );
                    setLoadingMore(false);
                  }}
                >
                  {loadingMore ? 'Loading…' : 'Load more'}
                </button>
              </div>
            ) : null}
          </div>
        )}
      </ShowList>
    </>
  );
}

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
                    const changed = amount.trim() === '' ? null : { amount_cents: Number(amount), currency };
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
                      <label for="resolve-amount">Amount changed (minor units, signed)</label>
                      <input
                        id="resolve-amount"
                        inputMode="numeric"
                        pattern="-?\d{1,15}"
                        placeholder="e.g. 15000; empty when nothing changed"
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
