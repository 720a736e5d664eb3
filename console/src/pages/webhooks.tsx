import { useState } from 'preact/hooks';
import { dateTime, relative, shortDateTime } from '../../../ui/format.ts';
import { api, describeError, type Schemas } from '../api.ts';
import {
  Badge,
  ConfirmDialog,
  CopyButton,
  Dialog,
  Empty,
  Field,
  Notice,
  type Outcome,
  OutcomeNotice,
  PageHeader,
  ShowList,
  useLoad,
} from '../components.tsx';

const KINDS = [
  'deal.updated',
  'earning.created',
  'earning.status_changed',
  'period.locked',
  'period.paid',
  'adjustment.created',
];

export function WebhooksPage(props: { canChange: boolean }) {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/webhook-endpoints'), []);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ title: string; value: string } | undefined>();
  const [rotating, setRotating] = useState<Schemas['WebhookEndpoint'] | undefined>();
  const [open, setOpen] = useState<string | undefined>();
  const [message, setMessage] = useState<Outcome | undefined>();

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Quotient signs each webhook (Standard Webhooks) and retries failed deliveries for days. Receivers deduplicate on webhook-id."
        actions={
          props.canChange ? (
            <button type="button" class="button button-primary" onClick={() => setAdding(true)}>
              Add endpoint
            </button>
          ) : null
        }
      />
      <OutcomeNotice outcome={message} />
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.endpoints}
        empty={
          <Empty title="No webhook endpoints">
            Add an HTTPS endpoint to hear about deals, earnings and periods as they change.
          </Empty>
        }
      >
        {(endpoints) => (
          <div class="stack">
            {endpoints.map((endpoint) => (
              <section class="card" key={endpoint.id} aria-label={`Endpoint ${endpoint.url}`}>
                <div class="endpoint-head">
                  <div>
                    <div class="strong break">{endpoint.url}</div>
                    <div class="muted small">
                      {endpoint.events.length === 0 ? 'Every event kind' : endpoint.events.join(', ')} · added{' '}
                      {relative(endpoint.created_at)}
                      {endpoint.previous_secret_expires_at
                        ? ` · previous secret valid until ${dateTime(endpoint.previous_secret_expires_at)}`
                        : ''}
                    </div>
                  </div>
                  <div class="endpoint-actions">
                    {endpoint.enabled ? (
                      <Badge tone="green">Enabled</Badge>
                    ) : (
                      <Badge tone="red">
                        Disabled{endpoint.disabled_reason ? `: ${endpoint.disabled_reason}` : ''}
                      </Badge>
                    )}
                    <button
                      type="button"
                      class="button"
                      aria-expanded={open === endpoint.id}
                      onClick={() => setOpen(open === endpoint.id ? undefined : endpoint.id)}
                    >
                      {open === endpoint.id ? 'Hide deliveries' : 'Deliveries'}
                    </button>
                    {props.canChange ? (
                      <button type="button" class="button" onClick={() => setRotating(endpoint)}>
                        Rotate secret
                      </button>
                    ) : null}
                  </div>
                </div>
                {open === endpoint.id ? (
                  <Deliveries endpointId={endpoint.id} canChange={props.canChange} onMessage={setMessage} />
                ) : null}
              </section>
            ))}
          </div>
        )}
      </ShowList>
      {adding ? (
        <AddEndpointDialog
          onClose={() => setAdding(false)}
          onAdded={(created) => {
            setAdding(false);
            setSecret({ title: 'Endpoint added: its signing secret', value: created.secret });
            void reload();
          }}
        />
      ) : null}
      <ConfirmDialog
        subject={rotating}
        title={() => 'Rotate the signing secret?'}
        action={() => 'Rotate secret'}
        tone="primary"
        onClose={() => setRotating(undefined)}
        onConfirm={async (endpoint) => {
          const { data, error } = await api.POST('/admin/v1/webhook-endpoints/{id}/rotate-secret', {
            params: { path: { id: endpoint.id } },
          });
          if (data) setSecret({ title: 'The new signing secret', value: data.secret });
          else setMessage({ kind: 'error', text: describeError(error) });
          void reload();
        }}
      >
        {() => (
          <p>
            A new secret signs from now on. The current one keeps signing too for 24 hours, so you can move your
            receiver to the new one.
          </p>
        )}
      </ConfirmDialog>
      <Dialog
        open={secret !== undefined}
        title={secret?.title ?? ''}
        onClose={() => setSecret(undefined)}
        footer={
          <button type="button" class="button button-primary" onClick={() => setSecret(undefined)}>
            I have stored the secret
          </button>
        }
      >
        <Notice kind="info">This is the only time the secret is shown.</Notice>
        <div class="secret">
          <code>{secret?.value}</code>
          <CopyButton value={secret?.value ?? ''} label="Copy secret" />
        </div>
      </Dialog>
    </>
  );
}

function Deliveries(props: { endpointId: string; canChange: boolean; onMessage: (message: Outcome) => void }) {
  const [loaded, reload] = useLoad(
    () => api.GET('/admin/v1/webhook-endpoints/{id}/deliveries', { params: { path: { id: props.endpointId } } }),
    [props.endpointId],
  );
  return (
    <ShowList
      loaded={loaded}
      retry={reload}
      items={(data) => data.deliveries}
      empty={<p class="muted">No deliveries yet.</p>}
    >
      {(deliveries) => (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Recent deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Message</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last response</th>
                <th scope="col">Created (UTC)</th>
                {props.canChange ? (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {deliveries.map((delivery) => {
                const last = delivery.attempts[delivery.attempts.length - 1];
                return (
                  <tr key={delivery.message_id}>
                    <td>
                      <code>{delivery.type}</code>
                    </td>
                    <td>
                      <code class="small">{delivery.message_id}</code>
                    </td>
                    <td>
                      {delivery.status === 'delivered' ? (
                        <Badge tone="green">Delivered</Badge>
                      ) : delivery.status === 'failed' ? (
                        <Badge tone="red">Failed</Badge>
                      ) : (
                        <Badge tone="amber">{delivery.in_flight ? 'Sending' : 'Pending'}</Badge>
                      )}
                    </td>
                    <td class="numeric">{delivery.attempt_count}</td>
                    <td>{last ? (last.response_status ?? last.error ?? '—') : '—'}</td>
                    <td class="nowrap">{shortDateTime(delivery.message_created_at)}</td>
                    {props.canChange ? (
                      <td class="actions">
                        <button
                          type="button"
                          class="button"
                          onClick={async () => {
                            const { data, error } = await api.POST('/admin/v1/webhook-messages/{id}/redeliver', {
                              params: { path: { id: delivery.message_id } },
                              body: { endpoint_id: props.endpointId },
                            });
                            props.onMessage(
                              data
                                ? { kind: 'success', text: `Redelivery of ${delivery.message_id} requested.` }
                                : { kind: 'error', text: describeError(error) },
                            );
                            void reload();
                          }}
                        >
                          Redeliver
                        </button>
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </ShowList>
  );
}

function AddEndpointDialog(props: {
  onClose: () => void;
  onAdded: (created: Schemas['WebhookEndpointWithSecret']) => void;
}) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <Dialog
      open
      title="Add a webhook endpoint"
      onClose={props.onClose}
      footer={
        <>
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" form="add-endpoint" class="button button-primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add endpoint'}
          </button>
        </>
      }
    >
      <form
        id="add-endpoint"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          const { data, error: failure } = await api.POST('/admin/v1/webhook-endpoints', { body: { url, events } });
          setBusy(false);
          if (data) props.onAdded(data);
          else setError(describeError(failure));
        }}
      >
        {error ? <Notice kind="error">{error}</Notice> : null}
        <Field id="endpoint-url" label="URL" hint="HTTPS on a public address.">
          <input
            id="endpoint-url"
            type="url"
            required
            value={url}
            aria-describedby="endpoint-url-hint"
            onInput={(event) => setUrl(event.currentTarget.value)}
          />
        </Field>
        <fieldset class="field">
          <legend>Events (none chosen: every kind)</legend>
          {KINDS.map((kind) => (
            <label class="check" key={kind}>
              <input
                type="checkbox"
                checked={events.includes(kind)}
                onChange={(event) =>
                  setEvents(
                    event.currentTarget.checked ? [...events, kind] : events.filter((chosen) => chosen !== kind),
                  )
                }
              />
              <code>{kind}</code>
            </label>
          ))}
        </fieldset>
      </form>
    </Dialog>
  );
}
