import { useEffect, useState } from 'preact/hooks';
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
import { navigate } from '../router.tsx';

type Connection = Schemas['Connection'];

const TONES: Record<Connection['status'], 'green' | 'blue' | 'grey' | 'red'> = {
  connected: 'green',
  syncing: 'blue',
  behind: 'blue',
  pending: 'grey',
  paused: 'grey',
  failing: 'red',
};

function statusLabel(connection: Connection): string {
  return connection.status === 'behind' || (connection.status === 'paused' && connection.behind_by > 0)
    ? `${connection.status}, ${connection.behind_by} waiting`
    : connection.status;
}

/** The org's CRM connections (docs/connectors.md): their state, and connect, pause, resume, re-sync, remove. */
export function ConnectorsPage(props: { canChange: boolean }) {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/connections'), []);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Connection | undefined>();
  const [message, setMessage] = useState<Outcome | undefined>();
  const origin = window.location.origin;

  const act = async (connection: Connection, action: 'pause' | 'resume' | 'resync', done: string) => {
    const path = { params: { path: { id: connection.id } } };
    const { data, error } =
      action === 'pause'
        ? await api.POST('/admin/v1/connections/{id}/pause', path)
        : action === 'resume'
          ? await api.POST('/admin/v1/connections/{id}/resume', path)
          : await api.POST('/admin/v1/connections/{id}/resync', { ...path, body: {} });
    setMessage(data ? { kind: 'success', text: done } : { kind: 'error', text: describeError(error) });
    void reload();
  };
  const authorize = async (connection: Connection) => {
    const { data, error } = await api.POST('/admin/v1/connections/{id}/authorize', {
      params: { path: { id: connection.id } },
    });
    if (data) window.location.assign(data.authorize_url);
    else setMessage({ kind: 'error', text: describeError(error) });
  };

  return (
    <>
      <PageHeader
        title="Connectors"
        description="Connect your CRM and deals arrive by themselves: Quotient reads every deal once, then applies each change the CRM announces within seconds."
        actions={
          props.canChange ? (
            <button type="button" class="button button-primary" onClick={() => setAdding(true)}>
              Add connection
            </button>
          ) : null
        }
      />
      <OutcomeNotice outcome={message} />
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.connections}
        empty={
          <Empty title="No connections">Add your HubSpot app or Salesforce connected app to connect an account.</Empty>
        }
      >
        {(connections) => (
          <div class="card table-wrap">
            <table>
              <caption class="visually-hidden">CRM connections</caption>
              <thead>
                <tr>
                  <th scope="col">CRM</th>
                  <th scope="col">Status</th>
                  <th scope="col">Account</th>
                  <th scope="col">Last change seen</th>
                  <th scope="col">Last sync</th>
                  <th scope="col">Error</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {connections.map((connection) => (
                  <tr key={connection.id}>
                    <th scope="row" class="strong">
                      {connection.kind === 'hubspot' ? 'HubSpot' : 'Salesforce'}
                    </th>
                    <td>
                      <Badge tone={TONES[connection.status]}>{statusLabel(connection)}</Badge>
                    </td>
                    <td>{connection.account_id ?? '-'}</td>
                    <td>{connection.last_change_at ?? '-'}</td>
                    <td>{connection.last_sync_at ?? '-'}</td>
                    <td class="break">{connection.error ?? '-'}</td>
                    <td class="actions">
                      {connection.webhook_path === null ? null : (
                        <CopyButton value={`${origin}${connection.webhook_path}`} label="Copy webhook target URL" />
                      )}
                      {props.canChange ? (
                        <>
                          {connection.auth_flow === 'authorization_code' ? (
                            <button type="button" class="button button-quiet" onClick={() => authorize(connection)}>
                              {connection.status === 'pending' ? 'Connect' : 'Reconnect'}
                            </button>
                          ) : null}
                          {connection.status === 'paused' ? (
                            <button
                              type="button"
                              class="button button-quiet"
                              onClick={() => act(connection, 'resume', 'Connection resumed.')}
                            >
                              Resume
                            </button>
                          ) : connection.status !== 'pending' ? (
                            <>
                              <button
                                type="button"
                                class="button button-quiet"
                                onClick={() => act(connection, 'pause', 'Connection paused.')}
                              >
                                Pause
                              </button>
                              <button
                                type="button"
                                class="button button-quiet"
                                onClick={() => act(connection, 'resync', 'Re-sync started.')}
                              >
                                Re-sync
                              </button>
                            </>
                          ) : null}
                          <button
                            type="button"
                            class="button button-danger-quiet"
                            onClick={() => setRemoving(connection)}
                          >
                            Remove
                          </button>
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ShowList>
      {adding ? (
        <AddConnectionDialog
          onClose={() => setAdding(false)}
          onAdded={(created) => {
            setAdding(false);
            // The JWT bearer flow is connected already (its first sync runs); the others go to the CRM to consent.
            if (created.auth_flow === 'jwt_bearer') {
              setMessage({ kind: 'success', text: 'Connected; the first sync runs.' });
              void reload();
            } else void authorize(created);
          }}
        />
      ) : null}
      <ConfirmDialog
        subject={removing}
        title={() => 'Remove the connection?'}
        action={() => 'Remove connection'}
        tone="danger"
        onClose={() => setRemoving(undefined)}
        onConfirm={async (connection) => {
          const { error, response } = await api.DELETE('/admin/v1/connections/{id}', {
            params: { path: { id: connection.id } },
          });
          setMessage(
            response.ok
              ? { kind: 'success', text: 'Connection removed; its deals stay.' }
              : { kind: 'error', text: describeError(error) },
          );
          void reload();
        }}
      >
        {() => <p>Quotient stops reading the CRM. The deals it brought in stay, with their earnings.</p>}
      </ConfirmDialog>
    </>
  );
}

const CRM_LABELS = { hubspot: 'HubSpot', salesforce: 'Salesforce' } as const;

function AddConnectionDialog(props: { onClose: () => void; onAdded: (created: Connection) => void }) {
  const redirectUri = `${window.location.origin}/admin/connectors/callback`;
  const [kind, setKind] = useState<Connection['kind']>('hubspot');
  const [flow, setFlow] = useState<Connection['auth_flow']>('authorization_code');
  const [form, setForm] = useState({ client_id: '', client_secret: '', login_url: '', username: '', private_key: '' });
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const jwt = kind === 'salesforce' && flow === 'jwt_bearer';
  const body = (): Schemas['CreateConnection'] => {
    const loginUrl = kind === 'salesforce' && form.login_url.trim() !== '' ? { login_url: form.login_url.trim() } : {};
    if (jwt) {
      return {
        kind,
        client_id: form.client_id,
        ...loginUrl,
        jwt: { username: form.username, private_key: form.private_key },
      };
    }
    return {
      kind,
      client_id: form.client_id,
      client_secret: form.client_secret,
      redirect_uri: redirectUri,
      ...loginUrl,
    };
  };
  const input = (id: string, field: keyof typeof form, label: string, options: { hint?: string } = {}) => (
    <Field id={id} label={label} {...(options.hint ? { hint: options.hint } : {})}>
      <input
        id={id}
        required={field !== 'login_url'}
        aria-describedby={options.hint ? `${id}-hint` : undefined}
        value={form[field]}
        onInput={(event) => setForm({ ...form, [field]: event.currentTarget.value })}
      />
    </Field>
  );
  return (
    <Dialog
      open
      title={`Connect ${CRM_LABELS[kind]}`}
      onClose={props.onClose}
      footer={
        <>
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" form="add-connection" class="button button-primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add and connect'}
          </button>
        </>
      }
    >
      <form
        id="add-connection"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          const { data, error: failure } = await api.POST('/admin/v1/connections', { body: body() });
          setBusy(false);
          if (data) props.onAdded(data);
          else setError(describeError(failure));
        }}
      >
        {error ? <Notice kind="error">{error}</Notice> : null}
        <Field id="connection-kind" label="CRM">
          <select
            id="connection-kind"
            value={kind}
            onChange={(event) => setKind(event.currentTarget.value as Connection['kind'])}
          >
            <option value="hubspot">HubSpot</option>
            <option value="salesforce">Salesforce</option>
          </select>
        </Field>
        {kind === 'salesforce' ? (
          <>
            <Field id="connection-flow" label="Authorization">
              <select
                id="connection-flow"
                value={flow}
                onChange={(event) => setFlow(event.currentTarget.value as Connection['auth_flow'])}
              >
                <option value="authorization_code">An admin grants access in Salesforce (web-server flow)</option>
                <option value="jwt_bearer">Server to server, with the connected app's certificate (JWT bearer)</option>
              </select>
            </Field>
            {input('connection-login-url', 'login_url', 'Login URL', {
              hint: 'Leave empty for https://login.salesforce.com; https://test.salesforce.com for a sandbox, or your My Domain URL.',
            })}
          </>
        ) : null}
        {jwt ? null : (
          <p class="hint">
            Register this redirect URL in your {kind === 'hubspot' ? 'HubSpot app' : 'connected app'}:{' '}
            <code>{redirectUri}</code>
          </p>
        )}
        {input('connection-client-id', 'client_id', kind === 'salesforce' ? 'Consumer key (Client ID)' : 'Client ID')}
        {jwt ? (
          <>
            {input('connection-username', 'username', 'Salesforce username', {
              hint: 'The integration user, pre-authorized for the connected app.',
            })}
            <Field id="connection-private-key" label="Private key (PEM)" hint="Stored sealed, and never shown again.">
              <textarea
                id="connection-private-key"
                required
                rows={6}
                aria-describedby="connection-private-key-hint"
                value={form.private_key}
                onInput={(event) => setForm({ ...form, private_key: event.currentTarget.value })}
              />
            </Field>
          </>
        ) : (
          <Field
            id="connection-client-secret"
            label={kind === 'salesforce' ? 'Consumer secret (Client secret)' : 'Client secret'}
            hint="Stored sealed, and never shown again."
          >
            <input
              id="connection-client-secret"
              type="password"
              autocomplete="off"
              required
              aria-describedby="connection-client-secret-hint"
              value={form.client_secret}
              onInput={(event) => setForm({ ...form, client_secret: event.currentTarget.value })}
            />
          </Field>
        )}
      </form>
    </Dialog>
  );
}

/** Where the CRM sends the admin back: the code and state completed into the connection, then its page. */
export function ConnectorCallbackPage() {
  const [failure, setFailure] = useState<string | undefined>();
  useEffect(() => {
    const query = new URLSearchParams(window.location.search);
    const code = query.get('code');
    const state = query.get('state');
    if (!code || !state) {
      setFailure(query.get('error_description') ?? query.get('error') ?? 'The CRM sent no code back.');
      return;
    }
    api.POST('/admin/v1/connection-authorizations', { body: { code, state } }).then(({ data, error }) => {
      if (data) navigate('/connectors', { replace: true });
      else setFailure(describeError(error));
    });
  }, []);
  return (
    <>
      <PageHeader title="Connectors" description="Completing the connection with the CRM…" />
      {failure ? <Notice kind="error">{failure}</Notice> : <p>Connecting…</p>}
    </>
  );
}
