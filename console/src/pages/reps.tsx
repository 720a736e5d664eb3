import { useState } from 'preact/hooks';
import { formatMoney } from '../../../src/domain/earnings/money.ts';
import { shortDateTime } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import {
  Badge,
  CopyButton,
  Dialog,
  Empty,
  Field,
  Notice,
  type Outcome,
  OutcomeNotice,
  PageHeader,
  Show,
  ShowList,
  useLoad,
} from '../components.tsx';
import { DeactivateDialog } from './repDeparture.tsx';

const TONES = {
  projected: 'blue',
  pending: 'amber',
  approved: 'green',
  paid: 'green',
  superseded: 'grey',
  reversed: 'grey',
} as const;

export function RepsPage(props: { canChange: boolean }) {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/reps'), []);
  const [chosen, setChosen] = useState<{ rep: string; period: string } | undefined>();
  const [link, setLink] = useState<{ rep: string; created: Schemas['RepSignInLink'] } | undefined>();
  const [message, setMessage] = useState<Outcome | undefined>();
  const [naming, setNaming] = useState<Schemas['Rep'] | undefined>();
  const [leaving, setLeaving] = useState<Schemas['Rep'] | undefined>();
  const reactivate = async (rep: Schemas['Rep']) => {
    const { data, error } = await api.POST('/admin/v1/reps/{id}/reactivate', { params: { path: { id: rep.id } } });
    setMessage(
      data
        ? { kind: 'success', text: `${data.rep_external_id} is active again and can sign in.` }
        : { kind: 'error', text: describeError(error) },
    );
    reload();
  };
  const createLink = async (rep: Schemas['Rep']) => {
    const { data, error } = await api.POST('/admin/v1/reps/{id}/sign-in-links', { params: { path: { id: rep.id } } });
    if (data) setLink({ rep: rep.external_id, created: data });
    else setMessage({ kind: 'error', text: describeError(error) });
  };

  return (
    <>
      <PageHeader
        title="Reps"
        description="Each rep's standing earnings per period. Choose a period to see every earning with how it was computed."
      />
      <OutcomeNotice outcome={message} />
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.reps}
        empty={<Empty title="No reps yet">Reps appear when deal events name an owner.</Empty>}
      >
        {(reps) => (
          <div class="grid-2 grid-wide-right">
            <div class="card table-wrap">
              <table>
                <caption class="visually-hidden">Reps and their earnings per period</caption>
                <thead>
                  <tr>
                    <th scope="col">Rep</th>
                    <th scope="col">Periods</th>
                    {props.canChange ? (
                      <th scope="col">
                        <span class="visually-hidden">Actions</span>
                      </th>
                    ) : null}
                  </tr>
                </thead>
                <tbody>
                  {reps.map((rep) => (
                    <tr key={rep.id}>
                      <th scope="row" class="nowrap">
                        <span class="strong">{rep.display_name ?? rep.external_id}</span>
                        {rep.display_name === null ? null : <div class="muted small">{rep.external_id}</div>}
                        {rep.leaving_date === null ? null : (
                          <div>
                            <Badge tone="grey">Left {rep.leaving_date}</Badge>
                          </div>
                        )}
                      </th>
                      <td>
                        {rep.periods.length === 0 ? (
                          <span class="muted">No earnings</span>
                        ) : (
                          <div class="chips">
                            {rep.periods.map((period) => (
                              <button
                                type="button"
                                key={period.period_id}
                                class={`chip chip-button${chosen?.rep === rep.id && chosen.period === period.period_id ? ' chip-selected' : ''}`}
                                aria-pressed={chosen?.rep === rep.id && chosen.period === period.period_id}
                                onClick={() => setChosen({ rep: rep.id, period: period.period_id })}
                              >
                                {period.period_id}: {formatMoney(BigInt(period.amount_cents))}
                              </button>
                            ))}
                          </div>
                        )}
                      </td>
                      {props.canChange ? (
                        <td class="actions">
                          <button
                            type="button"
                            class="button"
                            aria-label={`Name ${rep.external_id}`}
                            onClick={() => setNaming(rep)}
                          >
                            Name
                          </button>
                          {rep.deactivated_at === null ? (
                            <>
                              <button type="button" class="button" onClick={() => createLink(rep)}>
                                Sign-in link
                              </button>
                              <button
                                type="button"
                                class="button"
                                aria-label={`Deactivate ${rep.external_id}`}
                                onClick={() => setLeaving(rep)}
                              >
                                Deactivate…
                              </button>
                            </>
                          ) : (
                            <button
                              type="button"
                              class="button"
                              aria-label={`Reactivate ${rep.external_id}`}
                              onClick={() => reactivate(rep)}
                            >
                              Reactivate
                            </button>
                          )}
                        </td>
                      ) : null}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div>
              {chosen ? (
                <RepEarnings rep={chosen.rep} period={chosen.period} />
              ) : (
                <Empty title="Choose a period">Pick a rep's period on the left to see its earnings.</Empty>
              )}
            </div>
          </div>
        )}
      </ShowList>
      {naming ? (
        <NameDialog
          rep={naming}
          onClose={() => setNaming(undefined)}
          onNamed={(named) => {
            setNaming(undefined);
            setMessage({
              kind: 'success',
              text:
                named.display_name === null
                  ? `${named.rep_external_id} has no display name now.`
                  : `${named.rep_external_id} is called ${named.display_name}.`,
            });
            reload();
          }}
        />
      ) : null}
      {leaving ? (
        <DeactivateDialog
          rep={leaving}
          onClose={() => setLeaving(undefined)}
          onDone={(departure) => {
            setLeaving(undefined);
            setMessage({
              kind: 'success',
              text: `${departure.rep_external_id} is deactivated, leaving on ${departure.leaving_date}: ${departure.sessions_ended} portal session(s) ended, ${departure.tokens_revoked} rep token(s) revoked.`,
            });
            reload();
          }}
        />
      ) : null}
      <Dialog
        open={link !== undefined}
        title={`A sign-in link for ${link?.rep ?? ''}`}
        onClose={() => setLink(undefined)}
        footer={
          <button type="button" class="button button-primary" onClick={() => setLink(undefined)}>
            Done
          </button>
        }
      >
        <Notice kind="info">
          This is the only time the link is shown. It signs the rep in to their pay portal once, until{' '}
          {link ? new Date(link.created.expires_at).toUTCString() : ''}.
        </Notice>
        <div class="secret">
          <code class="break">{link?.created.url}</code>
          <CopyButton value={link?.created.url ?? ''} label="Copy link" />
        </div>
      </Dialog>
    </>
  );
}

/**
 * The rep's display name: the name they type to accept a plan and the portal greets them by. A name set here is never
 * overwritten by the rep's sign-in through the identity provider; an empty field clears it.
 */
function NameDialog(props: {
  rep: Schemas['Rep'];
  onClose: () => void;
  onNamed: (named: Schemas['RepDisplayName']) => void;
}) {
  const [name, setName] = useState(props.rep.display_name ?? '');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const fromProvider = props.rep.display_name_source === 'idp';
  return (
    <Dialog
      open
      title={`Name ${props.rep.external_id}`}
      onClose={props.onClose}
      footer={
        <>
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" form="rep-name-form" class="button button-primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save name'}
          </button>
        </>
      }
    >
      <form
        id="rep-name-form"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          const trimmed = name.trim();
          const { data, error: refused } = await api.POST('/admin/v1/reps/{id}/display-name', {
            params: { path: { id: props.rep.id } },
            body: { display_name: trimmed === '' ? null : trimmed },
          });
          setBusy(false);
          if (data) props.onNamed(data);
          else setError(describeError(refused));
        }}
      >
        {error ? <Notice kind="error">{error}</Notice> : null}
        <Field
          label="Display name"
          id="rep-name"
          hint={
            fromProvider
              ? 'Now from the rep’s identity provider. A name you set here stays, whatever the provider says; empty clears it.'
              : 'The name the rep types to accept a plan. Sign-ins never overwrite it; empty clears it.'
          }
        >
          <input
            id="rep-name"
            type="text"
            maxLength={200}
            autoComplete="off"
            value={name}
            aria-describedby="rep-name-hint"
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </Field>
      </form>
    </Dialog>
  );
}

function RepEarnings(props: { rep: string; period: string }) {
  const [loaded, reload] = useLoad(
    () =>
      api.GET('/admin/v1/reps/{id}/earnings', { params: { path: { id: props.rep }, query: { period: props.period } } }),
    [props.rep, props.period],
  );
  return (
    <Show loaded={loaded} retry={reload}>
      {({ rep, period_id, earnings }) => (
        <section class="card" aria-labelledby="earnings-title">
          <h2 id="earnings-title">
            {rep.display_name ?? rep.external_id} · {period_id}
          </h2>
          {earnings.length === 0 ? (
            <p class="muted">No earnings in this period.</p>
          ) : (
            <ol class="earning-list">
              {earnings.map((earning) => (
                <li
                  key={earning.id}
                  class={earning.status === 'superseded' || earning.status === 'reversed' ? 'earning-history' : ''}
                >
                  <div class="earning-head">
                    <span class="strong">{formatMoney(BigInt(earning.amount_cents))}</span>
                    <Badge tone={TONES[earning.status]}>{earning.status}</Badge>
                    <span>{earning.chip_name}</span>
                    <span class="muted small">
                      {earning.deal_external_id ? `deal ${earning.deal_external_id}` : 'period bonus'}
                    </span>
                    <span class="muted small">{shortDateTime(earning.created_at)}</span>
                  </div>
                  <ul class="explanation">
                    {earning.explanation.map((sentence) => (
                      <li key={sentence}>{sentence}</li>
                    ))}
                  </ul>
                </li>
              ))}
            </ol>
          )}
        </section>
      )}
    </Show>
  );
}
