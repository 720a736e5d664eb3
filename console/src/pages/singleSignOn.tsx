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

type Provider = Schemas['IdentityProvider'];

/** The org's OpenID Connect providers, through which reps sign in to the portal (docs/sso.md). */
export function SingleSignOnPage(props: { orgId: string; canChange: boolean }) {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/identity-providers'), []);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<Provider | undefined>();
  const [editing, setEditing] = useState<Provider | undefined>();
  const [message, setMessage] = useState<Outcome | undefined>();
  const origin = window.location.origin;
  const redirectUri = `${origin}/portal/callback`;

  return (
    <>
      <PageHeader
        title="Single sign-on"
        description="Reps sign in to their pay portal with your company's identity provider (OpenID Connect). Register Quotient at the provider as a web application with the redirect URI below."
        actions={
          props.canChange ? (
            <button type="button" class="button button-primary" onClick={() => setAdding(true)}>
              Add provider
            </button>
          ) : null
        }
      />
      <div class="card secret">
        <span>
          Redirect URI: <code>{redirectUri}</code>
        </span>
        <CopyButton value={redirectUri} label="Copy redirect URI" />
      </div>
      <OutcomeNotice outcome={message} />
      <ShowList
        loaded={loaded}
        retry={reload}
        items={(data) => data.identity_providers}
        empty={
          <Empty title="No identity providers">
            Without one, give reps a one-time sign-in link from the Reps page.
          </Empty>
        }
      >
        {(providers) => (
          <div class="card table-wrap">
            <table>
              <caption class="visually-hidden">Identity providers</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Issuer</th>
                  <th scope="col">Email domains</th>
                  <th scope="col">Rep by claim</th>
                  <th scope="col">Admins</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {providers.map((provider) => (
                  <tr key={provider.id}>
                    <th scope="row" class="strong">
                      {provider.name}
                    </th>
                    <td class="break">{provider.issuer}</td>
                    <td>{provider.email_domains.join(', ')}</td>
                    <td>{provider.owner_id_claim ? <code>{provider.owner_id_claim}</code> : 'Invitations only'}</td>
                    <td>
                      {provider.admins_allowed ? <Badge tone="blue">Allowed</Badge> : <Badge tone="grey">No</Badge>}
                    </td>
                    <td class="actions">
                      <CopyButton
                        value={`${origin}/portal/?org=${props.orgId}&provider=${provider.name}`}
                        label="Copy reps' sign-in address"
                      />
                      {props.canChange ? (
                        <>
                          <button type="button" class="button button-quiet" onClick={() => setEditing(provider)}>
                            Edit<span class="visually-hidden"> {provider.name}</span>
                          </button>
                          <button
                            type="button"
                            class="button button-danger-quiet"
                            onClick={() => setRemoving(provider)}
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
        <AddProviderDialog
          onClose={() => setAdding(false)}
          onAdded={(created) => {
            setAdding(false);
            setMessage({ kind: 'success', text: `Identity provider ${created.name} added.` });
            void reload();
          }}
        />
      ) : null}
      {editing ? (
        <EditProviderDialog
          provider={editing}
          onClose={() => setEditing(undefined)}
          onSaved={(saved) => {
            setEditing(undefined);
            setMessage({ kind: 'success', text: `Identity provider ${saved.name} updated.` });
            void reload();
          }}
        />
      ) : null}
      <ConfirmDialog
        subject={removing}
        title={(provider) => `Remove ${provider.name}?`}
        action={() => 'Remove provider'}
        tone="danger"
        onClose={() => setRemoving(undefined)}
        onConfirm={async (provider) => {
          const { error, response } = await api.DELETE('/admin/v1/identity-providers/{id}', {
            params: { path: { id: provider.id } },
          });
          setMessage(
            response.ok
              ? { kind: 'success', text: `Identity provider ${provider.name} removed.` }
              : { kind: 'error', text: describeError(error) },
          );
          void reload();
        }}
      >
        {() => <p>Nobody can sign in through it any more. Sessions already started run on until they end.</p>}
      </ConfirmDialog>
      <RepTokensSettings canChange={props.canChange} />
    </>
  );
}

/**
 * Rep tokens (docs/rep-tokens.md): the browser origins allowed to call the API with them (CORS), and each rep's rate
 * limit. Admins change them; viewers read them.
 */
function RepTokensSettings(props: { canChange: boolean }) {
  const [loaded, reload] = useLoad(() => api.GET('/admin/v1/rep-access'), []);
  const [form, setForm] = useState<{ origins: string; limit: string } | undefined>();
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [busy, setBusy] = useState(false);
  const shown =
    form ??
    (loaded.state === 'ready'
      ? { origins: loaded.data.cors_allowed_origins.join('\n'), limit: String(loaded.data.rep_rate_limit_per_minute) }
      : undefined);
  return (
    <section class="card" aria-labelledby="rep-tokens-heading">
      <h2 id="rep-tokens-heading">Rep tokens</h2>
      <p class="hint">
        Your intranet can show reps their pay by calling the API from their browser with short-lived rep tokens, minted
        by a key with the <code>rep_tokens:write</code> scope. List the origins allowed to do so.
      </p>
      <OutcomeNotice outcome={outcome} />
      {loaded.state === 'error' ? <Notice kind="error">{loaded.message}</Notice> : null}
      {shown ? (
        <form
          onSubmit={async (event) => {
            event.preventDefault();
            setBusy(true);
            const { data, error } = await api.PUT('/admin/v1/rep-access', {
              body: {
                cors_allowed_origins: shown.origins
                  .split(/[\s,]+/)
                  .map((origin) => origin.trim())
                  .filter((origin) => origin !== ''),
                rep_rate_limit_per_minute: Number(shown.limit),
              },
            });
            setBusy(false);
            if (data) {
              setForm(undefined);
              setOutcome({ kind: 'success', text: 'Rep token settings saved.' });
              void reload();
            } else setOutcome({ kind: 'error', text: describeError(error) });
          }}
        >
          <Field
            id="rep-origins"
            label="Allowed origins"
            hint="One per line, like https://intranet.example.com. Empty: no browser may use rep tokens."
          >
            <textarea
              id="rep-origins"
              rows={3}
              aria-describedby="rep-origins-hint"
              readOnly={!props.canChange}
              value={shown.origins}
              onInput={(event) => setForm({ ...shown, origins: event.currentTarget.value })}
            />
          </Field>
          <Field id="rep-limit" label="Requests per minute per rep" hint="1 to 100000, all of a rep's tokens together.">
            <input
              id="rep-limit"
              type="number"
              min={1}
              max={100000}
              required
              aria-describedby="rep-limit-hint"
              readOnly={!props.canChange}
              value={shown.limit}
              onInput={(event) => setForm({ ...shown, limit: event.currentTarget.value })}
            />
          </Field>
          {props.canChange ? (
            <button type="submit" class="button button-primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save'}
            </button>
          ) : null}
        </form>
      ) : null}
    </section>
  );
}

function AddProviderDialog(props: { onClose: () => void; onAdded: (created: Provider) => void }) {
  const [form, setForm] = useState({
    name: '',
    issuer: '',
    client_id: '',
    client_secret: '',
    email_domains: '',
    owner_id_claim: '',
    admins_allowed: false,
  });
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const text = (key: 'name' | 'issuer' | 'client_id' | 'client_secret' | 'email_domains' | 'owner_id_claim') => ({
    value: form[key],
    onInput: (event: { currentTarget: HTMLInputElement }) => setForm({ ...form, [key]: event.currentTarget.value }),
  });
  return (
    <Dialog
      open
      title="Add an identity provider"
      onClose={props.onClose}
      footer={
        <>
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" form="add-provider" class="button button-primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add provider'}
          </button>
        </>
      }
    >
      <form
        id="add-provider"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          const { data, error: failure } = await api.POST('/admin/v1/identity-providers', {
            body: {
              name: form.name,
              issuer: form.issuer,
              client_id: form.client_id,
              client_secret: form.client_secret,
              email_domains: form.email_domains
                .split(',')
                .map((domain) => domain.trim())
                .filter((domain) => domain !== ''),
              ...(form.owner_id_claim.trim() === '' ? {} : { owner_id_claim: form.owner_id_claim.trim() }),
              admins_allowed: form.admins_allowed,
            },
          });
          setBusy(false);
          if (data) props.onAdded(data);
          else setError(describeError(failure));
        }}
      >
        {error ? <Notice kind="error">{error}</Notice> : null}
        <Field id="provider-name" label="Name" hint="In sign-in addresses: lower-case letters, digits and dashes.">
          <input id="provider-name" required aria-describedby="provider-name-hint" {...text('name')} />
        </Field>
        <Field id="provider-issuer" label="Issuer URL">
          <input id="provider-issuer" type="url" required {...text('issuer')} />
        </Field>
        <Field id="provider-client-id" label="Client ID">
          <input id="provider-client-id" required {...text('client_id')} />
        </Field>
        <Field id="provider-client-secret" label="Client secret" hint="Stored, and never shown again.">
          <input
            id="provider-client-secret"
            type="password"
            autocomplete="off"
            required
            aria-describedby="provider-client-secret-hint"
            {...text('client_secret')}
          />
        </Field>
        <Field id="provider-domains" label="Email domains" hint="Comma-separated, e.g. acme.com, acme.co.uk.">
          <input id="provider-domains" required aria-describedby="provider-domains-hint" {...text('email_domains')} />
        </Field>
        <Field
          id="provider-owner-claim"
          label="Owner id claim"
          hint="The ID token claim with the rep's CRM owner id. Empty: reps are linked by invitation."
        >
          <input id="provider-owner-claim" aria-describedby="provider-owner-claim-hint" {...text('owner_id_claim')} />
        </Field>
        <label class="check">
          <input
            type="checkbox"
            checked={form.admins_allowed}
            onChange={(event) => setForm({ ...form, admins_allowed: event.currentTarget.checked })}
          />
          Admins may sign in to this console through it
        </label>
      </form>
    </Dialog>
  );
}

/** Changes a provider in place: a rotated client secret (left blank, the stored one stays), client id, domains. */
function EditProviderDialog(props: { provider: Provider; onClose: () => void; onSaved: (saved: Provider) => void }) {
  const { provider } = props;
  const [form, setForm] = useState({
    client_id: provider.client_id,
    client_secret: '',
    email_domains: provider.email_domains.join(', '),
    owner_id_claim: provider.owner_id_claim ?? '',
    admins_allowed: provider.admins_allowed,
  });
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const text = (key: 'client_id' | 'client_secret' | 'email_domains' | 'owner_id_claim') => ({
    value: form[key],
    onInput: (event: { currentTarget: HTMLInputElement }) => setForm({ ...form, [key]: event.currentTarget.value }),
  });
  return (
    <Dialog
      open
      title={`Edit ${provider.name}`}
      onClose={props.onClose}
      footer={
        <>
          <button type="button" class="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" form="edit-provider" class="button button-primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </>
      }
    >
      <form
        id="edit-provider"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          const { data, error: failure } = await api.PATCH('/admin/v1/identity-providers/{id}', {
            params: { path: { id: provider.id } },
            body: {
              client_id: form.client_id,
              ...(form.client_secret === '' ? {} : { client_secret: form.client_secret }),
              email_domains: form.email_domains
                .split(',')
                .map((domain) => domain.trim())
                .filter((domain) => domain !== ''),
              owner_id_claim: form.owner_id_claim.trim() === '' ? null : form.owner_id_claim.trim(),
              admins_allowed: form.admins_allowed,
            },
          });
          setBusy(false);
          if (data) props.onSaved(data);
          else setError(describeError(failure));
        }}
      >
        {error ? <Notice kind="error">{error}</Notice> : null}
        <p class="muted">
          Issuer <span class="break">{provider.issuer}</span>. A different issuer is a different provider: add it beside
          this one.
        </p>
        <Field id="edit-client-id" label="Client ID">
          <input id="edit-client-id" required {...text('client_id')} />
        </Field>
        <Field
          id="edit-client-secret"
          label="New client secret"
          hint="Leave empty to keep the stored secret. Change it at the provider first."
        >
          <input
            id="edit-client-secret"
            type="password"
            autocomplete="off"
            aria-describedby="edit-client-secret-hint"
            {...text('client_secret')}
          />
        </Field>
        <Field id="edit-domains" label="Email domains" hint="Comma-separated.">
          <input id="edit-domains" required aria-describedby="edit-domains-hint" {...text('email_domains')} />
        </Field>
        <Field id="edit-owner-claim" label="Owner id claim" hint="Empty: reps are linked by invitation.">
          <input id="edit-owner-claim" aria-describedby="edit-owner-claim-hint" {...text('owner_id_claim')} />
        </Field>
        <label class="check">
          <input
            type="checkbox"
            checked={form.admins_allowed}
            onChange={(event) => setForm({ ...form, admins_allowed: event.currentTarget.checked })}
          />
          Admins may sign in to this console through it
        </label>
      </form>
    </Dialog>
  );
}
