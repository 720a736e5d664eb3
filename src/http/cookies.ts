import type { Request } from 'express';

export interface CookieRule {
  name: string;
  path: string;
  sameSite: 'Strict' | 'Lax';
}

/**
 * A cookie no script can read, for this server's paths only, `Secure` when the request came over HTTPS (directly, or
 * through a trusted proxy's X-Forwarded-Proto). A max age of 0 clears it.
 */
export function httpOnlyCookie(rule: CookieRule, req: Request, value: string, maxAgeSeconds: number): string {
  return [
    `${rule.name}=${value}`,
    `Path=${rule.path}`,
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
    'HttpOnly',
    `SameSite=${rule.sameSite}`,
    ...(req.secure ? ['Secure'] : []),
  ].join('; ');
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}
