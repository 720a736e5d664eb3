import { useState } from 'preact/hooks';
import { api, describeError, type Schemas } from '../api.ts';
import {
  Badge,
  ConfirmDialog,
  CopyButton,
  Empty,
  type Outcome,
  OutcomeNotice,
  PageHeader,
  ShowList,
  useLoad,
} from '../components.tsx';
import { AddProviderDialog, EditProviderDialog } from './identityProviderDialogs.tsx';
import { RepTokensSettings } from './repTokenSettings.tsx';

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
