// The rep portal's addresses. The redirect URI an org registers at its identity provider is CALLBACK_PATH on
// Quotient's public origin (docs/sso.md).

export const PORTAL_PATH = '/portal';
export const SIGN_IN_PATH = '/portal/sign-in';
export const CALLBACK_PATH = '/portal/callback';
export const LINK_PATH = '/portal/link';
export const SESSION_PATH = '/portal/session';
export const SIGN_OUT_PATH = '/portal/sign-out';
export const TOKEN_PATH = '/portal/token';

/** The origin the browser reached this server at, as the redirect URI and links must name it. */
export function originOf(req: { protocol: string; get(name: string): string | undefined }): string {
  return `${req.protocol}://${req.get('host')}`;
}

export function signInLinkUrl(origin: string, token: string): string {
  return `${origin}${LINK_PATH}?token=${encodeURIComponent(token)}`;
}

/** Where an admin's browser goes to sign in to the console through the org's provider. */
export function consoleSignInPath(orgId: string, provider: string): string {
  const query = new URLSearchParams({ org: orgId, provider, to: 'console' });
  return `${SIGN_IN_PATH}?${query.toString()}`;
}
