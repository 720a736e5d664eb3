import { useState } from 'preact/hooks';
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
import { dateTime, relative } from '../format.ts';

type Scope = Schemas['Scope'];
const SCOPES: Array<{ scope: Scope; grants: string }> = [
  { scope: 'deals:read', grants: 'List deals' },
  { scope: 'deals:write', grants: 'Send deal events' },
  { scope: 'earnings:read', grants: 'List and get earnings' },
  { scope: 'plans:read', grants: 'List and get plans' },
  { scope: 'rep_tokens:write', grants: 'Mint and revoke rep tokens for your intranet' },
  { scope: 'inquiries:write', grants: 'Open, comment on and withdraw inquiries' },
];

export function KeysPage(props: { canChange: boolean }) {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/api-keys'), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Schemas['CreatedApiKey'] | undefined>();
  const [revoking, setRevoking] = useState<Schemas['ApiKey'] | undefined>();
  const [message, setMessage] = useState<Outcome | undefined>();

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let your systems call the Quotient API. Give each the fewest scopes it needs; rotate by creating a new key, checking its last use, then revoking the old one."
        actions={
          props.canChange ? (
            <button type="button" class="button button-primary" onClick={() => setCreating(true)}>
              Create key
            </button>
          ) : null
        }
      />
      <OutcomeNotice outcome={message} />
      <div class="toolbar">
        <button type="button" class="button button-quiet" onClick={() => void reload()}>
          Refresh
        </button>
      </div>
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.keys}
        empty={
          <Empty title="No API keys yet">
            {props.canChange
              ? 'Create a key for each system that calls Quotient, such as your CRM sync.'
              : 'An admin can create keys here.'}
          </Empty>
        }
      >
        {(keys) => (
          <div class="card table-wrap">
            <table>
              <caption class="visually-hidden">API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Limit</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Created</th>
                  {props.canChange ? (
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  ) : null}
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => (
                  <tr key={key.id} data-key-id={key.id}>
                    <td class="strong">{key.name}</td>
                    <td>
                      <code>{key.display_prefix}…</code>
                    </td>
                    <td>
                      <div class="chips">
                        {key.scopes.map((scope) => (
                          <span class="chip" key={scope}>
                            {scope}
                          </span>
                        ))}
                      </div>
                    </td>
                    <td class="numeric">{key.rate_limit_per_minute.toLocaleString('en-US')}/min</td>
                    <td>
                      {key.status === 'active' ? (
                        <Badge tone="green">Active</Badge>
                      ) : (
                        <Badge tone="grey">Revoked</Badge>
                      )}
                    </td>
                    <td data-field="last_used_at" title={dateTime(key.last_used_at)}>
                      {key.last_used_at ? relative(key.last_used_at) : 'Never'}
                    </td>
                    <td title={dateTime(key.created_at)}>{relative(key.created_at)}</td>
                    {props.canChange ? (
                      <td class="actions">
                        {key.status === 'active' ? (
                          <button
                            type="button"
                            class="button button-danger-quiet"
                            onClick={() => setRevoking(key)}
                            aria-label={`Revoke ${key.name}`}
                          >
                            Revoke
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
      {creating ? (
        <CreateKeyDialog
          onClose={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            setMessage(undefined);
            void reload();
          }}
        />
      ) : null}
      <Dialog
        open={created !== undefined}
        title="Your new API key"
        onClose={() => setCreated(undefined)}
        footer={
          <button type="button" class="button button-primary" onClick={() => setCreated(undefined)}>
            I have stored the key
          </button>
        }
      >
        <Notice kind="info">This is the only time the key is shown. Store it in your secret manager now.</Notice>
        <div class="secret">
          <code data-testid="raw-key">{created?.raw_key}</code>
          <CopyButton value={created?.raw_key ?? ''} label="Copy key" />
        </div>
      </Dialog>
      <ConfirmDialog
        subject={revoking}
        title={(key) => `Revoke ${key.name}?`}
        action={() => 'Revoke key'}
        tone="danger"
        onClose={() => setRevoking(undefined)}
        onConfirm={async (key) => {
          const { error } = await api.POST('/admin/v1/api-keys/{id}/revoke', { params: { path: { id: key.id } } });
          setMessage(
            error
              ? { kind: 'error', text: describeError(error) }
              : { kind: 'success', text: `Revoked ${key.name}. Requests with it now get 401 invalid_key.` },
          );
          void reload();
        }}
      >
        {(key) => (
          <p>
            The key <code>{key.display_prefix}…</code> stops working on the very next request. This cannot be undone.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}

function CreateKeyDialog(props: { onClose: () => void; onCreated: (key: Schemas['CreatedApiKey']) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [limit, setLimit] = useState('1000');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (scopes.length === 0) {
      setError('Choose at least one scope.');
      return;
    }
    setBusy(true);
    const { data, error: failure } = await api.POST('/admin/v1/api-keys', {
      body: { name, scopes, rate_limit_per_minute: Number(limit) },
    });
    setBusy(false);
    if (data) props.onCreated(data);
    else setError(describeError(failure));
  };

  return (
    <Dialog
      open
      title="Create an API key"
      onClose={props.onClose}
      footer={
        <>
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" form="create-key" class="button button-primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
        </>
      }
    >
      <form id="create-key" onSubmit={submit}>
        {error ? <Notice kind="error">{error}</Notice> : null}
        <Field id="key-name" label="Name" hint="Who uses the key, e.g. “CRM sync (production)”.">
          <input
            id="key-name"
            required
            maxLength={200}
            value={name}
            aria-describedby="key-name-hint"
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </Field>
        <fieldset class="field">
          <legend>Scopes</legend>
          {SCOPES.map(({ scope, grants }) => (
            <label class="check" key={scope}>
              <input
                type="checkbox"
                name="scopes"
                value={scope}
                checked={scopes.includes(scope)}
                onChange={(event) =>
                  setScopes(
                    event.currentTarget.checked ? [...scopes, scope] : scopes.filter((chosen) => chosen !== scope),
                  )
                }
              />
              <span>
                <code>{scope}</code> <span class="muted">{grants}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <Field id="key-limit" label="Rate limit (requests per minute)" hint="From 1 to 100,000.">
          <input
            id="key-limit"
            type="number"
            min={1}
            max={100000}
            required
            value={limit}
            aria-describedby="key-limit-hint"
            onInput={(event) => setLimit(event.currentTarget.value)}
          />
        </Field>
      </form>
    </Dialog>
  );
}
