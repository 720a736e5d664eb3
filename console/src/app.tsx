import { useEffect, useState } from 'preact/hooks';
import { api, type Me, rememberSession, whenSignedOut } from './api.ts';
import { Loading } from './components.tsx';
import { AccountingPage } from './pages/accounting.tsx';
import { AdjustmentsPage } from './pages/adjustments.tsx';
import { AdminsPage } from './pages/admins.tsx';
import { AuditPage } from './pages/audit.tsx';
import { ConnectorCallbackPage, ConnectorsPage } from './pages/connectors.tsx';
import { ImportsPage } from './pages/imports.tsx';
import { InquiriesPage } from './pages/inquiries.tsx';
import { InquiryPage } from './pages/inquiry.tsx';
import { KeysPage } from './pages/keys.tsx';
import { PeriodsPage } from './pages/periods.tsx';
import { PlanAcceptancesPage } from './pages/planAcceptances.tsx';
import { PlanDocumentPage } from './pages/planDocument.tsx';
import { PlanPage, PlansPage } from './pages/plans.tsx';
import { QuotasPage } from './pages/quotas.tsx';
import { RepsPage } from './pages/reps.tsx';
import { SignInPage } from './pages/signIn.tsx';
import { SignOffPage } from './pages/signOff.tsx';
import { SingleSignOnPage } from './pages/singleSignOn.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { Link, navigate, usePath } from './router.tsx';

const NAV = [
  { href: '/keys', label: 'API keys' },
  { href: '/audit', label: 'Audit log' },
  { href: '/plans', label: 'Plans' },
  { href: '/imports', label: 'Import deals' },
  { href: '/connectors', label: 'Connectors' },
  { href: '/periods', label: 'Periods' },
  { href: '/adjustments', label: 'Adjustments' },
  { href: '/accounting', label: 'Accounting' },
  { href: '/reps', label: 'Reps' },
  { href: '/inquiries', label: 'Inquiries' },
  { href: '/quotas', label: 'Quotas' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/admins', label: 'Admins' },
  { href: '/single-sign-on', label: 'Single sign-on' },
] as const;

const TITLES: Record<string, string> = Object.fromEntries(NAV.map((item) => [item.href, item.label]));

type SessionState = { state: 'checking' } | { state: 'signed-out'; notice?: string } | { state: 'signed-in'; me: Me };

export function App() {
  const path = usePath();
  const [session, setSession] = useState<SessionState>({ state: 'checking' });

  useEffect(() => {
    whenSignedOut(() => {
      rememberSession(undefined);
      setSession({ state: 'signed-out', notice: 'Your session has ended. Sign in again to continue.' });
    });
    api.GET('/admin/v1/session-status').then(
      ({ data }) => {
        rememberSession(data?.me);
        setSession(data?.me ? { state: 'signed-in', me: data.me } : { state: 'signed-out' });
      },
      () => setSession({ state: 'signed-out', notice: 'The server could not be reached.' }),
    );
  }, []);

  const section = `/${path.split('/')[1] ?? ''}`;
  useEffect(() => {
    const page = session.state === 'signed-in' ? (TITLES[section] ?? 'Console') : 'Sign in';
    document.title = `${page} · Quotient Admin`;
  }, [section, session.state]);

  if (session.state === 'checking') {
    return (
      <main class="centered">
        <Loading label="Checking your session…" />
      </main>
    );
  }
  if (session.state === 'signed-out') {
    return (
      <SignInPage
        notice={session.notice}
        onSignedIn={(me) => {
          rememberSession(me);
          setSession({ state: 'signed-in', me });
          if (!TITLES[section]) navigate('/keys', { replace: true });
        }}
      />
    );
  }

  const { me } = session;
  const canChange = me.admin.role === 'admin';
  const signOut = async () => {
    await api.DELETE('/admin/v1/sessions/current');
    rememberSession(undefined);
    setSession({ state: 'signed-out', notice: 'You are signed out.' });
  };

  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <aside class="sidebar">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true">
            Q
          </span>
          <div>
            <div class="brand-name">Quotient</div>
            <div class="brand-org">{me.org.name}</div>
          </div>
        </div>
        <nav aria-label="Console">
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <Link href={item.href} class="nav-link" current={section === item.href}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <div class="account-name">{me.admin.display_name}</div>
          <div class="account-email">{me.admin.email}</div>
          <div class="account-role">{me.admin.role === 'admin' ? 'Admin' : 'Viewer (read only)'}</div>
          <button type="button" class="button button-quiet" onClick={signOut}>
            Sign out
          </button>
        </div>
      </aside>
      <main id="main" class="content" tabIndex={-1}>
        <Page path={path} canChange={canChange} orgId={me.org.id} />
      </main>
    </div>
  );
}

function Page(props: { path: string; canChange: boolean; orgId: string }) {
  const [, section, id, sub, subId, leaf] = props.path.split('/');
  switch (section) {
    case 'audit':
      return <AuditPage />;
    case 'plans':
      if (id && sub === 'versions' && subId && leaf === 'document') {
        return <PlanDocumentPage planId={decodeURIComponent(id)} versionId={decodeURIComponent(subId)} />;
      }
      if (id && sub === 'versions' && subId && leaf === 'acceptances') {
        return (
          <PlanAcceptancesPage
            planId={decodeURIComponent(id)}
            versionId={decodeURIComponent(subId)}
            canChange={props.canChange}
          />
        );
      }
      return id ? (
        <PlanPage id={decodeURIComponent(id)} canChange={props.canChange} />
      ) : (
        <PlansPage canChange={props.canChange} />
      );
    case 'imports':
      return <ImportsPage canChange={props.canChange} />;
    case 'connectors':
      return id === 'callback' ? <ConnectorCallbackPage /> : <ConnectorsPage canChange={props.canChange} />;
    case 'periods':
      return id && sub === 'sign-off' ? (
        <SignOffPage periodId={decodeURIComponent(id)} canChange={props.canChange} />
      ) : (
        <PeriodsPage canChange={props.canChange} />
      );
    case 'adjustments':
      return <AdjustmentsPage canChange={props.canChange} />;
    case 'accounting':
      return <AccountingPage canChange={props.canChange} />;
    case 'reps':
      return <RepsPage canChange={props.canChange} />;
    case 'inquiries':
      return id ? <InquiryPage id={decodeURIComponent(id)} canChange={props.canChange} /> : <InquiriesPage />;
    case 'quotas':
      return <QuotasPage canChange={props.canChange} />;
    case 'webhooks':
      return <WebhooksPage canChange={props.canChange} />;
    case 'admins':
      return <AdminsPage />;
    case 'single-sign-on':
      return <SingleSignOnPage orgId={props.orgId} canChange={props.canChange} />;
    default:
      return <KeysPage canChange={props.canChange} />;
  }
}
