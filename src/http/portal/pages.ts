import type { Response } from 'express';
import type { SignInRefusalReason } from '../../services/portalSignIn.ts';
import { htmlPageSecurityHeaders } from '../securityHeaders.ts';
import { PORTAL_PATH } from './paths.ts';

// The server-rendered pages of sign-in: a refusal, and the confirmation a sign-in link opens (a link is used by the
// button's POST, not by opening it, so a chat app's or mail scanner's preview cannot use it up). They say what
// happened and what to do, in the reader's terms, and name no internals: the server's log has the cause.

/** The page's stylesheet, served beside it (the pages' policy allows no inline style). */
export const PAGES_CSS = `
body { font-family: system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1d2430; }
main { max-width: 32rem; margin: 12vh auto; padding: 2rem; background: #fff; border-radius: 8px;
  box-shadow: 0 1px 3px rgb(0 0 0 / 12%); }
h1 { font-size: 1.4rem; margin-top: 0; }
a, button { font: inherit; }
button { padding: 0.5rem 1rem; border: 0; border-radius: 6px; background: #1f5fd6; color: #fff; cursor: pointer; }
button:focus-visible, a:focus-visible { outline: 3px solid #f2b705; outline-offset: 2px; }
`;
export const PAGES_CSS_PATH = '/portal/pages.css';

const REFUSALS: Record<SignInRefusalReason, { status: number; title: string; text: string }> = {
  unknown_provider: {
    status: 404,
    title: 'This sign-in address is not set up',
    text: 'Your organization has no sign-in by that name. Ask your administrator for the right link.',
  },
  provider_unreachable: {
    status: 502,
    title: 'Your company’s sign-in service did not answer',
    text: 'Try again in a moment. If it keeps happening, tell your administrator.',
  },
  attempt_unknown: {
    status: 400,
    title: 'This sign-in has expired or was already used',
    text: 'Sign-ins must be finished in the browser that started them, within ten minutes. Start again.',
  },
  cancelled: {
    status: 400,
    title: 'You were not signed in',
    text: 'The sign-in was cancelled at your company’s sign-in service, or it did not sign you in. Start again when you are ready.',
  },
  unverified: {
    status: 400,
    title: 'Your sign-in could not be verified',
    text: 'The answer from your company’s sign-in service did not pass our checks, so you were not signed in. Start again; if it keeps happening, tell your administrator.',
  },
  email_missing: {
    status: 403,
    title: 'Your sign-in has no verified email address',
    text: 'Your company’s sign-in service did not tell us a verified email address for you. Ask your administrator to check its settings.',
  },
  email_domain: {
    status: 403,
    title: 'This email address cannot sign in here',
    text: 'Your organization signs in with other email domains. Sign in with your work account, or ask your administrator.',
  },
  no_rep: {
    status: 403,
    title: 'No rep is linked to you yet',
    text: 'You signed in with your company, but no rep account is linked to your identity. Ask your administrator to invite your email address.',
  },
  no_admin: {
    status: 403,
    title: 'This account cannot sign in to the console this way',
    text: 'Single sign-on to the console is off for your organization, or your email address is not an admin’s. Sign in with your password instead.',
  },
  link_unusable: {
    status: 400,
    title: 'This sign-in link has expired or was already used',
    text: 'Each link signs in once, for a short time. Ask your administrator for a new one.',
  },
  rep_deactivated: {
    status: 403,
    title: 'Your account is no longer active',
    text: 'Your administrator has deactivated your rep account, so you cannot sign in. If you are returning, ask them to reactivate it.',
  },
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(res: Response, status: number, title: string, body: string, headers: Record<string, string> = {}): void {
  res
    .status(status)
    .set({ ...htmlPageSecurityHeaders(), 'Cache-Control': 'no-store', ...headers })
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Quotient</title><link rel="stylesheet" href="${PAGES_CSS_PATH}"></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
    );
}

export function refusalPage(res: Response, reason: SignInRefusalReason): void {
  const refusal = REFUSALS[reason];
  page(
    res,
    refusal.status,
    refusal.title,
    `<p>${escapeHtml(refusal.text)}</p><p><a href="${PORTAL_PATH}/">Back to the portal</a></p>`,
  );
}

/** The page a sign-in link opens: its button posts the token, which signs in. */
export function linkConfirmationPage(res: Response, token: string, action: string): void {
  page(
    res,
    200,
    'Sign in to your pay portal',
    `<p>This link signs you in once.</p><form method="post" action="${escapeHtml(action)}"><input type="hidden" name="token" value="${escapeHtml(token)}"><button type="submit">Sign in</button></form>`,
    // The form's POST must carry this page's Origin, which the server checks; under `no-referrer` it would be null.
    { 'Referrer-Policy': 'same-origin' },
  );
}
