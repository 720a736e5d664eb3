import { useState } from 'preact/hooks';
import { api, describeError, type Schemas } from '../api.ts';
import { Dialog, Field, Notice } from '../components.tsx';

// The dialogs that add an OpenID Connect provider and change one (docs/sso.md).

type Provider = Schemas['IdentityProvider'];

export function AddProviderDialog(props: { onClose: () => void; onAdded: (created: Provider) => void }) {
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
export function EditProviderDialog(props: {
  provider: Provider;
  onClose: () => void;
  onSaved: (saved: Provider) => void;
}) {
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
