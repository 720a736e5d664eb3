import { useState } from 'preact/hooks';
import { api, describeError, type Me, type Schemas } from '../api.ts';
import { Notice } from '../components.tsx';

type SingleSignOn = Schemas['SignInOptions']['single_sign_on'][number];

export function SignInPage(props: { notice?: string | undefined; onSignedIn: (me: Me) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [choices, setChoices] = useState<SingleSignOn[] | undefined>();

  const singleSignOn = async () => {
    setError(undefined);
    setChoices(undefined);
    if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) {
      setError('Enter your work email first: it tells which identity provider signs you in.');
      return;
    }
    setBusy(true);
    try {
      const { data, error: failure } = await api.GET('/admin/v1/sign-in-options', {
        params: { query: { email: email.trim() } },
      });
      if (!data) setError(describeError(failure));
      else if (data.single_sign_on.length === 1 && data.single_sign_on[0]) {
        window.location.assign(data.single_sign_on[0].sign_in_url);
      } else if (data.single_sign_on.length === 0) {
        setError('Single sign-on is not set up for this email. Sign in with your password.');
      } else setChoices(data.single_sign_on);
    } catch {
      setError('The server could not be reached. Check your connection and try again.');
    } finally {
      setBusy(false);
    }
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { data, error: failure } = await api.POST('/admin/v1/sessions', { body: { email, password } });
      if (data) props.onSignedIn(data);
      else setError(describeError(failure));
    } catch {
      setError('The server could not be reached. Check your connection and try again.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <form class="sign-in-card" onSubmit={submit} aria-describedby="sign-in-help">
        <div class="brand brand-large">
          <span class="brand-mark" aria-hidden="true">
            Q
          </span>
          <div class="brand-name">Quotient</div>
        </div>
        <h1>Sign in to the admin console</h1>
        <p class="muted" id="sign-in-help">
          Use the email and password your Quotient operator gave you, or your company's single sign-on.
        </p>
        {props.notice && !error ? <Notice kind="info">{props.notice}</Notice> : null}
        {error ? <Notice kind="error">{error}</Notice> : null}
        <div class="field">
          <label for="email">Email</label>
          <input
            id="email"
            type="email"
            autoComplete="username"
            required
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input
            id="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </div>
        <button type="submit" class="button button-primary button-block" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <div class="sign-in-alternative">
          <span class="muted">or</span>
          <button type="button" class="button button-block" disabled={busy} onClick={singleSignOn}>
            Use single sign-on
          </button>
          {choices ? (
            <nav aria-label="Organisations">
              <p>Your email can sign in to more than one organisation:</p>
              <ul>
                {choices.map((choice) => (
                  <li key={choice.sign_in_url}>
                    <a href={choice.sign_in_url}>
                      {choice.org_name} ({choice.provider})
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          ) : null}
        </div>
      </form>
    </main>
  );
}
