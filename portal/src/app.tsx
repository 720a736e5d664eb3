import { useCallback, useEffect, useState } from 'preact/hooks';
import { useLoad } from '../../ui/components.tsx';
import { Empty, ErrorState, Loading, Notice } from '../../ui/states.tsx';
import { api, forgetToken, whenSignedOut } from './api.ts';
import { NotFound } from './components.tsx';
import { AcceptancePage, AcceptancesPage } from './pages/acceptance.tsx';
import { EstimatePage } from './pages/estimate.tsx';
import { HistoryPage } from './pages/history.tsx';
import { InquiriesPage, InquiryPage } from './pages/inquiries.tsx';
import { PayPage } from './pages/pay.tsx';
import { PlansPage } from './pages/plans.tsx';
import { TeamPage } from './pages/team.tsx';
import { TracePage } from './pages/trace.tsx';
import { type PeriodKind, periodOfDate, today } from './periods.ts';
import { Link, usePath } from './router.ts';
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
    whenSignedOut(() => setState({ state: 'signed-out', notice: 'Your session has ended. Sign in again.' }));
  }, [check]);

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

  const leave = async () => {
    try {
      await signOut();
      forgetToken();
      setState({ state: 'signed-out', notice: 'You are signed out.' });
    } catch {
      setState({ state: 'error', message: UNREACHABLE });
    }
  };
  return <SignedInPortal session={state.session} onSignOut={leave} />;
}

/** The kind of period "now" means: monthly unless every plan the rep is on is quarterly. */
function usePeriodKind(): PeriodKind | undefined {
  const [loaded] = useLoad(async () => {
    const list = await api.GET('/v1/plans');
    if (!list.data) return { error: list.error };
    const plans = await Promise.all(
      list.data.plans.map((plan) => api.GET('/v1/plans/{id}', { params: { path: { id: plan.id } } })),
    );
    const kinds = plans.flatMap((answer) => (answer.data ? [answer.data.period] : []));
    return { data: kinds.length > 0 && kinds.every((kind) => kind === 'quarterly') ? 'quarterly' : 'monthly' } as const;
  }, []);
  if (loaded.state === 'loading') return undefined;
  return loaded.state === 'ready' ? loaded.data : 'monthly';
}

function useHasTeam(meId: string): boolean {
  const [loaded] = useLoad(() => api.GET('/v1/users', { params: { query: { limit: 2 } } }), []);
  return loaded.state === 'ready' && loaded.data.users.some((user) => user.id !== meId);
}

const TITLES: Array<[RegExp, string]> = [
  [/^\/$/, 'My pay'],
  [/^\/reps\/[^/]+(\/periods\/[^/]+)?$/, 'Pay'],
  [/^\/history$|^\/reps\/[^/]+\/history$/, 'History'],
  [/^\/earnings\//, 'How a line is computed'],
  [/^\/estimate$/, 'What if'],
  [/^\/plans$/, 'My plans'],
  [/^\/team$/, 'My team'],
  [/^\/inquiries$/, 'My inquiries'],
  [/^\/inquiries\/[^/]+$/, 'Inquiry'],
  [/^\/acceptances(\/[^/]+)?$/, 'Plan acceptance'],
];

function SignedInPortal(props: { session: SignedIn; onSignOut: () => void }) {
  const { session } = props;
  const path = usePath();
  const kind = usePeriodKind();
  const hasTeam = useHasTeam(session.rep.id);
  const name = session.rep.display_name ?? session.rep.external_id;

  useEffect(() => {
    const title = TITLES.find(([pattern]) => pattern.test(path))?.[1] ?? 'Not found';
    document.title = `${title} · Quotient`;
  }, [path]);

  const nav: Array<[string, string, boolean]> = [
    ['/', 'My pay', path === '/' || (path.startsWith(`/reps/${session.rep.id}`) && !path.endsWith('/history'))],
    ['/history', 'History', path === '/history' || path === `/reps/${session.rep.id}/history`],
    ['/estimate', 'What if', path === '/estimate'],
    ['/plans', 'My plans', path === '/plans'],
    ['/inquiries', 'My inquiries', path.startsWith('/inquiries')],
    ['/acceptances', 'Plan acceptance', path.startsWith('/acceptances')],
    ...(hasTeam ? [['/team', 'My team', path === '/team'] as [string, string, boolean]] : []),
  ];

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
          <button type="button" class="button button-quiet" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
        <nav class="portal-nav" aria-label="Portal">
          <ul>
            {nav.map(([href, label, current]) => (
              <li key={href}>
                <Link href={href} class="portal-nav-link" current={current}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" class="portal-content" tabIndex={-1}>
        {kind === undefined ? <Loading /> : <Page path={path} session={session} kind={kind} />}
      </main>
    </div>
  );
}

function Page(props: { path: string; session: SignedIn; kind: PeriodKind }) {
  const me = props.session.rep;
  const now = periodOfDate(today(), props.kind);
  const parts = props.path.split('/').filter(Boolean).map(decodeURIComponent);
  const [first, id, section, periodId] = parts;
  if (parts.length === 0) return <PayPage userId={me.id} periodId={now} isMe meId={me.id} />;
  if (first === 'reps' && id && parts.length === 2)
    return <PayPage userId={id} periodId={now} isMe={id === me.id} meId={me.id} />;
  if (first === 'reps' && id && section === 'periods' && periodId && parts.length === 4 && PERIOD.test(periodId)) {
    return <PayPage userId={id} periodId={periodId} isMe={id === me.id} meId={me.id} />;
  }
  if (first === 'reps' && id && section === 'history' && parts.length === 3) {
    return <HistoryPage userId={id} periodId={now} isMe={id === me.id} />;
  }
  if (first === 'history' && parts.length === 1) return <HistoryPage userId={me.id} periodId={now} isMe />;
  if (first === 'earnings' && id && parts.length === 2) return <TracePage earningId={id} />;
  if (first === 'estimate' && parts.length === 1)
    return <EstimatePage userId={me.id} externalId={me.external_id} kind={props.kind} />;
  if (first === 'plans' && parts.length === 1) return <PlansPage />;
  if (first === 'team' && parts.length === 1) return <TeamPage meId={me.id} periodId={now} />;
  if (first === 'inquiries' && parts.length === 1) return <InquiriesPage meId={me.id} />;
  if (first === 'inquiries' && id && parts.length === 2) return <InquiryPage inquiryId={id} />;
  if (first === 'acceptances' && parts.length === 1) return <AcceptancesPage meId={me.id} />;
  if (first === 'acceptances' && id && parts.length === 2) {
    return <AcceptancePage acceptanceId={id} meId={me.id} displayName={me.display_name ?? me.external_id} />;
  }
  return <NotFound />;
}

const PERIOD = /^\d{4}-(0[1-9]|1[0-2]|Q[1-4])$/;

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
