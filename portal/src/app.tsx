import { useCallback, useEffect, useState } from 'preact/hooks';
import { Empty, ErrorState, Loading, Notice } from '../../ui/states.tsx';
import { fetchSession, type SignedIn, signInHref, signOut } from './session.ts';

type State =
  | { state: 'checking' }
  | { state: 'error'; message: string }
  | { state: 'signed-out'; notice?: string }
  | { state: 'signed-in'; session: SignedIn };

const UNREACHABLE = 'The server could not be reached. Check your connection and retry.';

export function App() {
  const [state, setState] = useState<State>({ state: 'checking' });

  const check = useCallback(async () => {
    setState({ state: 'checking' });
    try {
      const status = await fetchSession();
      setState(status.signed_in ? { state: 'signed-in', session: status } : { state: 'signed-out' });
    } catch {
      setState({ state: 'error', message: UNREACHABLE });
    }
  }, []);

  useEffect(() => {
    void check();
  }, [check]);

  useEffect(() => {
    document.title = state.state === 'signed-in' ? 'Your pay · Quotient' : 'Sign in · Quotient';
  }, [state.state]);

  if (state.state === 'checking') {
    return (
      <main class="centered">
        <Loading label="Checking your session…" />
      </main>
    );
  }
  if (state.state === 'error') {
    return (
      <main class="centered">
        <h1 class="visually-hidden">Your pay</h1>
        <ErrorState message={state.message} retry={check} />
      </main>
    );
  }
  if (state.state === 'signed-out') return <SignedOut notice={state.notice} />;

  const { session } = state;
  const name = session.rep.display_name ?? session.rep.external_id;
  const leave = async () => {
    try {
      await signOut();
      setState({ state: 'signed-out', notice: 'You are signed out.' });
    } catch {
      setState({ state: 'error', message: UNREACHABLE });
    }
  };
  return (
    <div class="portal">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="portal-header">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true">
            Q
          </span>
          <div>
            <div class="brand-name">Quotient</div>
            <div class="brand-org">{session.org.name}</div>
          </div>
        </div>
        <div class="portal-account">
          <span>
            Signed in as <strong>{name}</strong> <span class="muted">({session.rep.external_id})</span>
          </span>
          <button type="button" class="button button-quiet" onClick={leave}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" class="portal-content" tabIndex={-1}>
        <h1>Your pay</h1>
        <Empty title="Nothing to show yet">Your earnings, statements and payouts will appear here.</Empty>
      </main>
    </div>
  );
}

function SignedOut(props: { notice?: string | undefined }) {
  const href = signInHref(window.location.search);
  return (
    <main class="centered">
      <div class="portal-sign-in">
        <h1>Your pay</h1>
        {props.notice ? <Notice kind="info">{props.notice}</Notice> : null}
        {href ? (
          <a class="button button-primary" href={href}>
            Sign in with your company account
          </a>
        ) : (
          <Empty title="Sign in with the link you were given">
            Open the sign-in address or the one-time link your administrator sent you.
          </Empty>
        )}
      </div>
    </main>
  );
}
