import { useId, useState } from 'preact/hooks';
import { Badge, Field, Show, ShowList, useLoad } from '../../../ui/components.tsx';
import { describeError } from '../../../ui/errors.ts';
import { relative, shortDateTime } from '../../../ui/format.ts';
import { Empty, Notice } from '../../../ui/states.tsx';
import { api, type Schemas } from '../api.ts';
import { Money, NotFound, Section } from '../components.tsx';
import { typeLabel } from '../inquiryForm.tsx';
import { periodLabel } from '../periods.ts';
import { Link } from '../router.ts';

// "My inquiries": the questions the rep (and, for a manager, their reports) asked about their pay
// (GET /v1/inquiries), and one inquiry's page: its facts, the thread, a comment box and Withdraw while it is open
// or in review, and once resolved what settled it (GET /v1/inquiries/{id}).

type Inquiry = Schemas['Inquiry'];
type InquiryState = Schemas['InquiryState'];

const STATE_TONES: Record<InquiryState, 'green' | 'grey' | 'amber' | 'red' | 'blue'> = {
  open: 'blue',
  in_review: 'amber',
  resolved: 'green',
  rejected: 'red',
  withdrawn: 'grey',
};

function StateBadge(props: { state: InquiryState }) {
  return <Badge tone={STATE_TONES[props.state]}>{props.state.replace('_', ' ')}</Badge>;
}

function subjectText(inquiry: Inquiry): string {
  const { subject } = inquiry;
  if (subject.kind === 'earning') return `A line of ${subject.period_id ? periodLabel(subject.period_id) : 'pay'}`;
  if (subject.kind === 'deal') return 'A deal';
  return `Statement of ${subject.period_id ? periodLabel(subject.period_id) : 'a period'}`;
}

const closed = (state: InquiryState) => state === 'resolved' || state === 'rejected' || state === 'withdrawn';

export function InquiriesPage(props: { meId: string }) {
  const [loaded, reload, loadMore] = useLoad(() => api.GET('/v1/inquiries', { params: { query: { limit: 50 } } }), []);
  return (
    <div class="stack">
      <header class="page-header">
        <h1>My inquiries</h1>
      </header>
      <p class="muted">
        Questions about your pay. Ask one from a line of <Link href="/">My pay</Link> or from how a line is computed.
      </p>
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.inquiries}
        empty={<Empty title="No inquiries yet">Questions you ask about your pay will show here.</Empty>}
      >
        {(inquiries, data) => (
          <>
            <div class="table-wrap">
              <table class="inquiries">
                <caption class="visually-hidden">Inquiries, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Inquiry</th>
                    <th scope="col">Type</th>
                    <th scope="col">State</th>
                    <th scope="col">Opened</th>
                  </tr>
                </thead>
                <tbody>
                  {inquiries.map((inquiry) => (
                    <tr key={inquiry.id}>
                      <td class="wrap">
                        <Link href={`/inquiries/${inquiry.id}`}>{subjectText(inquiry)}</Link>
                        <div class="muted small">
                          {inquiry.user_id === props.meId ? 'You' : inquiry.user_external_id} ·{' '}
                          {inquiry.message.length > 80 ? `${inquiry.message.slice(0, 80)}…` : inquiry.message}
                        </div>
                      </td>
                      <td>{typeLabel(inquiry.type)}</td>
                      <td>
                        <StateBadge state={inquiry.state} />
                      </td>
                      <td>
                        <time dateTime={inquiry.created_at} title={shortDateTime(inquiry.created_at)}>
                          {relative(inquiry.created_at)}
                        </time>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {data.next_cursor ? (
              <button
                type="button"
                class="button"
                onClick={() =>
                  loadMore(
                    () =>
                      api.GET('/v1/inquiries', {
                        params: { query: { limit: 50, cursor: data.next_cursor as string } },
                      }),
                    (shown, more) => ({
                      inquiries: [...shown.inquiries, ...more.inquiries],
                      next_cursor: more.next_cursor,
                    }),
                  )
                }
              >
                Show more
              </button>
            ) : null}
          </>
        )}
      </ShowList>
    </div>
  );
}

type Loaded = { inquiry: Inquiry } | { notFound: true };

export function InquiryPage(props: { inquiryId: string }) {
  const [loaded, reload] = useLoad<Loaded>(async () => {
    const { data, error, response } = await api.GET('/v1/inquiries/{id}', {
      params: { path: { id: props.inquiryId } },
    });
    if (response.status === 404) return { data: { notFound: true } };
    return { data: data ? { inquiry: data } : undefined, error };
  }, [props.inquiryId]);

  return (
    <Show loaded={loaded} retry={reload}>
      {(data) => {
        if ('notFound' in data) return <NotFound />;
        const { inquiry } = data;
        const { subject } = inquiry;
        return (
          <div class="stack">
            <p class="breadcrumb">
              <Link href="/inquiries">← My inquiries</Link>
            </p>
            <header class="page-header">
              <div>
                <h1>{typeLabel(inquiry.type)}</h1>
                <p class="muted">
                  {subjectText(inquiry)} · {inquiry.user_external_id} · opened{' '}
                  <time dateTime={inquiry.created_at}>{shortDateTime(inquiry.created_at)}</time> ·{' '}
                  <StateBadge state={inquiry.state} />
                </p>
              </div>
            </header>
            <Section title="The question">
              <p class="wrap">{inquiry.message}</p>
              <dl class="facts">
                {inquiry.expected_amount ? (
                  <div>
                    <dt>Expected</dt>
                    <dd>
                      <Money cents={inquiry.expected_amount.amount_cents} currency={inquiry.expected_amount.currency} />
                    </dd>
                  </div>
                ) : null}
                {subject.kind === 'earning' && subject.earning_id ? (
                  <div>
                    <dt>Line</dt>
                    <dd>
                      <Link href={`/earnings/${subject.earning_id}`}>How this line is computed</Link>
                    </dd>
                  </div>
                ) : null}
                {subject.kind === 'statement' && subject.period_id ? (
                  <div>
                    <dt>Statement</dt>
                    <dd>
                      <Link href={`/reps/${inquiry.user_id}/periods/${subject.period_id}`}>
                        {periodLabel(subject.period_id)}
                      </Link>
                    </dd>
                  </div>
                ) : null}
                <div>
                  <dt>Handled by an admin</dt>
                  <dd>{inquiry.assigned ? 'Yes' : 'Not yet'}</dd>
                </div>
              </dl>
            </Section>
            {inquiry.resolution ? <Resolution resolution={inquiry.resolution} /> : null}
            {inquiry.state === 'rejected' ? (
              <Section title="Rejected">
                <p class="wrap">{inquiry.rejection_reason}</p>
              </Section>
            ) : null}
            <Thread inquiry={inquiry} onChanged={reload} />
          </div>
        );
      }}
    </Show>
  );
}

const LINK_TEXT: Record<Schemas['InquiryResolutionLink']['kind'], string> = {
  adjustment: 'An adjustment',
  source_event: 'A corrected deal event',
  recompute: 'A recompute',
};

function Resolution(props: { resolution: Schemas['InquiryResolution'] }) {
  const { resolution } = props;
  return (
    <Section title="Resolution">
      <p class="wrap">{resolution.note}</p>
      <dl class="facts">
        <div>
          <dt>Amount changed</dt>
          <dd>
            {resolution.amount_changed ? (
              <Money cents={resolution.amount_changed.amount_cents} currency={resolution.amount_changed.currency} />
            ) : (
              'Nothing changed'
            )}
          </dd>
        </div>
        <div>
          <dt>Settled by</dt>
          <dd>
            <ul class="plain-list">
              {resolution.links.map((link) => (
                <li key={`${link.kind}-${link.id ?? ''}`}>
                  {LINK_TEXT[link.kind]}
                  {link.id ? <span class="muted"> ({link.id})</span> : null}
                </li>
              ))}
            </ul>
          </dd>
        </div>
      </dl>
    </Section>
  );
}

function Thread(props: { inquiry: Inquiry; onChanged: () => Promise<void> }) {
  const { inquiry } = props;
  const commentField = useId();
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const isOpen = !closed(inquiry.state);
  const comments = inquiry.comments ?? [];

  const act = async (call: () => Promise<{ data?: unknown; error?: Schemas['Error'] }>, after?: () => void) => {
    setError(undefined);
    setBusy(true);
    try {
      const { data, error: failure } = await call();
      if (data === undefined) setError(describeError(failure));
      else {
        after?.();
        await props.onChanged();
      }
    } catch {
      setError('The server could not be reached. Check your connection and retry.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section title="Conversation">
      {comments.length === 0 ? (
        <p class="muted">No replies yet.</p>
      ) : (
        <ol class="thread plain-list">
          {comments.map((comment) => (
            <li key={comment.id} class="thread-comment">
              <p class="muted small">
                <strong>{comment.author.kind === 'admin' ? 'Compensation team' : comment.author.label}</strong> ·{' '}
                <time dateTime={comment.created_at}>{shortDateTime(comment.created_at)}</time>
              </p>
              <p class="wrap">{comment.body}</p>
            </li>
          ))}
        </ol>
      )}
      {error ? (
        <div role="alert">
          <Notice kind="error">{error}</Notice>
        </div>
      ) : null}
      {isOpen ? (
        <form
          class="stack"
          onSubmit={(event) => {
            event.preventDefault();
            if (body.trim() === '') {
              setError('Write a comment first.');
              return;
            }
            void act(
              () =>
                api.POST('/v1/inquiries/{id}/comments', {
                  params: { path: { id: inquiry.id } },
                  body: { body: body.trim() },
                }),
              () => setBody(''),
            );
          }}
        >
          <Field label="Add a comment" id={commentField}>
            <textarea
              id={commentField}
              rows={3}
              maxLength={4000}
              value={body}
              onInput={(event) => setBody(event.currentTarget.value)}
            />
          </Field>
          <div class="form-actions">
            <button type="submit" class="button button-primary" disabled={busy}>
              Send comment
            </button>
            <button
              type="button"
              class="button"
              disabled={busy}
              onClick={() =>
                void act(() => api.POST('/v1/inquiries/{id}/withdraw', { params: { path: { id: inquiry.id } } }))
              }
            >
              Withdraw
            </button>
          </div>
        </form>
      ) : (
        <p class="muted">This inquiry is closed{inquiry.closed_at ? ` (${shortDateTime(inquiry.closed_at)})` : ''}.</p>
      )}
    </Section>
  );
}
