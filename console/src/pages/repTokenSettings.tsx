import { useState } from 'preact/hooks';
import { api, describeError } from '../api.ts';
import { Field, Notice, type Outcome, OutcomeNotice, useLoad } from '../components.tsx';

/**
 * Rep tokens (docs/rep-tokens.md): the browser origins allowed to call the API with them (CORS), and each rep's rate
 * limit. Admins change them; viewers read them.
 */
export function RepTokensSettings(props: { canChange: boolean }) {
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
