import express, { type Request, type Response, type Router } from 'express';
import type { PortalServices } from '../../composition.ts';
import type { Logger } from '../../lib/logger.ts';
import { SignInRefused } from '../../services/portalSignIn.ts';
import type { LiveRepSession } from '../../services/repSessions.ts';
import { actorOf, sessionCookie as consoleSessionCookie, requireSameOrigin } from '../admin/session.ts';
import { type CookieRule, httpOnlyCookie, readCookie } from '../cookies.ts';
import { linkConfirmationPage, PAGES_CSS, PAGES_CSS_PATH, refusalPage } from './pages.ts';
import { CALLBACK_PATH, LINK_PATH, originOf, SESSION_PATH, SIGN_IN_PATH, SIGN_OUT_PATH, TOKEN_PATH } from './paths.ts';
import type { PortalSessionStatus, PortalToken } from './sessionStatus.ts';

// The portal's session cookie goes with top-level navigations from other sites (Lax), so a rep arriving from the
// identity provider or a link in their mail is signed in; changes are POSTs, which Lax keeps same-site, and they
// also check the Origin.
const SESSION_COOKIE: CookieRule = { name: 'quotient_portal_session', path: '/portal', sameSite: 'Lax' };
// The sign-in's state, kept by the browser that started it until the provider sends it back to the callback.
const STATE_COOKIE: CookieRule = { name: 'quotient_sso_state', path: CALLBACK_PATH, sameSite: 'Lax' };
const STATE_COOKIE_SECONDS = 10 * 60;

const ORG_ID = /^org_[0-7][0-9a-hjkmnp-tv-z]{25}$/;

function secondsUntil(at: Date): number {
  return (at.getTime() - Date.now()) / 1000;
}

function signedInAs(session: LiveRepSession): PortalSessionStatus {
  return {
    signed_in: true,
    rep: { id: session.rep.id, external_id: session.rep.external_id, display_name: session.rep.display_name },
    org: { id: session.org_id, name: session.rep.org_name },
    session: { expires_at: session.expires_at.toISOString(), idle_expires_at: session.idle_expires_at.toISOString() },
  };
}

/**
 * The rep portal's sign-in and session, outside the API contracts: they answer browsers with redirects, pages and
 * cookies. OpenID Connect sign-in (`/portal/sign-in` → the provider → `/portal/callback`), one-time sign-in links
 * (`/portal/link`), who is signed in (`/portal/session`) and sign-out. A refused sign-in answers a page that says
 * what to do; the log has why.
 */
export function portalRouter(services: PortalServices, logger: Logger): Router {
  const router = express.Router();
  const refuse = (req: Request, res: Response, error: unknown) => {
    if (!(error instanceof SignInRefused)) throw error;
    const cause = error.cause instanceof Error ? error.cause.message : undefined;
    logger.info({ requestId: res.locals.requestId, reason: error.reason, cause, path: req.path }, 'sign-in refused');
    res.append('Set-Cookie', httpOnlyCookie(STATE_COOKIE, req, '', 0));
    refusalPage(res, error.reason);
  };
  const signInRep = (req: Request, res: Response, token: string, session: LiveRepSession) => {
    res.append('Set-Cookie', httpOnlyCookie(SESSION_COOKIE, req, token, secondsUntil(session.expires_at)));
    res.redirect(303, '/portal/');
  };

  router.get(PAGES_CSS_PATH, (_req, res) => {
    res.type('css').set('Cache-Control', 'public, max-age=3600').send(PAGES_CSS);
  });

  router.get(SIGN_IN_PATH, async (req, res) => {
    const { org, provider, to } = req.query;
    if (typeof org !== 'string' || !ORG_ID.test(org) || typeof provider !== 'string' || provider === '') {
      return refusalPage(res, 'unknown_provider');
    }
    try {
      const started = await services.signIn.begin({
        orgId: org,
        provider,
        destination: to === 'console' ? 'console' : 'portal',
        redirectUri: `${originOf(req)}${CALLBACK_PATH}`,
      });
      res.append('Set-Cookie', httpOnlyCookie(STATE_COOKIE, req, started.state, STATE_COOKIE_SECONDS));
      res.redirect(303, started.authorizationUrl.href);
    } catch (error) {
      refuse(req, res, error);
    }
  });

  router.get(CALLBACK_PATH, async (req, res) => {
    try {
      const signedIn = await services.signIn.complete({
        callbackUrl: new URL(req.originalUrl, originOf(req)),
        browserState: readCookie(req.get('cookie'), STATE_COOKIE.name),
        redirectUri: `${originOf(req)}${CALLBACK_PATH}`,
        adminActor: (admin) => actorOf(req, res, admin, CALLBACK_PATH),
      });
      res.append('Set-Cookie', httpOnlyCookie(STATE_COOKIE, req, '', 0));
      if (signedIn.destination === 'console') {
        res.append('Set-Cookie', consoleSessionCookie(req, signedIn.token, secondsUntil(signedIn.session.expires_at)));
        res.redirect(303, '/admin/');
        return;
      }
      signInRep(req, res, signedIn.token, signedIn.session);
    } catch (error) {
      refuse(req, res, error);
    }
  });

  router.get(LINK_PATH, (req, res) => {
    const { token } = req.query;
    if (typeof token !== 'string' || token === '') return refusalPage(res, 'link_unusable');
    linkConfirmationPage(res, token, LINK_PATH);
  });

  router.post(LINK_PATH, express.urlencoded({ extended: false, limit: '4kb' }), async (req, res) => {
    requireSameOrigin(req, 'the portal');
    const token = (req.body as { token?: unknown } | undefined)?.token;
    try {
      if (typeof token !== 'string' || token === '') return refusalPage(res, 'link_unusable');
      const opened = await services.signIn.useLink(token);
      signInRep(req, res, opened.token, opened.session);
    } catch (error) {
      refuse(req, res, error);
    }
  });

  router.get(SESSION_PATH, async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const session = await currentSession(services, req);
    if (!session) return res.status(200).json({ signed_in: false } satisfies PortalSessionStatus);
    res.status(200).json(signedInAs(session));
  });

  // The portal's pages call /v1 as their rep with a rep token from here, minted by the same service integrators use
  // (docs/rep-tokens.md): at most 15 minutes, never past the session's end.
  router.post(TOKEN_PATH, async (req, res) => {
    requireSameOrigin(req, 'the portal');
    res.set('Cache-Control', 'no-store');
    const session = await currentSession(services, req);
    const ends = session && new Date(Math.min(session.expires_at.getTime(), session.idle_expires_at.getTime()));
    const minted = session && ends ? await services.repTokens.mintForSession({ ...session, ends_at: ends }) : null;
    if (!minted) {
      res.status(401).json({ error: 'unauthenticated', reason: 'sign in to the portal first' });
      return;
    }
    res.status(201).json({
      id: minted.record.id,
      token: minted.token,
      user_id: minted.record.user_id,
      expires_at: minted.record.expires_at.toISOString(),
    } satisfies PortalToken);
  });

  router.post(SIGN_OUT_PATH, async (req, res) => {
    requireSameOrigin(req, 'the portal');
    const session = await currentSession(services, req);
    if (session) {
      await services.repTokens.revokeForSession(session);
      await services.sessions.signOut(session);
    }
    res.append('Set-Cookie', httpOnlyCookie(SESSION_COOKIE, req, '', 0));
    res.status(204).end();
  });

  return router;
}

async function currentSession(services: PortalServices, req: Request): Promise<LiveRepSession | null> {
  const token = readCookie(req.get('cookie'), SESSION_COOKIE.name);
  return token ? services.sessions.authenticate(token) : null;
}
