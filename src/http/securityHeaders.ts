import type { ServerResponse } from 'node:http';

// Response headers that tell browsers how to treat what this server sends. API responses are data, never a
// page: nothing in them may run, be framed or be sniffed into another type. HTML pages (the API reference at
// /docs, the admin console) load their own scripts and styles from this server and nothing from elsewhere.

/** On every response; an HTML page replaces the policy with `htmlPageSecurityHeaders`. */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

const API_SECURITY_HEADER_ENTRIES = Object.entries(API_SECURITY_HEADERS);

/** Sets the API's security headers: a fixed set, written without Express's per-header `res.set` checks. */
export function setApiSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of API_SECURITY_HEADER_ENTRIES) res.setHeader(name, value);
}

/** CSP directives a page adds to (or widens from) the base policy, e.g. `{ 'style-src': "'self' 'unsafe-inline'" }`. */
export type CspDirectives = Readonly<Record<string, string>>;

const HTML_PAGE_POLICY: CspDirectives = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' data:",
  'font-src': "'self' data:",
  'connect-src': "'self'",
  'base-uri': "'none'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
};

/**
 * The headers for an HTML page served by Quotient: scripts, styles, images, fonts and fetches from this origin
 * only, never framed. `directives` replace the base policy's directive of the same name.
 */
export function htmlPageSecurityHeaders(directives: CspDirectives = {}): Record<string, string> {
  const policy = { ...HTML_PAGE_POLICY, ...directives };
  return {
    ...API_SECURITY_HEADERS,
    'Content-Security-Policy': Object.entries(policy)
      .map(([name, value]) => `${name} ${value}`)
      .join('; '),
  };
}
