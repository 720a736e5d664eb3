import { useId, useState } from 'preact/hooks';
import { Badge, Field, Show, ShowList, useLoad } from '../../../ui/components.tsx';
import { describeError } from '../../../ui/errors.ts';
import { dateTime } from '../../../ui/format.ts';
import { PlanDocumentView } from '../../../ui/planDocument.tsx';
import { Empty, Notice } from '../../../ui/states.tsx';
import { api, type Schemas } from '../api.ts';
import { NotFound } from '../components.tsx';
import { downloadAcceptedDocument } from '../downloads.ts';
import { Link } from '../router.ts';

// Plan acceptance (docs/plan-acceptance.md, docs/portal.md): the plan versions the rep is asked to accept
// (GET /v1/plan-acceptances?user_id=<me>), and one request's page: the document the rep is shown, kept with the
// request (GET /v1/plan-acceptances/{id}/document), then their typed name and Accept
// (POST /v1/plans/{id}/acceptances); once accepted, when, and the accepted document as a PDF.

type PlanAcceptance = Schemas['PlanAcceptance'];

function StateBadge(props: { acceptance: PlanAcceptance }) {
  return props.acceptance.state === 'accepted' ? (
    <Badge tone="green">accepted</Badge>
  ) : (
    <Badge tone="amber">to accept</Badge>
  );
}

function versionLabel(acceptance: PlanAcceptance): string {
  return `${acceptance.plan_name}, version ${acceptance.plan_version}`;
}

/** The rep's plan versions waiting for their acceptance (for the banner on My pay). */
export function usePendingAcceptances(meId: string): PlanAcceptance[] {
  const [loaded] = useLoad(
    () => api.GET('/v1/plan-acceptances', { params: { query: { user_id: meId, state: 'requested', limit: 20 } } }),
    [meId],
  );
  return loaded.state === 'ready' ? loaded.data.plan_acceptances : [];
}

/** On My pay: the plan versions the rep has yet to accept, with the way to them. */
export function AcceptanceBanner(props: { meId: string }) {
  const pending = usePendingAcceptances(props.meId);
  const [first] = pending;
  if (!first) return null;
  return (
    <Notice kind="info">
      {pending.length === 1
        ? `Please read and accept your plan: ${versionLabel(first)}. `
        : `Please read and accept your ${pending.length} plan versions. `}
      <Link href={pending.length === 1 ? `/acceptances/${first.id}` : '/acceptances'}>
        {pending.length === 1 ? 'Read and accept' : 'See your plan acceptances'}
      </Link>
    </Notice>
  );
}

export function AcceptancesPage(props: { meId: string }) {
  const [loaded, reload] = useLoad(
    () => api.GET('/v1/plan-acceptances', { params: { query: { user_id: props.meId, limit: 100 } } }),
    [props.meId],
  );
  return (
    <div class="stack acceptance-page">
      <header class="page-header">
        <div>
          <h1>Plan acceptance</h1>
          <p class="muted">
            The versions of your plans you are asked to accept. Read each plan's document, then accept it by typing your
            name. The document you accept is kept, and you can read it again here.
          </p>
        </div>
      </header>
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) =>
          [...data.plan_acceptances].sort((a, b) => (a.state === b.state ? 0 : a.state === 'requested' ? -1 : 1))
        }
        empty={
          <Empty title="Nothing to accept">When a plan you are on changes, you will be asked to accept it here.</Empty>
        }
      >
        {(acceptances) => (
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Your plan acceptances, those to accept first</caption>
              <thead>
                <tr>
                  <th scope="col">Plan</th>
                  <th scope="col">State</th>
                  <th scope="col">Asked</th>
                  <th scope="col">Accepted</th>
                  <th scope="col">Document</th>
                </tr>
              </thead>
              <tbody>
                {acceptances.map((acceptance) => (
                  <tr key={acceptance.id}>
                    <td>{versionLabel(acceptance)}</td>
                    <td>
                      <StateBadge acceptance={acceptance} />
                    </td>
                    <td class="nowrap">{dateTime(acceptance.requested_at)}</td>
                    <td class="nowrap">{acceptance.accepted_at ? dateTime(acceptance.accepted_at) : '—'}</td>
                    <td>
                      <Link href={`/acceptances/${acceptance.id}`}>
                        {acceptance.state === 'requested' ? 'Read and accept' : 'Accepted document'}
                        <span class="visually-hidden"> of {versionLabel(acceptance)}</span>
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ShowList>
    </div>
  );
}

type Loaded = { notFound: true } | { acceptance: PlanAcceptance; document: Schemas['PlanDocument'] };

export function AcceptancePage(props: { acceptanceId: string; meId: string; displayName: string }) {
  const { acceptanceId } = props;
  const [loaded, reload] = useLoad<Loaded>(async () => {
    const [acceptance, document] = await Promise.all([
      api.GET('/v1/plan-acceptances/{id}', { params: { path: { id: acceptanceId } } }),
      api.GET('/v1/plan-acceptances/{id}/document', {
        params: { path: { id: acceptanceId }, query: { format: 'json' } },
      }),
    ]);
    if (acceptance.response.status === 404 || document.response.status === 404) return { data: { notFound: true } };
    if (!acceptance.data) return { error: acceptance.error };
    if (!document.data) return { error: document.error };
    return { data: { acceptance: acceptance.data, document: document.data as Schemas['PlanDocument'] } };
  }, [acceptanceId]);
  const [justAccepted, setJustAccepted] = useState(false);
  const [downloadError, setDownloadError] = useState<string | undefined>();

  const download = async (acceptance: PlanAcceptance) => {
    setDownloadError(undefined);
    try {
      await downloadAcceptedDocument(acceptance.id, `${acceptance.plan_name} v${acceptance.plan_version}`);
    } catch (error) {
      setDownloadError(error instanceof Error ? error.message : 'The download failed.');
    }
  };

  return (
    <Show loaded={loaded} retry={reload}>
      {(data) => {
        if ('notFound' in data) return <NotFound />;
        const { acceptance, document } = data;
        const mine = acceptance.user_id === props.meId;
        const accepted = acceptance.state === 'accepted';
        return (
          <div class="stack acceptance-page">
            <nav class="breadcrumb" aria-label="Breadcrumb">
              <Link href="/acceptances">Plan acceptance</Link> <span aria-hidden="true">/</span>{' '}
              <span>{versionLabel(acceptance)}</span>
            </nav>
            <header class="page-header">
              <div>
                <h1>Plan acceptance</h1>
                <p class="muted">
                  {versionLabel(acceptance)}
                  {mine ? '' : ` · ${acceptance.user_external_id}`} · <StateBadge acceptance={acceptance} />
                </p>
              </div>
            </header>
            <div aria-live="polite">
              {accepted ? (
                <Notice kind="success">
                  {justAccepted ? 'Thank you. ' : ''}
                  {mine ? 'You accepted' : `${acceptance.user_external_id} accepted`} {versionLabel(acceptance)} on{' '}
                  {dateTime(acceptance.accepted_at)}
                  {acceptance.typed_name ? `, typing “${acceptance.typed_name}”` : ''}. The document below is the one
                  accepted.
                </Notice>
              ) : null}
            </div>
            {accepted ? (
              <div class="toolbar downloads">
                <button type="button" class="button" onClick={() => download(acceptance)}>
                  Accepted document (PDF)
                </button>
              </div>
            ) : mine ? (
              <p>
                Read the document below, then <a href="#accept">accept it at the end of the page</a> by typing your
                name.
              </p>
            ) : (
              <p class="muted">Not accepted yet. Only {acceptance.user_external_id} can accept it.</p>
            )}
            {downloadError ? <Notice kind="error">{downloadError}</Notice> : null}
            <div class="card portal-section">
              <PlanDocumentView document={document} idPrefix="accept-doc" />
            </div>
            {mine && !accepted ? (
              <AcceptForm
                acceptance={acceptance}
                displayName={props.displayName}
                onAccepted={() => {
                  setJustAccepted(true);
                  void reload();
                }}
              />
            ) : null}
          </div>
        );
      }}
    </Show>
  );
}

function AcceptForm(props: { acceptance: PlanAcceptance; displayName: string; onAccepted: () => void }) {
  const { acceptance } = props;
  const nameField = useId();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [sending, setSending] = useState(false);

  const submit = async () => {
    setError(undefined);
    if (name.trim() === '') {
      setError('Type your name to accept the plan.');
      return;
    }
    setSending(true);
    try {
      const { data, error: failure } = await api.POST('/v1/plans/{id}/acceptances', {
        params: { path: { id: acceptance.plan_id } },
        body: { typed_name: name.trim(), plan_version_id: acceptance.plan_version_id },
      });
      if (!data) {
        setError(describeError(failure));
        return;
      }
      props.onAccepted();
    } catch {
      setError('The server could not be reached. Check your connection and retry.');
    } finally {
      setSending(false);
    }
  };

  return (
    <section class="card portal-section" id="accept" aria-labelledby="accept-title" tabIndex={-1}>
      <h2 id="accept-title">Accept {props.acceptance.plan_name}</h2>
      <form
        class="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <p>
          By typing your name and choosing Accept, you confirm that you have read this document and accept version{' '}
          {acceptance.plan_version} of {acceptance.plan_name}. The time, your address and your browser are recorded with
          the document.
        </p>
        {error ? (
          <div role="alert">
            <Notice kind="error">{error}</Notice>
          </div>
        ) : null}
        <Field label="Your full name" id={nameField} hint="Type your full name as your company knows you.">
          <input
            id={nameField}
            autoComplete="name"
            maxLength={200}
            required
            value={name}
            aria-describedby={`${nameField}-hint`}
            aria-invalid={error ? 'true' : undefined}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </Field>
        <div>
          <button type="submit" class="button button-primary" disabled={sending}>
            {sending ? 'Accepting…' : 'Accept'}
          </button>
        </div>
      </form>
    </section>
  );
}
