import { randomBytes } from 'node:crypto';
import { tokenDigest } from './tokenDigest.ts';

// Rep tokens (docs/rep-tokens.md): "qrt_" + 64 lowercase hex characters (32 random bytes), a prefix of their own
// so that a token tells which table to look in. Only the SHA-256 digest is stored, as for API keys.

export const REP_TOKEN_PREFIX = 'qrt';

/** What a rep token may do: read, within what its rep may see (src/domain/viewer.ts), and estimate. */
export const REP_TOKEN_SCOPES: readonly string[] = ['deals:read', 'earnings:read', 'plans:read'];

export const REP_TOKEN_TTL_MIN_SECONDS = 60;
export const REP_TOKEN_TTL_MAX_SECONDS = 3600;
export const REP_TOKEN_TTL_DEFAULT_SECONDS = 900;
/** The portal's own tokens live at most this long (and never past the session). */
export const PORTAL_TOKEN_TTL_SECONDS = 900;

export const REP_RATE_LIMIT_MIN = 1;
export const REP_RATE_LIMIT_MAX = 100_000;

export function generateRepToken(): { raw: string; digest: string } {
  const raw = `${REP_TOKEN_PREFIX}_${randomBytes(32).toString('hex')}`;
  return { raw, digest: tokenDigest(raw) };
}

export function isRepToken(token: string): boolean {
  return token.startsWith(`${REP_TOKEN_PREFIX}_`);
}

/** A browser origin as CORS compares it: scheme, host and port, no path; null when the text is not one. */
export function normalizeOrigin(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    return null;
  }
  return url.origin;
}
