import { useState } from 'preact/hooks';
import { api, describeError, type Me } from '../api.ts';
import { Notice } from '../components.tsx';

export function SignInPage(props: { notice?: string | undefined; onSignedIn: (me: Me) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

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
          Use the email and password your Quotient operator gave you.
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
      </form>
    </main>
  );
}
